// Success rates: the Wilson score interval of one rate, Newcombe's interval for the difference of
// two rates, and the pooled two-proportion z-test. Comparisons are always variant − control.
import { normalTwoSidedP } from "./distributions";
import { requireCondition, requireProportionCounts } from "./validate";

/** z of a two-sided 95 % interval, Φ⁻¹(0.975), to the precision SciPy prints it. */
export const Z_95 = 1.959963984540054;

/** The decided outcomes of one group: `successes` of `trials` (success + failure; unknown excluded). */
export interface ProportionCounts {
  successes: number;
  trials: number;
}

/** Control and variant of one comparison, whatever the measure. */
export interface Comparison<T> {
  control: T;
  variant: T;
}

function requireZ(fn: string, z: number): void {
  requireCondition(fn, Number.isFinite(z) && z > 0, `z must be a finite number > 0, got ${z}`);
}

/**
 * Wilson score interval (Wilson 1927) for `successes` of `trials`, without continuity correction:
 * centre (p̂ + z²/2n) / (1 + z²/n), half-width z/(1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²).
 * Null when trials = 0 (no rate to bound). The bounds are exactly 0 with 0 successes and exactly 1
 * when every trial succeeded, as SciPy's `binomtest(k, n).proportion_ci(method="wilson")` gives.
 */
export function wilsonInterval(successes: number, trials: number, z = Z_95): [number, number] | null {
  requireProportionCounts("wilsonInterval", "counts", { successes, trials });
  requireZ("wilsonInterval", z);
  if (trials === 0) return null;
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  const lower = successes === 0 ? 0 : Math.max(0, centre - half);
  const upper = successes === trials ? 1 : Math.min(1, centre + half);
  return [lower, upper];
}

/**
 * Interval for the difference of two independent rates, variant − control, by Newcombe's hybrid
 * score method (Newcombe 1998, Statistics in Medicine 17:873–890, method 10; no continuity
 * correction). With Wilson intervals (l₁, u₁) of the variant and (l₂, u₂) of the control and
 * D = p₁ − p₂: L = D − √((p₁ − l₁)² + (u₂ − p₂)²), U = D + √((u₁ − p₁)² + (p₂ − l₂)²).
 * Null when either group has no trials.
 */
export function newcombeInterval(groups: Comparison<ProportionCounts>, z = Z_95): [number, number] | null {
  requireProportionCounts("newcombeInterval", "variant", groups.variant);
  requireProportionCounts("newcombeInterval", "control", groups.control);
  requireZ("newcombeInterval", z);
  const variant = wilsonInterval(groups.variant.successes, groups.variant.trials, z);
  const control = wilsonInterval(groups.control.successes, groups.control.trials, z);
  if (!variant || !control) return null;
  const p1 = groups.variant.successes / groups.variant.trials;
  const p2 = groups.control.successes / groups.control.trials;
  const [l1, u1] = variant;
  const [l2, u2] = control;
  const difference = p1 - p2;
  return [difference - Math.hypot(p1 - l1, u2 - p2), difference + Math.hypot(u1 - p1, p2 - l2)];
}

export interface ZTestResult {
  /** (p₁ − p₂) / √(p̄(1 − p̄)(1/n₁ + 1/n₂)), variant − control; p̄ the pooled rate. */
  z: number;
  /** Two-sided: 2Φ(−|z|). Equal to Pearson's chi-square test of the 2×2 table without correction. */
  pValue: number;
}

/**
 * Pooled two-proportion z-test, two-sided. Null when either group has no trials. When the pooled
 * rate is 0 or 1 (every trial in both groups failed, or every one succeeded) the rates are equal
 * and the data hold no evidence of a difference: z = 0 and p = 1, the p Fisher's exact test gives
 * for such a table (the z formula itself is 0/0 there).
 */
export function twoProportionZTest(groups: Comparison<ProportionCounts>): ZTestResult | null {
  requireProportionCounts("twoProportionZTest", "variant", groups.variant);
  requireProportionCounts("twoProportionZTest", "control", groups.control);
  const { variant, control } = groups;
  if (variant.trials === 0 || control.trials === 0) return null;
  const pooled = (variant.successes + control.successes) / (variant.trials + control.trials);
  if (pooled === 0 || pooled === 1) return { z: 0, pValue: 1 };
  const standardError = Math.sqrt(pooled * (1 - pooled) * (1 / variant.trials + 1 / control.trials));
  const z = (variant.successes / variant.trials - control.successes / control.trials) / standardError;
  return { z, pValue: normalTwoSidedP(z) };
}
