// The review chart's data: deltas proposed per bucket by origin and what became of them, and the
// totals per origin (acceptance rate, time to decision).
import { DELTA_ORIGINS, type DeltaOrigin } from "@/server/deltas/schemas";
import type { MetricsResult, ReviewTotals } from "@/server/metrics/schemas";
import { BUCKET_START_COLUMN, tableOf, type ColumnOf, type DataTableModel } from "../data-table";
import { VERSION_ORIGIN_LABELS } from "@/components/shared/chart-palette";
import { rowsOnBuckets } from "./buckets";

export interface ReviewRow {
  start: string;
  proposed: Partial<Record<DeltaOrigin, number>>;
  approved: number;
  autoApplied: number;
  rejected: number;
  nearDuplicates: number;
}

export interface ReviewSeries {
  rows: ReviewRow[];
  /** Origins with a delta in the range, in the API's order of origins. */
  origins: DeltaOrigin[];
}

/** The review figures on the outcomes' buckets, so every chart shares its x values. */
export function reviewSeries(result: Pick<MetricsResult, "review" | "outcomes">): ReviewSeries {
  const seen = new Set<DeltaOrigin>();
  const rows = rowsOnBuckets(
    result.outcomes,
    result.review.buckets,
    (start): ReviewRow => ({ start, proposed: {}, approved: 0, autoApplied: 0, rejected: 0, nearDuplicates: 0 }),
    (row, bucket) => {
      if (bucket.proposed > 0) seen.add(bucket.origin);
      row.proposed[bucket.origin] = (row.proposed[bucket.origin] ?? 0) + bucket.proposed;
      row.approved += bucket.approved;
      row.autoApplied += bucket.autoApplied;
      row.rejected += bucket.rejected;
      row.nearDuplicates += bucket.nearDuplicates;
    },
  );
  return { rows, origins: DELTA_ORIGINS.filter((origin) => seen.has(origin)) };
}

export function reviewTable(series: ReviewSeries, title: string): DataTableModel {
  const proposedColumns = series.origins.map((origin): ColumnOf<ReviewRow> => ({
    key: `proposed:${origin}`,
    label: `Proposed: ${VERSION_ORIGIN_LABELS[origin]}`,
    kind: "count",
    value: (row) => row.proposed[origin] ?? 0,
  }));
  return tableOf<ReviewRow>(
    title,
    [
      BUCKET_START_COLUMN,
      ...proposedColumns,
      { key: "approved", label: "Approved", kind: "count" },
      { key: "autoApplied", label: "Auto-applied", kind: "count" },
      { key: "rejected", label: "Rejected", kind: "count" },
      { key: "nearDuplicates", label: "Near-duplicates caught", kind: "count" },
    ],
    series.rows,
  );
}

export function reviewTotalsTable(result: Pick<MetricsResult, "review">, title: string): DataTableModel {
  return tableOf<ReviewTotals>(
    title,
    [
      { key: "origin", label: "Origin", kind: "text", value: (totals) => VERSION_ORIGIN_LABELS[totals.origin] },
      { key: "proposed", label: "Proposed", kind: "count" },
      { key: "approved", label: "Approved", kind: "count" },
      { key: "autoApplied", label: "Auto-applied", kind: "count" },
      { key: "rejected", label: "Rejected", kind: "count" },
      { key: "pending", label: "Pending", kind: "count" },
      { key: "acceptanceRate", label: "Acceptance rate", kind: "rate" },
      { key: "low", label: "95 % low", kind: "rate", value: (totals) => totals.ci95?.[0] ?? null },
      { key: "high", label: "95 % high", kind: "rate", value: (totals) => totals.ci95?.[1] ?? null },
      { key: "medianDecisionMs", label: "Median time to decision", kind: "ms" },
      { key: "p90DecisionMs", label: "p90 time to decision", kind: "ms" },
      { key: "nearDuplicates", label: "Near-duplicates caught", kind: "count" },
      { key: "autoAppliedShare", label: "Share auto-applied", kind: "rate" },
    ],
    result.review.byOrigin.filter((totals) => totals.proposed > 0),
  );
}
