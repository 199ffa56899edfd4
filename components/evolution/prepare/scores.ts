// The score distribution at one version (helpful − harmful per bullet) as histogram bars.
import { tableOf, type DataTableModel } from "../data-table";

export interface ScoreBin {
  /** "3", or "−4 to 0" for a bin of several scores. */
  label: string;
  from: number;
  to: number;
  bullets: number;
}

/** Bars the score histogram draws at most; wider spreads are binned. */
const MAX_SCORE_BARS = 40;

/**
 * The score distribution as histogram bars: one per score from the lowest to the highest (gaps
 * included, so the shape is honest), or equal-width bins when the spread needs more than maxBars.
 */
export function scoreBins(distribution: readonly (readonly [number, number])[], maxBars = MAX_SCORE_BARS): ScoreBin[] {
  if (distribution.length === 0) return [];
  const scores = distribution.map(([score]) => score);
  const min = Math.min(...scores);
  const max = Math.max(...scores);
  const width = Math.max(1, Math.ceil((max - min + 1) / maxBars));
  const bins: ScoreBin[] = [];
  for (let from = min; from <= max; from += width) {
    const to = Math.min(from + width - 1, max);
    bins.push({ label: from === to ? signed(from) : `${signed(from)} to ${signed(to)}`, from, to, bullets: 0 });
  }
  for (const [score, bullets] of distribution) bins[Math.floor((score - min) / width)]!.bullets += bullets;
  return bins;
}

function signed(score: number): string {
  return score < 0 ? `−${Math.abs(score)}` : String(score);
}

export function scoreTable(bins: readonly ScoreBin[], version: number, title: string): DataTableModel {
  return tableOf<ScoreBin>(
    title,
    [
      { key: "version", label: "Version", kind: "count", value: () => version },
      { key: "from", label: "Score from", kind: "count" },
      { key: "to", label: "Score to", kind: "count" },
      { key: "bullets", label: "Bullets", kind: "count" },
    ],
    bins,
  );
}
