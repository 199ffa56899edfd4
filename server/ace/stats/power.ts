// Planning a success-rate experiment: units per variant needed to detect a change, and the change
// detectable with the units there are. Normal approximation for the pooled two-proportion z-test,
// two-sided, no continuity correction (Fleiss, Levin & Paik, Statistical Methods for Rates and
// Proportions, 3rd ed., 2003, §4.2; the equation R's power.prop.test solves with strict = FALSE):
//
//   n = (z₁₋α/₂·√(2p̄(1 − p̄)) + z₁₋β·√(p₁(1 − p₁) + p₂(1 − p₂)))² / (p₂ − p₁)²,   p̄ = (p₁ + p₂)/2
//
// with p₁ the baseline and p₂ = p₁ + MDE (an absolute increase of the success rate).
import { normalCdf, normalQuantile } from "./distributions";
import { requireCondition, requireCount, requireOpenUnit } from "./validate";

export interface PowerSettings {
  /** Two-sided significance level; default 0.05. */
  alpha?: number;
  /** Probability of detecting the effect when it is there; default 0.8. */
  power?: number;
}

function units(baseline: number, mde: number, zAlpha: number, zPower: number): number {
  const p2 = baseline + mde;
  const pBar = (baseline + p2) / 2;
  const root = zAlpha * Math.sqrt(2 * pBar * (1 - pBar)) + zPower * Math.sqrt(baseline * (1 - baseline) + p2 * (1 - p2));
  return (root * root) / (mde * mde);
}

function settings(fn: string, options: PowerSettings): { zAlpha: number; zPower: number } {
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  requireOpenUnit(fn, "alpha", alpha);
  requireOpenUnit(fn, "power", power);
  return { zAlpha: normalQuantile(1 - alpha / 2), zPower: normalQuantile(power) };
}

function requireEffect(fn: string, baseline: number, mde: number): void {
  requireOpenUnit(fn, "baseline", baseline);
  requireCondition(fn, Number.isFinite(mde) && mde > 0, `mde must be an absolute increase > 0, got ${mde}`);
  requireCondition(fn, baseline + mde <= 1, `baseline + mde must be at most 1, got ${baseline} + ${mde}`);
}

/** Units needed in each variant (rounded up) to detect an absolute increase `mde` over `baseline`. */
export function sampleSizePerVariant(input: { baseline: number; mde: number } & PowerSettings): number {
  const fn = "sampleSizePerVariant";
  requireEffect(fn, input.baseline, input.mde);
  const { zAlpha, zPower } = settings(fn, input);
  return Math.ceil(units(input.baseline, input.mde, zAlpha, zPower));
}

/**
 * The smallest absolute increase over `baseline` that `unitsPerVariant` units per variant detect
 * with the given power: the root of n(mde) = unitsPerVariant, found by bisection (n falls as the
 * MDE grows). Null when not even a rise to a success rate of 1 is detectable with these units
 * ("this cannot be detected yet").
 */
export function minimumDetectableEffect(input: { unitsPerVariant: number; baseline: number } & PowerSettings): number | null {
  const fn = "minimumDetectableEffect";
  requireCount(fn, "unitsPerVariant", input.unitsPerVariant);
  requireOpenUnit(fn, "baseline", input.baseline);
  const { zAlpha, zPower } = settings(fn, input);
  const n = input.unitsPerVariant;
  let high = 1 - input.baseline;
  if (n === 0 || units(input.baseline, high, zAlpha, zPower) > n) return null;
  let low = 0;
  for (let step = 0; step < 200 && high - low > 1e-15; step++) {
    const mid = (low + high) / 2;
    if (units(input.baseline, mid, zAlpha, zPower) > n) low = mid;
    else high = mid;
  }
  return high;
}

/**
 * Power of the two-sided test with `unitsPerVariant` per variant against an absolute increase
 * `mde`: Φ((√n·mde − z₁₋α/₂·√(2p̄(1 − p̄))) / √(p₁(1 − p₁) + p₂(1 − p₂))), ignoring the negligible
 * chance of rejecting in the wrong direction (R's power.prop.test with strict = FALSE).
 */
export function twoProportionPower(input: { unitsPerVariant: number; baseline: number; mde: number; alpha?: number }): number {
  const fn = "twoProportionPower";
  requireCount(fn, "unitsPerVariant", input.unitsPerVariant);
  requireEffect(fn, input.baseline, input.mde);
  const alpha = input.alpha ?? 0.05;
  requireOpenUnit(fn, "alpha", alpha);
  const { baseline, mde } = input;
  const p2 = baseline + mde;
  const pBar = (baseline + p2) / 2;
  const zAlpha = normalQuantile(1 - alpha / 2);
  const spread = Math.sqrt(baseline * (1 - baseline) + p2 * (1 - p2));
  // p₂ = 1 with p₁ → 1 leaves no spread; only happens for baseline + mde = 1 with tiny mde.
  if (spread === 0) return 1;
  return normalCdf((Math.sqrt(input.unitsPerVariant) * mde - zAlpha * Math.sqrt(2 * pBar * (1 - pBar))) / spread);
}
