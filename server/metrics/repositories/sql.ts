// What the metrics' SQL shares: UTC instants, the bucket grid, where the hourly rollups stop, and the
// one snapshot transaction an answer's reads run in. Every timestamp column is UTC without a zone.
import { Prisma, type Db, type Tx } from "@/server/db/client";
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
