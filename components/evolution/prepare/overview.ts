// The studio overview's data: the playbooks table in the reader's order, its table for "Show data"
// and CSV, and each row's success-rate sparkline.
import type { OverviewRow } from "@/server/metrics/schemas";
import { tableOf, type DataTableModel } from "../data-table";

export const OVERVIEW_SORTS = ["name", "successRate", "change", "traces", "pendingDeltas"] as const;
export type OverviewSort = (typeof OVERVIEW_SORTS)[number];
export type SortDirection = "asc" | "desc";

/**
 * Rows in the chosen order. Missing values (no rate, no change) go last whichever the direction,
 * and the name breaks ties, so the table reads the same on every load.
 */
export function sortOverview(rows: readonly OverviewRow[], sort: OverviewSort, direction: SortDirection): OverviewRow[] {
  const sign = direction === "asc" ? 1 : -1;
  const byName = (a: OverviewRow, b: OverviewRow) =>
    a.name.localeCompare(b.name, "en", { sensitivity: "base" }) || a.playbookId.localeCompare(b.playbookId);
  return [...rows].sort((a, b) => {
    if (sort === "name") return sign * byName(a, b);
    const x = a[sort];
    const y = b[sort];
    if (x === null && y === null) return byName(a, b);
    if (x === null) return 1;
    if (y === null) return -1;
    return sign * (x - y) || byName(a, b);
  });
}

export function overviewTable(rows: readonly OverviewRow[], title: string): DataTableModel {
  return tableOf<OverviewRow>(
    title,
    [
      { key: "name", label: "Playbook", kind: "text" },
      { key: "successRate", label: "Success rate", kind: "rate" },
      { key: "previousSuccessRate", label: "Previous range", kind: "rate" },
      { key: "change", label: "Change", kind: "rate" },
      { key: "traces", label: "Traces", kind: "count" },
      { key: "previousTraces", label: "Traces, previous range", kind: "count" },
      { key: "pendingDeltas", label: "Pending deltas", kind: "count" },
    ],
    rows,
  );
}

interface Sparkline {
  /** An SVG path: one segment per run of buckets with a rate (a bucket without one breaks the line). */
  path: string;
  /** Buckets with a rate but no neighbour with one: drawn as dots, or they would not show. */
  dots: { x: number; y: number }[];
  /** The last rate, for the end dot. */
  last: { x: number; y: number } | null;
}

/** The success rate per bucket as a small line, 0 % at the bottom and 100 % at the top. */
export function sparkline(series: readonly { successRate: number | null }[], width: number, height: number, inset = 2): Sparkline {
  const n = series.length;
  const x = (index: number) => (n <= 1 ? width / 2 : inset + (index * (width - 2 * inset)) / (n - 1));
  const y = (rate: number) => inset + (1 - rate) * (height - 2 * inset);
  const round = (value: number) => Math.round(value * 10) / 10;
  let path = "";
  const dots: { x: number; y: number }[] = [];
  let last: Sparkline["last"] = null;
  series.forEach((point, index) => {
    if (point.successRate === null) return;
    const here = { x: round(x(index)), y: round(y(point.successRate)) };
    const previous = series[index - 1]?.successRate ?? null;
    const next = series[index + 1]?.successRate ?? null;
    if (previous === null && next === null) dots.push(here);
    else path += `${previous === null ? "M" : "L"}${here.x},${here.y}`;
    last = here;
  });
  return { path, dots, last };
}
