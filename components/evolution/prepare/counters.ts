// The counters chart's data (helpful and harmful totals at the end of each bucket) and the top
// movers: the bullets whose score rose or fell most in the range.
import type { MetricsResult, Mover } from "@/server/metrics/schemas";
import { BUCKET_START_COLUMN, tableOf, type DataTableModel } from "../data-table";

export interface CounterRow {
  start: string;
  version: number | null;
  helpful: number | null;
  harmful: number | null;
  neutral: number | null;
  /** helpful − harmful. */
  score: number | null;
}

export function counterRows(result: Pick<MetricsResult, "counters">): CounterRow[] {
  return result.counters.map((bucket) => ({
    start: bucket.start,
    version: bucket.version,
    helpful: bucket.helpful,
    harmful: bucket.harmful,
    neutral: bucket.neutral,
    score: bucket.helpful === null || bucket.harmful === null ? null : bucket.helpful - bucket.harmful,
  }));
}

export function counterTable(rows: readonly CounterRow[], title: string): DataTableModel {
  return tableOf<CounterRow>(
    title,
    [
      BUCKET_START_COLUMN,
      { key: "version", label: "Version", kind: "count" },
      { key: "helpful", label: "Helpful", kind: "count" },
      { key: "harmful", label: "Harmful", kind: "count" },
      { key: "neutral", label: "Neutral", kind: "count" },
      { key: "score", label: "Helpful − harmful", kind: "count" },
    ],
    rows,
  );
}

/**
 * Top movers, most first: bullets whose helpful − harmful rose (or fell) most in the range. Ties
 * go to the larger number of tags, then the bullet id, so the order never flickers between loads.
 */
export function topMovers(movers: MetricsResult["movers"]): { rose: Mover[]; fell: Mover[] } {
  const tags = (mover: Mover) => mover.helpfulChange + mover.harmfulChange;
  return {
    rose: movers.rose
      .filter((mover) => mover.scoreChange > 0)
      .sort((a, b) => b.scoreChange - a.scoreChange || tags(b) - tags(a) || a.bulletId.localeCompare(b.bulletId)),
    fell: movers.fell
      .filter((mover) => mover.scoreChange < 0)
      .sort((a, b) => a.scoreChange - b.scoreChange || tags(b) - tags(a) || a.bulletId.localeCompare(b.bulletId)),
  };
}

export function moverTable(movers: { rose: Mover[]; fell: Mover[] }, title: string): DataTableModel {
  const rows = [
    ...movers.rose.map((mover) => ({ direction: "rose", ...mover })),
    ...movers.fell.map((mover) => ({ direction: "fell", ...mover })),
  ];
  return tableOf<Mover & { direction: string }>(
    title,
    [
      { key: "direction", label: "Direction", kind: "text" },
      { key: "bulletId", label: "Bullet", kind: "text" },
      { key: "section", label: "Section", kind: "text" },
      { key: "content", label: "Content", kind: "text" },
      { key: "scoreChange", label: "Score change", kind: "count" },
      { key: "helpfulChange", label: "Helpful tags", kind: "count" },
      { key: "harmfulChange", label: "Harmful tags", kind: "count" },
      { key: "helpful", label: "Helpful now", kind: "count" },
      { key: "harmful", label: "Harmful now", kind: "count" },
    ],
    rows,
  );
}
