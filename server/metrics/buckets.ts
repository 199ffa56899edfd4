// Time buckets of the metrics, in UTC: the same boundaries as PostgreSQL's date_trunc on UTC
// timestamps (hours, days at 00:00, weeks from Monday 00:00). Pure, so the edges are unit-tested.

export const BUCKETS = ["hour", "day", "week"] as const;
export type Bucket = (typeof BUCKETS)[number];

/** More points than any chart can show; a wider bucket serves a longer range. */
export const MAX_BUCKETS = 5_000;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export const BUCKET_MS: Record<Bucket, number> = { hour: HOUR_MS, day: DAY_MS, week: 7 * DAY_MS };

/** PostgreSQL interval of one bucket (UTC has no daylight saving: every day is 24 hours). */
export const BUCKET_INTERVAL: Record<Bucket, string> = { hour: "1 hour", day: "1 day", week: "7 days" };

/** The start of the bucket holding `time`. */
export function truncateToBucket(time: Date, bucket: Bucket): Date {
  const ms = time.getTime();
  if (bucket === "hour") return new Date(Math.floor(ms / HOUR_MS) * HOUR_MS);
  const day = Math.floor(ms / DAY_MS);
  if (bucket === "day") return new Date(day * DAY_MS);
  // 1970-01-01 was a Thursday: day 0 is 3 days after a Monday.
  const sinceMonday = (((day + 3) % 7) + 7) % 7;
  return new Date((day - sinceMonday) * DAY_MS);
}

export interface BucketRange {
  /** `from` truncated to its bucket. */
  start: Date;
  /** `to`, exclusive: the last bucket may end early. */
  end: Date;
  bucket: Bucket;
  /** Buckets from start up to end: every one is present in a series, empty or not. */
  count: number;
}

/** The buckets of [from, to): `from` truncated to its bucket, `to` exclusive. */
export function bucketRange(from: Date, to: Date, bucket: Bucket): BucketRange {
  const start = truncateToBucket(from, bucket);
  const count = Math.max(0, Math.ceil((to.getTime() - start.getTime()) / BUCKET_MS[bucket]));
  return { start, end: to, bucket, count };
}

/** Start of each bucket of the range, oldest first. */
export function bucketStarts(range: BucketRange): Date[] {
  const size = BUCKET_MS[range.bucket];
  return Array.from({ length: range.count }, (_, index) => new Date(range.start.getTime() + index * size));
}

/** Start of the last bucket (generate_series runs up to it inclusive). */
export function lastBucketStart(range: BucketRange): Date {
  return new Date(range.start.getTime() + Math.max(0, range.count - 1) * BUCKET_MS[range.bucket]);
}

/** The range of the same length just before this one (a studio overview's "previous range"). */
export function previousRange(range: BucketRange): BucketRange {
  const length = range.end.getTime() - range.start.getTime();
  return { ...range, start: new Date(range.start.getTime() - length), end: range.start };
}

/**
 * Values carried forward across buckets: each bucket shows the latest value recorded up to its end
 * (`initial` before the first). For series that hold a level, such as counter totals.
 */
export function carryForward<T>(starts: readonly Date[], recorded: ReadonlyMap<number, T>, initial: T): T[] {
  let current = initial;
  return starts.map((start) => {
    const value = recorded.get(start.getTime());
    if (value !== undefined) current = value;
    return current;
  });
}
