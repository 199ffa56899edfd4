// The churn chart's data: operations per bucket, stacked by operation type or by origin.
import { DELTA_OPERATION_TYPES, type DeltaOperationType } from "@/server/deltas/schemas";
import { VERSION_ORIGINS, type MetricsResult, type VersionOrigin } from "@/server/metrics/schemas";
import { BUCKET_START_COLUMN, tableOf, type ColumnOf, type DataTableModel } from "../data-table";
import { OPERATION_LABELS, VERSION_ORIGIN_LABELS } from "@/components/shared/chart-palette";

export type ChurnKey = DeltaOperationType | VersionOrigin;

interface ChurnRow {
  start: string;
  values: Partial<Record<ChurnKey, number>>;
  total: number;
}

export interface ChurnSeries {
  rows: ChurnRow[];
  /** The stacked series, in a fixed order; only those with operations in the range. */
  keys: ChurnKey[];
}

/**
 * Operations per bucket, stacked by type or by origin. Counter tags (one per reflection) are left
 * out unless every version is shown, as the version markers are.
 */
export function churnSeries(result: Pick<MetricsResult, "churn">, grouping: "type" | "origin", includeTags: boolean): ChurnSeries {
  const counted = (operations: Partial<Record<DeltaOperationType, number>>) =>
    DELTA_OPERATION_TYPES.filter((type) => includeTags || type !== "tag").reduce((sum, type) => sum + (operations[type] ?? 0), 0);
  const rows = result.churn.map((bucket) => {
    const values: Partial<Record<ChurnKey, number>> = {};
    if (grouping === "type") {
      for (const type of DELTA_OPERATION_TYPES) {
        if (!includeTags && type === "tag") continue;
        const value = bucket.operations[type] ?? 0;
        if (value > 0) values[type] = value;
      }
    } else {
      for (const origin of VERSION_ORIGINS) {
        const operations = bucket.byOrigin[origin];
        const value = operations ? counted(operations) : 0;
        if (value > 0) values[origin] = value;
      }
    }
    return { start: bucket.start, values, total: Object.values(values).reduce((sum, value) => sum + value, 0) };
  });
  const order: readonly ChurnKey[] = grouping === "type" ? DELTA_OPERATION_TYPES : VERSION_ORIGINS;
  const keys = order.filter((key) => rows.some((row) => (row.values[key] ?? 0) > 0));
  return { rows, keys };
}

export function churnLabel(key: ChurnKey): string {
  return (DELTA_OPERATION_TYPES as readonly string[]).includes(key)
    ? OPERATION_LABELS[key as DeltaOperationType]
    : VERSION_ORIGIN_LABELS[key as VersionOrigin];
}

export function churnTable(series: ChurnSeries, title: string): DataTableModel {
  const keyColumns = series.keys.map((key): ColumnOf<ChurnRow> => ({
    key,
    label: churnLabel(key),
    kind: "count",
    value: (row) => row.values[key] ?? 0,
  }));
  return tableOf<ChurnRow>(title, [BUCKET_START_COLUMN, ...keyColumns, { key: "total", label: "Total", kind: "count" }], series.rows);
}
