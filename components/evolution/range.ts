// The time range and bucket of the Evolution charts. Buckets are UTC (hours, days from 00:00 UTC,
// weeks from Monday 00:00 UTC), with the metrics API's own arithmetic (server/metrics/buckets.ts);
// only their labels are in the viewer's zone. Pure, so the server page and the browser resolve the
// same URL to the same query.
import { oneOf } from "@/components/ui/search-params";
import { BUCKET_MS, BUCKETS, bucketRange, truncateToBucket, type Bucket } from "@/server/metrics/schemas";
import { EARLIEST_TRACE_TIMESTAMP } from "@/server/traces/schemas";

export { BUCKET_MS, BUCKETS, type Bucket };

export const RANGE_PRESETS = ["24h", "7d", "30d", "90d", "all"] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];

/** No series gets more points than this: the bucket is widened until it fits. */
export const MAX_POINTS = 500;

const HOUR_MS = BUCKET_MS.hour;
const DAY_MS = BUCKET_MS.day;

export const PRESET_MS: Record<Exclude<RangePreset, "all">, number> = {
  "24h": DAY_MS,
  "7d": 7 * DAY_MS,
  "30d": 30 * DAY_MS,
  "90d": 90 * DAY_MS,
};

/** The earliest time a trace may carry (the API refuses older timestamps). */
export const EARLIEST_TIME = Date.parse(EARLIEST_TRACE_TIMESTAMP);

/** The start of the UTC bucket that holds `time`, in milliseconds. */
export function bucketStart(time: number, bucket: Bucket): number {
  return truncateToBucket(new Date(time), bucket).getTime();
}

/** The end (exclusive) of the bucket that starts at `start`. */
export function bucketEnd(start: number, bucket: Bucket): number {
  return start + BUCKET_MS[bucket];
}

/** Buckets from the start of `from`'s bucket up to `to` (exclusive). */
export function bucketCount(from: number, to: number, bucket: Bucket): number {
  return to <= from ? 0 : bucketRange(new Date(from), new Date(to), bucket).count;
}

/** The finest bucket that keeps the span within MAX_POINTS points (a week when nothing does). */
export function autoBucket(from: number, to: number): Bucket {
  return BUCKETS.find((bucket) => bucketCount(from, to, bucket) <= MAX_POINTS) ?? "week";
}

/** Whether a bucket is fine enough to be offered for a span: within MAX_POINTS points. */
export function bucketFits(from: number, to: number, bucket: Bucket): boolean {
  return bucketCount(from, to, bucket) <= MAX_POINTS;
}

// ---- The range in the URL ---------------------------------------------------------------------

export const EVOLUTION_PARAM = {
  range: "range",
  from: "from",
  to: "to",
  bucket: "bucket",
  variant: "variant",
  versions: "versions",
  churn: "churn",
  at: "at",
} as const;

export const DEFAULT_PRESET: RangePreset = "30d";

export type ChurnGrouping = "type" | "origin";

export interface EvolutionFilters {
  /** A preset, or null for the custom range in `from`/`to`. */
  preset: RangePreset | null;
  /** Custom range, ISO instants (`to` exclusive); both set when preset is null. */
  from: string | null;
  to: string | null;
  /** null: chosen from the span (autoBucket). */
  bucket: Bucket | null;
  /** A variant label, whatever its experiment (as the metrics API reads variant without experiment). */
  variant: string;
  /** Version markers and per-version charts: content-changing versions only, or every version. */
  allVersions: boolean;
  churn: ChurnGrouping;
  /** The version whose score distribution is shown; null: the latest in range. */
  scoresAt: number | null;
}

export const DEFAULT_EVOLUTION_FILTERS: EvolutionFilters = {
  preset: DEFAULT_PRESET,
  from: null,
  to: null,
  bucket: null,
  variant: "",
  allVersions: false,
  churn: "type",
  scoresAt: null,
};

/** An ISO 8601 instant (with Z or an offset) or a YYYY-MM-DD UTC day, as milliseconds; null otherwise. */
export function parseInstant(value: string | null | undefined): number | null {
  if (!value) return null;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const instant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value);
  if (!day && !instant) return null;
  const time = Date.parse(day ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(time)) return null;
  // Date.parse rolls 2025-02-30 over to March; refuse it instead.
  if (day && new Date(time).toISOString().slice(0, 10) !== value) return null;
  return time;
}

