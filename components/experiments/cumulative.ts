// The cumulative chart's data: each variant's success rate over the units first exposed up to the end
// of each UTC day, with all their traces (the results' timeline), so the lines settle as the sample
// grows and early swings show as what they are.
import type { ExperimentResults } from "@/server/experiments/schemas";

type TimelinePoint = ExperimentResults["timeline"][number];

export interface CumulativeFigures {
  success: number;
  decided: number;
  /** success ÷ decided so far; null before the variant's first decided trace (no line yet, never 0). */
  rate: number | null;
}

export interface CumulativeRow {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  variants: Record<string, CumulativeFigures>;
}

const NOTHING_YET: CumulativeFigures = { success: 0, decided: 0, rate: null };

/**
 * One row per day of the timeline, in date order, with a figure for every variant asked for. A
 * variant the server left out of a day keeps its figures from the day before (running totals
 * cannot fall).
 */
export function cumulativeRows(timeline: readonly TimelinePoint[], variants: readonly string[]): CumulativeRow[] {
  const sorted = [...timeline].sort((a, b) => a.date.localeCompare(b.date));
  const last = new Map<string, CumulativeFigures>(variants.map((key) => [key, NOTHING_YET]));
  return sorted.map((point) => {
    for (const figures of point.variants) {
      if (!last.has(figures.key)) continue;
      last.set(figures.key, {
        success: figures.success,
        decided: figures.decided,
        rate: figures.decided === 0 ? null : figures.successRate,
      });
    }
    return { date: point.date, variants: Object.fromEntries(variants.map((key) => [key, last.get(key)!])) };
  });
}

/** "Nov 3": a day of the timeline as an axis tick (the date is UTC, so is the label). */
export function dayLabel(date: string): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
}
