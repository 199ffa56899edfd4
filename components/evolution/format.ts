// How the Evolution tables and tooltips spell a value: rates to a tenth of a percent (a band of
// 61.7 %–88.9 % says more than 62 %–89 %), counts, dollars and durations as everywhere else.
import { formatCost, formatDuration, formatNumber, formatRate } from "@/components/ui/format";
import type { Cell, ColumnKind } from "./data-table";
import type { Bucket } from "./range";
import { bucketStartLabel, instantLabel } from "./time-labels";

/** "61.7 %–88.9 %"; null: "—". */
export function formatInterval(interval: readonly [number, number] | null | undefined): string {
  return interval ? `${formatRate(interval[0])}–${formatRate(interval[1])}` : "—";
}

/** Axis ticks: 0.5 → "50 %". */
export function percentTick(share: number): string {
  return `${Math.round(share * 100)} %`;
}

/** Large counts on an axis: 1200 → "1.2k". */
export function compactTick(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1_000_000) return `${(value / 1_000_000).toFixed(abs >= 10_000_000 ? 0 : 1)}M`;
  if (abs >= 1_000) return `${(value / 1_000).toFixed(abs >= 10_000 ? 0 : 1)}k`;
  return String(value);
}

export function formatCell(kind: ColumnKind, value: Cell, bucket: Bucket, timeZone: string): string {
  if (value === null) return "—";
  if (typeof value === "string") {
    if (kind === "bucket") return bucketStartLabel(value, bucket, timeZone);
    if (kind === "instant") return instantLabel(value, timeZone);
    return value;
  }
  switch (kind) {
    case "rate":
      return formatRate(value);
    case "usd":
      return formatCost(value);
    case "ms":
      return formatDuration(value);
    case "count":
    case "number":
      return formatNumber(value);
    default:
      return String(value);
  }
}
