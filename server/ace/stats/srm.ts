// Sample-ratio mismatch: do the units exposed per variant fit the configured weights? A mismatch
// means assignment or logging is broken and no other figure of the experiment can be trusted.
import { chiSquareUpperTail } from "./distributions";
import { requireCondition, requireCount, requirePositive } from "./validate";

/** GrowthBook's documented default: flag when the SRM p-value is below 0.001. */
export const SRM_P_THRESHOLD = 0.001;

export interface SrmResult {
  /** Pearson's Σ (observed − expected)² / expected. */
  chiSquare: number;
  /** Number of variants − 1. */
  degreesOfFreedom: number;
  pValue: number;
  /** pValue < threshold. */
  flagged: boolean;
  /** Units expected per variant: total × weight ÷ Σ weights. */
  expected: number[];
}

/**
 * Chi-square goodness of fit of the observed units per variant against the weights (df = k − 1),
 * as scipy.stats.chisquare(observed, expected). Weights are relative (they are divided by their
 * sum). With no units at all there is nothing to mismatch: chi-square 0 and p = 1, as GrowthBook's
 * `check_srm` answers.
 */
export function sampleRatioMismatch(observed: readonly number[], weights: readonly number[], threshold = SRM_P_THRESHOLD): SrmResult {
  const fn = "sampleRatioMismatch";
  requireCondition(fn, observed.length >= 2, `needs at least 2 variants, got ${observed.length}`);
  requireCondition(fn, observed.length === weights.length, `observed has ${observed.length} variants but weights has ${weights.length}`);
  observed.forEach((count, i) => requireCount(fn, `observed[${i}]`, count));
  weights.forEach((weight, i) => requirePositive(fn, `weights[${i}]`, weight));
  requireCondition(fn, threshold > 0 && threshold < 1, `threshold must be between 0 and 1, got ${threshold}`);
  const total = observed.reduce((sum, count) => sum + count, 0);
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
  const expected = weights.map((weight) => (total * weight) / weightSum);
  const degreesOfFreedom = observed.length - 1;
  if (total === 0) return { chiSquare: 0, degreesOfFreedom, pValue: 1, flagged: false, expected };
  const chiSquare = observed.reduce((sum, count, i) => {
    const e = expected[i] as number;
    return sum + ((count - e) * (count - e)) / e;
  }, 0);
  const pValue = chiSquareUpperTail(chiSquare, degreesOfFreedom);
  return { chiSquare, degreesOfFreedom, pValue, flagged: pValue < threshold, expected };
}