/** Unknown or malformed values fall back to the defaults, so a hand-edited link still opens. */
export function parseEvolutionFilters(params: URLSearchParams): EvolutionFilters {
  const from = parseInstant(params.get(EVOLUTION_PARAM.from));
  const to = parseInstant(params.get(EVOLUTION_PARAM.to));
  const custom = from !== null && to !== null && from < to && from >= EARLIEST_TIME;
  const at = params.get(EVOLUTION_PARAM.at);
  return {
    preset: custom ? null : (oneOf(params.get(EVOLUTION_PARAM.range), RANGE_PRESETS) ?? DEFAULT_PRESET),
    from: custom ? new Date(from).toISOString() : null,
    to: custom ? new Date(to).toISOString() : null,
    bucket: oneOf(params.get(EVOLUTION_PARAM.bucket), BUCKETS),
    variant: (params.get(EVOLUTION_PARAM.variant) ?? "").trim().slice(0, 100),
    allVersions: params.get(EVOLUTION_PARAM.versions) === "all",
    churn: params.get(EVOLUTION_PARAM.churn) === "origin" ? "origin" : "type",
    scoresAt: at && /^\d{1,9}$/.test(at) && Number(at) >= 1 ? Number(at) : null,
  };
}

/** Writes the filters into params, leaving defaults out so URLs stay short. Other params are kept. */
export function writeEvolutionFilters(params: URLSearchParams, filters: EvolutionFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (key: string, value: string | null) => (value ? next.set(key, value) : next.delete(key));
  const custom = filters.preset === null && filters.from !== null && filters.to !== null;
  set(EVOLUTION_PARAM.range, custom || filters.preset === DEFAULT_PRESET ? null : filters.preset);
  set(EVOLUTION_PARAM.from, custom ? filters.from : null);
  set(EVOLUTION_PARAM.to, custom ? filters.to : null);
  set(EVOLUTION_PARAM.bucket, filters.bucket);
  set(EVOLUTION_PARAM.variant, filters.variant.trim() || null);
  set(EVOLUTION_PARAM.versions, filters.allVersions ? "all" : null);
  set(EVOLUTION_PARAM.churn, filters.churn === "origin" ? "origin" : null);
  set(EVOLUTION_PARAM.at, filters.scoresAt === null ? null : String(filters.scoresAt));
  return next;
}

export interface ResolvedRange {
  /** Start of the first bucket. */
  from: Date;
  /** Exclusive end. */
  to: Date;
  bucket: Bucket;
  /** The bucket was chosen from the span, not by the reader. */
  autoBucket: boolean;
  /** The reader's bucket would have made more than MAX_POINTS points and was widened. */
  bucketWidened: boolean;
  /** Buckets in the range. */
  points: number;
}

/**
 * The concrete range for the filters at `now`. A preset ends with the bucket that holds `now` and
 * spans the preset's length back from that end, so the server page and the browser, a few seconds
 * apart, ask for the very same buckets. `all` starts at `earliest` (the first trace or version; now
 * when there is none).
 */
export function resolveRange(filters: EvolutionFilters, now: number, earliest: number | null = null): ResolvedRange {
  const span = rangeSpan(filters, now, earliest);
  const chosen = filters.bucket;
  const widened = chosen !== null && !bucketFits(span.from, span.to, chosen);
  const bucket = chosen !== null && !widened ? chosen : autoBucket(span.from, span.to);
  let from: number;
  let to: number;
  if (span.relative) {
    // A relative range ends with the bucket that holds now, whole; a preset keeps its length back
    // from there, `all` keeps its start.
    to = bucketEnd(bucketStart(now, bucket), bucket);
    from = bucketStart(span.anchored ? span.from : Math.max(EARLIEST_TIME, to - (span.to - span.from)), bucket);
  } else {
    from = bucketStart(span.from, bucket);
    to = span.to;
  }
  return {
    from: new Date(from),
    to: new Date(to),
    bucket,
    autoBucket: chosen === null || widened,
    bucketWidened: widened,
    points: bucketCount(from, to, bucket),
  };
}

interface Span {
  from: number;
  to: number;
  /** It ends now and moves with the clock. */
  relative: boolean;
  /** Its start is fixed (`all`), not its length. */
  anchored: boolean;
}

/** The span before buckets: [from, to) in ms. */
function rangeSpan(filters: EvolutionFilters, now: number, earliest: number | null): Span {
  if (filters.preset === null && filters.from && filters.to) {
    return { from: Date.parse(filters.from), to: Date.parse(filters.to), relative: false, anchored: true };
  }
  const preset = filters.preset ?? DEFAULT_PRESET;
  if (preset === "all") {
    const start = Math.max(EARLIEST_TIME, Math.min(earliest ?? now, now));
    // At least an hour, so a playbook whose first trace arrived a minute ago still has a bucket.
    return { from: Math.min(start, now - HOUR_MS), to: now, relative: true, anchored: true };
  }
  return { from: now - PRESET_MS[preset], to: now, relative: true, anchored: false };
}

/** Filters for a custom range [from, to): what a zoom or a typed range writes into the URL. */
export function customRange(filters: EvolutionFilters, from: number, to: number): EvolutionFilters {
  return { ...filters, preset: null, from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}
