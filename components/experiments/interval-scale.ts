// The shared axis of the results table's interval bars: every row of one metric is drawn on the same
// scale, symmetric around zero (no change), so bars can be compared by eye as in GrowthBook.

export interface IntervalScale {
  /** [−m, m]: zero sits in the middle. */
  domain: [number, number];
  /** −m, −m/2, 0, m/2, m. */
  ticks: number[];
}

/** The smallest 1, 2, 2.5 or 5 × 10^k at or above `value` (value > 0). */
export function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  const fraction = value / power;
  const step = [1, 2, 2.5, 5, 10].find((candidate) => fraction <= candidate + 1e-12) ?? 10;
  return step * power;
}

/**
 * A scale that holds every interval (and every point estimate) with a little room, symmetric
 * around zero. `fallback` is the half-width when there is nothing to draw yet (no traces), so an
 * empty table still has an axis: 0.1 (10 points) suits success rates.
 */
export function intervalScale(values: readonly (readonly [number, number] | number | null | undefined)[], fallback = 0.1): IntervalScale {
  let extent = 0;
  for (const value of values) {
    if (value === null || value === undefined) continue;
    for (const bound of typeof value === "number" ? [value] : value) {
      if (Number.isFinite(bound)) extent = Math.max(extent, Math.abs(bound));
    }
  }
  const half = extent > 0 ? niceCeiling(extent * 1.1) : fallback;
  return { domain: [-half, half], ticks: [-half, -half / 2, 0, half / 2, half] };
}

/** Where a value sits on the scale, 0 (left edge) to 1 (right edge), clamped. */
export function positionOn(scale: IntervalScale, value: number): number {
  const [low, high] = scale.domain;
  return Math.min(1, Math.max(0, (value - low) / (high - low)));
}
