// Success rate per unit when units have several traces. The traces of one unit are not
// independent, so the rate Σ successes ÷ Σ decided traces is analysed as a ratio of per-unit sums
// with delta-method variance (Deng, Knoblich & Lu, "Applying the Delta Method in Metric
// Analytics", KDD 2018), as GrowthBook's engine does for ratio metrics.
import type { Comparison } from "./proportions";
import { normalCdf, tQuantile } from "./distributions";
import { welchComparison, type DifferenceTest } from "./means";
import { requireCondition, requireCount, requireFinite, requireOpenUnit } from "./validate";

/**
 * Per-variant sums over units, for numerator x (a unit's successes) and denominator y (its decided
 * traces): Σx, Σx², Σy, Σy², Σxy and the number of units.
 */
export interface RatioSums {
  units: number;
  numeratorSum: number;
  numeratorSumSquares: number;
  denominatorSum: number;
  denominatorSumSquares: number;
  crossProductSum: number;
}

export interface RatioEstimate {
  units: number;
  /** Σx ÷ Σy. */
  rate: number;
  /** Delta-method variance of `rate` (the per-unit variance ÷ units); null with fewer than 2 units. */
  variance: number | null;
  standardError: number | null;
  /** rate ± t(1 − α/2, units − 1) · standardError, not clipped to [0, 1]; null with fewer than 2 units. */
  ci: [number, number] | null;
}

export interface RatioDifferenceTest extends DifferenceTest {
  /**
   * P(variant's rate > control's) under a normal approximation of the difference with a flat
   * prior, Φ(difference / standardError), as GrowthBook's Bayesian engine does for ratio metrics.
   */
  chanceToBeatControl: number;
}

const FN = "ratioMetric";

function validate(fn: string, name: string, sums: RatioSums): void {
  requireCount(fn, `${name}.units`, sums.units);
  for (const key of ["numeratorSum", "numeratorSumSquares", "denominatorSum", "denominatorSumSquares", "crossProductSum"] as const) {
    requireFinite(fn, `${name}.${key}`, sums[key]);
  }
  requireCondition(fn, sums.numeratorSumSquares >= 0 && sums.denominatorSumSquares >= 0, `${name}: sums of squares must be ≥ 0`);
}

/** The per-unit variance V = var(x)/ȳ² − 2x̄·cov(x, y)/ȳ³ + x̄²·var(y)/ȳ⁴ (sample moments, n − 1). */
function perUnitVariance(sums: RatioSums): number {
  const n = sums.units;
  const meanX = sums.numeratorSum / n;
  const meanY = sums.denominatorSum / n;
  const varX = (sums.numeratorSumSquares - (sums.numeratorSum * sums.numeratorSum) / n) / (n - 1);
  const varY = (sums.denominatorSumSquares - (sums.denominatorSum * sums.denominatorSum) / n) / (n - 1);
  const cov = (sums.crossProductSum - (sums.numeratorSum * sums.denominatorSum) / n) / (n - 1);
  const v = varX / meanY ** 2 - (2 * meanX * cov) / meanY ** 3 + (meanX ** 2 * varY) / meanY ** 4;
  // V = var(x − r·y)/ȳ² ≥ 0; rounding can leave a hair below 0 when no unit differs.
  return Math.max(0, v);
}

/** The rate of one variant with its delta-method variance. Null with no units or no decided trace. */
export function ratioMetric(sums: RatioSums, confidenceLevel = 0.95): RatioEstimate | null {
  validate(FN, "sums", sums);
  requireOpenUnit(FN, "confidenceLevel", confidenceLevel);
  if (sums.units === 0 || sums.denominatorSum === 0) return null;
  const rate = sums.numeratorSum / sums.denominatorSum;
  if (sums.units < 2) return { units: sums.units, rate, variance: null, standardError: null, ci: null };
  const variance = perUnitVariance(sums) / sums.units;
  const standardError = Math.sqrt(variance);
  const half = tQuantile(1 - (1 - confidenceLevel) / 2, sums.units - 1) * standardError;
  return { units: sums.units, rate, variance, standardError, ci: [rate - half, rate + half] };
}

/**
 * Difference of two ratio metrics, variant − control: Welch's t on the delta-method variances with
 * Welch–Satterthwaite df, as gbstats tests ratio metrics. Null when either variant has fewer than 2
 * units or no decided trace, or when neither varies.
 */
export function ratioDifferenceTest(groups: Comparison<RatioSums>, confidenceLevel = 0.95): RatioDifferenceTest | null {
  const fn = "ratioDifferenceTest";
  validate(fn, "variant", groups.variant);
  validate(fn, "control", groups.control);
  requireOpenUnit(fn, "confidenceLevel", confidenceLevel);
  const arms = [groups.variant, groups.control];
  if (arms.some((sums) => sums.units < 2 || sums.denominatorSum === 0)) return null;
  const test = welchComparison(
    {
      variant: {
        estimate: groups.variant.numeratorSum / groups.variant.denominatorSum,
        variance: perUnitVariance(groups.variant),
        n: groups.variant.units,
      },
      control: {
        estimate: groups.control.numeratorSum / groups.control.denominatorSum,
        variance: perUnitVariance(groups.control),
        n: groups.control.units,
      },
    },
    confidenceLevel,
  );
  if (!test) return null;
  return { ...test, chanceToBeatControl: normalCdf(test.difference / test.standardError) };
}
