// Chance to beat control: the posterior probability that the variant's success rate is higher,
// with a uniform prior on each rate.
import type { Comparison, ProportionCounts } from "./proportions";
import { requireProportionCounts } from "./validate";

/**
 * P(p_variant > p_control) for p ~ Beta(1 + successes, 1 + failures), computed exactly (no
 * sampling, no normal approximation) by the closed form for integer parameters (J. D. Cook, "Exact
 * calculation of beta inequalities", 2005; E. Miller, "Formulas for Bayesian A/B testing", 2015):
 *
 *   P = Σ_{i=0}^{a_B−1} B(a_A + i, b_A + b_B) / ((b_B + i) · B(1 + i, b_B) · B(a_A, b_A))
 *
 * with A the control and B the variant. The terms are built in log space from the first one,
 * ln B(a_A, b_A + b_B) − ln B(a_A, b_A) = −Σ_{j<b_B} ln(1 + a_A/(b_A + j)), and the ratio of
 * consecutive terms, (a_A + i)(b_B + i) / ((a_A + b_A + b_B + i)(1 + i)), then summed with a
 * running maximum so nothing underflows. Cost: O(variant trials). Relative error ~1e-12 at
 * 50,000 trials (checked against a 60-digit evaluation of the same sum and SciPy's integral).
 * A group with no trials has the uniform posterior.
 */
export function chanceToBeatControl(groups: Comparison<ProportionCounts>): number {
  requireProportionCounts("chanceToBeatControl", "variant", groups.variant);
  requireProportionCounts("chanceToBeatControl", "control", groups.control);
  const aA = 1 + groups.control.successes;
  const bA = 1 + groups.control.trials - groups.control.successes;
  const aB = 1 + groups.variant.successes;
  const bB = 1 + groups.variant.trials - groups.variant.successes;

  let logTerm = 0;
  for (let j = 0; j < bB; j++) logTerm -= Math.log1p(aA / (bA + j));

  // Σ exp(logTerm_i) = exp(max) · scaled, updated as each term arrives.
  let max = logTerm;
  let scaled = 1;
  for (let i = 0; i < aB - 1; i++) {
    logTerm += Math.log(((aA + i) / (aA + bA + bB + i)) * ((bB + i) / (1 + i)));
    if (logTerm > max) {
      scaled = scaled * Math.exp(max - logTerm) + 1;
      max = logTerm;
    } else {
      scaled += Math.exp(logTerm - max);
    }
  }
  return Math.min(1, Math.max(0, Math.exp(max + Math.log(scaled))));
}
