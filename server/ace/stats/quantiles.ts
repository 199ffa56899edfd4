// Quantiles for latency and duration charts (p50, p95).
import { requireClosedUnit, requireFinite } from "./validate";

/**
 * Quantiles by linear interpolation between order statistics: Hyndman & Fan (1996) type 7, the
 * default of R's quantile(), NumPy's quantile(method="linear") and PostgreSQL's percentile_cont,
 * so a figure computed here and one computed in SQL agree. For sorted x₀ ≤ … ≤ xₙ₋₁ and level p:
 * h = (n − 1)·p, Q(p) = x⌊h⌋ + (h − ⌊h⌋)·(x⌊h⌋₊₁ − x⌊h⌋). Null for an empty list.
 */
export function quantiles(values: readonly number[], levels: readonly number[]): number[] | null {
  values.forEach((value, i) => requireFinite("quantiles", `values[${i}]`, value));
  levels.forEach((level, i) => requireClosedUnit("quantiles", `levels[${i}]`, level));
  if (values.length === 0) return null;
  return quantilesOfSorted(Float64Array.from(values).sort(), levels);
}

/**
 * `quantiles` of values already sorted ascending (a typed array's sort() is numeric), without
 * checking or copying them: for the metrics' 100,000 durations, which are integers from the
 * database. Null for an empty list.
 */
export function quantilesOfSorted(sorted: ArrayLike<number>, levels: readonly number[]): number[] | null {
  levels.forEach((level, i) => requireClosedUnit("quantiles", `levels[${i}]`, level));
  if (sorted.length === 0) return null;
  const last = sorted.length - 1;
  return levels.map((level) => {
    const h = last * level;
    const below = Math.floor(h);
    const lower = sorted[below] as number;
    if (below >= last) return lower;
    return lower + (h - below) * ((sorted[below + 1] as number) - lower);
  });
}

/** One quantile of a list; see `quantiles`. */
export function quantile(values: readonly number[], level: number): number | null {
  const result = quantiles(values, [level]);
  return result ? (result[0] as number) : null;
}
