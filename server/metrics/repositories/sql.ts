// What the metrics' SQL shares: UTC instants, the bucket grid, where the hourly rollups stop, and the
// one snapshot transaction an answer's reads run in. Every timestamp column is UTC without a zone.
import { Prisma, type Db, type Tx } from "@/server/db/client";
import { quantilesOfSorted } from "@/server/ace/stats";
import { BUCKET_INTERVAL, lastBucketStart, type BucketRange } from "../buckets";

/** A UTC instant as the timestamp-without-zone the columns hold. */
export const utc = (time: Date) => Prisma.sql`(${time.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;

/** generate_series of the range's bucket starts, as a CTE body. */
export function bucketSeries(range: BucketRange) {
  return Prisma.sql`SELECT generate_series(${utc(range.start)}, ${utc(lastBucketStart(range))}, ${BUCKET_INTERVAL[range.bucket]}::interval) AS start`;
}

const HOUR_MS = 3_600_000;

/**
 * Where the rollups stop and the rows take over: the start of the hour `end` falls in (the range's
 * start at the latest). Rollup hours before it are whole; the rest of the range is read row by row.
 */
export function rollupCut(start: Date, end: Date): Date {
  return new Date(Math.max(start.getTime(), Math.floor(end.getTime() / HOUR_MS) * HOUR_MS));
}

/**
 * The reads of one answer, in one transaction: one snapshot, so every chart of a page agrees, and
 * without PostgreSQL's JIT compilation, which the planner's guesses about the bucket grid (it cannot
 * know how many buckets a generate_series holds) would start for queries that run in milliseconds.
 */
export function readSnapshot<T>(db: Db, read: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SET LOCAL jit = off`;
      return read(tx);
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 60_000 },
  );
}

/**
 * Integers sent by PostgreSQL as one comma-separated text (string_agg of array_to_string): for the
 * 100,000 durations of a 90-day range this reads several times faster than int[] arrays or rows,
 * and a loop over the characters parses it several times faster than split and Number.
 */
export function parseIntegerList(text: string | null): Int32Array {
  if (!text) return new Int32Array(0);
  let count = 1;
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) === 44) count += 1;
  const values = new Int32Array(count);
  let index = 0;
  let value = 0;
  let negative = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 44) {
      values[index++] = negative ? -value : value;
      value = 0;
      negative = false;
    } else if (code === 45) negative = true;
    else value = value * 10 + (code - 48);
  }
  values[index] = negative ? -value : value;
  return values;
}

const QUANTILE_LEVELS = [0.5, 0.95];

/**
 * p50 and p95 of each group's values and of all of them together, by linear interpolation
 * (server/ace/stats, as percentile_cont). Keyed by the group's key; `all` for every value. Sorts the
 * groups' arrays in place.
 */
export function medianAndP95<K>(groups: readonly { key: K; values: Int32Array }[]): {
  byKey: Map<K, [number, number]>;
  all: [number, number] | null;
} {
  const byKey = new Map<K, [number, number]>();
  const all = new Int32Array(groups.reduce((sum, group) => sum + group.values.length, 0));
  let offset = 0;
  for (const { key, values } of groups) {
    const q = quantilesOfSorted(values.sort(), QUANTILE_LEVELS);
    if (q) byKey.set(key, q as [number, number]);
    all.set(values, offset);
    offset += values.length;
  }
  return { byKey, all: quantilesOfSorted(all.sort(), QUANTILE_LEVELS) as [number, number] | null };
}
