// Means per trace (cost, tokens, duration): Welch's t-test from sufficient statistics. The SQL
// returns n, Σx and Σx² per variant, as GrowthBook's engine (gbstats) works, so no raw rows are
// needed to test a difference.
import type { Comparison } from "./proportions";
import { tQuantile, tTwoSidedP } from "./distributions";
import { requireCondition, requireCount, requireFinite, requireOpenUnit } from "./validate";

/** Sufficient statistics of one variant's values: count, Σx and Σx². */
export interface SampleSums {
  n: number;
  sum: number;
  sumSquares: number;
}

export interface MeanSummary {
  n: number;
  /** Σx / n; null when n = 0. */
  mean: number | null;
  /** Sample variance (Σx² − (Σx)²/n) / (n − 1), at least 0; null when n < 2. */
  variance: number | null;
}

/** A difference variant − control with its test and interval. */
export interface DifferenceTest {
  difference: number;
  standardError: number;
  t: number;
  /** Welch–Satterthwaite degrees of freedom. */
  degreesOfFreedom: number;
  /** Two-sided p-value from Student's t with `degreesOfFreedom`. */
  pValue: number;
  /** difference ± t(1 − α/2, df) · standardError, at the confidence level asked for. */
  ci: [number, number];
}

/** Mean and variance of one variant from its sums. */
export function summarizeSample(sums: SampleSums): MeanSummary {
  requireCount("summarizeSample", "n", sums.n);
  requireFinite("summarizeSample", "sum", sums.sum);
  requireFinite("summarizeSample", "sumSquares", sums.sumSquares);
  requireCondition("summarizeSample", sums.sumSquares >= 0, `sumSquares must be ≥ 0, got ${sums.sumSquares}`);
  const { n, sum, sumSquares } = sums;
  if (n === 0) return { n, mean: null, variance: null };
  // Σx² − (Σx)²/n can come out a hair below 0 by cancellation when every value is equal.
  const variance = n < 2 ? null : Math.max(0, (sumSquares - (sum * sum) / n) / (n - 1));
  return { n, mean: sum / n, variance };
}

/** One side of a Welch comparison: the estimate, the variance of one unit's value, and n. */
export interface WelchArm {
  estimate: number;
  /** Variance of a single observation; the estimate's variance is this ÷ n. */
  variance: number;
  n: number;
}

/**
 * Welch's unequal-variance comparison of two estimates (shared by means and ratio metrics):
 * se² = s₁²/n₁ + s₂²/n₂, t = (x̄₁ − x̄₂)/se, df = se⁴ / ((s₁²/n₁)²/(n₁ − 1) + (s₂²/n₂)²/(n₂ − 1)).
 * Null when se = 0 (no variation in either variant: nothing to test).
 */
export function welchComparison(arms: Comparison<WelchArm>, confidenceLevel: number): DifferenceTest | null {
  const a = arms.variant.variance / arms.variant.n;
  const b = arms.control.variance / arms.control.n;
  const se2 = a + b;
  if (!(se2 > 0)) return null;
  const standardError = Math.sqrt(se2);
  const degreesOfFreedom = (se2 * se2) / ((a * a) / (arms.variant.n - 1) + (b * b) / (arms.control.n - 1));
  const difference = arms.variant.estimate - arms.control.estimate;
  const t = difference / standardError;
  const half = tQuantile(1 - (1 - confidenceLevel) / 2, degreesOfFreedom) * standardError;
  return {
    difference,
    standardError,
    t,
    degreesOfFreedom,
    pValue: tTwoSidedP(t, degreesOfFreedom),
    ci: [difference - half, difference + half],
  };
}

/**
 * Welch's t-test of the difference of means, variant − control, from each variant's n, Σx, Σx².
 * Null when either variant has fewer than 2 values (no variance) or neither varies at all.
 * Matches SciPy's `ttest_ind(variant, control, equal_var=False)` and its `confidence_interval()`.
 */
export function welchTTest(groups: Comparison<SampleSums>, confidenceLevel = 0.95): DifferenceTest | null {
  requireOpenUnit("welchTTest", "confidenceLevel", confidenceLevel);
  const variant = summarizeSample(groups.variant);
  const control = summarizeSample(groups.control);
  if (variant.mean === null || variant.variance === null || control.mean === null || control.variance === null) return null;
  return welchComparison(
    {
      variant: { estimate: variant.mean, variance: variant.variance, n: variant.n },
      control: { estimate: control.mean, variance: control.variance, n: control.n },
    },
    confidenceLevel,
  );
}
