// The outcomes chart's data: a row per bucket with the success rate, its interval and each
// variant's figures beside the total, the table that lists them, and whether the range holds
// enough decided outcomes to read a rate into.
import type { MetricsResult } from "@/server/metrics/schemas";
import { BUCKET_START_COLUMN, tableOf, type ColumnOf, type DataTableModel } from "../data-table";

type Interval = [number, number];

export interface OutcomeCounts {
  traces: number;
  success: number;
  failure: number;
  unknown: number;
  /** success ÷ (success + failure); null when both are 0. */
  rate: number | null;
  /** Wilson 95 % interval of the rate. */
  band: Interval | null;
}

export interface OutcomeRow extends OutcomeCounts {
  /** Bucket start, ISO: the x value every chart shares (tooltips synchronise on it). */
  start: string;
  /** Per variant, when the chart shows a series per variant. */
  variants: Record<string, OutcomeCounts>;
}

export interface OutcomeSeries {
  rows: OutcomeRow[];
  /** Variants with a series of their own, sorted; empty when filtered to one variant or none exist. */
  variants: string[];
  /** Buckets with at least one success or failure (a rate to draw). */
  ratedBuckets: number;
}

function counts(
  bucket: Pick<MetricsResult["outcomes"][number], "traces" | "success" | "failure" | "unknown" | "successRate" | "ci95">,
): OutcomeCounts {
  return {
    traces: bucket.traces,
    success: bucket.success,
    failure: bucket.failure,
    unknown: bucket.unknown,
    rate: bucket.successRate,
    band: bucket.ci95,
  };
}

const EMPTY_COUNTS: OutcomeCounts = { traces: 0, success: 0, failure: 0, unknown: 0, rate: null, band: null };

/**
 * One row per bucket, with each variant's figures beside the total. Variants get series of their
 * own only when the reader has not filtered to one (then the total is that variant).
 */
export function outcomeSeries(result: Pick<MetricsResult, "outcomes" | "outcomesByVariant" | "variant">): OutcomeSeries {
  const byVariant = result.variant === null ? [...result.outcomesByVariant].sort((a, b) => a.variant.localeCompare(b.variant)) : [];
  const lookup = byVariant.map((series) => ({
    variant: series.variant,
    byStart: new Map(series.outcomes.map((bucket) => [Date.parse(bucket.start), bucket])),
  }));
  const rows = result.outcomes.map((bucket): OutcomeRow => {
    const time = Date.parse(bucket.start);
    const variants: Record<string, OutcomeCounts> = {};
    for (const series of lookup) {
      const match = series.byStart.get(time);
      variants[series.variant] = match ? counts(match) : EMPTY_COUNTS;
    }
    return { start: bucket.start, ...counts(bucket), variants };
  });
  return {
    rows,
    variants: byVariant.map((series) => series.variant),
    ratedBuckets: rows.filter((row) => row.success + row.failure > 0).length,
  };
}

/** Where a count of a bucket leads: the trace explorer filtered to the bucket, outcome and variant. */
export type BucketLink = (start: string, filter: { outcome?: "success" | "failure" | "unknown"; variant?: string }) => string;

/**
 * The figures of the total (no variant) or of one variant, as columns: "Traces", or "A: traces"
 * keyed "A:traces". A variant's unknown outcomes are left out, as the chart leaves them out.
 */
function countColumns(variant: string | null): ColumnOf<OutcomeRow>[] {
  const figures = (row: OutcomeRow) => (variant === null ? row : (row.variants[variant] ?? EMPTY_COUNTS));
  const column = (field: string, label: string, kind: "count" | "rate", value: (counts: OutcomeCounts) => number | null) => ({
    key: variant === null ? field : `${variant}:${field}`,
    label: variant === null ? label : `${variant}: ${label.toLowerCase()}`,
    kind,
    value: (row: OutcomeRow) => value(figures(row)),
  });
  return [
    column("traces", "Traces", "count", (counts) => counts.traces),
    column("success", "Success", "count", (counts) => counts.success),
    column("failure", "Failure", "count", (counts) => counts.failure),
    ...(variant === null ? [column("unknown", "Unknown", "count", (counts) => counts.unknown)] : []),
    column("rate", "Success rate", "rate", (counts) => counts.rate),
    column("low", "95 % low", "rate", (counts) => counts.band?.[0] ?? null),
    column("high", "95 % high", "rate", (counts) => counts.band?.[1] ?? null),
  ];
}

export function outcomeTable(series: OutcomeSeries, title: string, link?: BucketLink): DataTableModel {
  const table = tableOf(title, [BUCKET_START_COLUMN, ...countColumns(null), ...series.variants.flatMap(countColumns)], series.rows);
  if (!link) return table;
  const links = series.rows.map((row) => {
    const cells: Record<string, string> = {};
    const add = (key: string, count: number, filter: Parameters<BucketLink>[1]) => {
      if (count > 0) cells[key] = link(row.start, filter);
    };
    add("traces", row.traces, {});
    add("success", row.success, { outcome: "success" });
    add("failure", row.failure, { outcome: "failure" });
    add("unknown", row.unknown, { outcome: "unknown" });
    for (const variant of series.variants) {
      const figures = row.variants[variant] ?? EMPTY_COUNTS;
      add(`${variant}:traces`, figures.traces, { variant });
      add(`${variant}:success`, figures.success, { variant, outcome: "success" });
      add(`${variant}:failure`, figures.failure, { variant, outcome: "failure" });
    }
    return cells;
  });
  return { ...table, links };
}

// ---- Empty and sparse --------------------------------------------------------------------------

/** Decided outcomes (success + failure) below which a rate's interval is too wide to read much into. */
export const SPARSE_DECIDED = 30;

type Coverage = "empty" | "sparse" | "enough";

/** empty: no trace in the range; sparse: too few decided outcomes, or rates in fewer than 3 buckets. */
export function coverage(result: Pick<MetricsResult, "totals">, ratedBuckets: number): Coverage {
  if (result.totals.traces === 0) return "empty";
  if (result.totals.success + result.totals.failure < SPARSE_DECIDED || ratedBuckets < 3) return "sparse";
  return "enough";
}
