// The probability distributions the statistics need, from @stdlib's per-distribution packages:
// each is a small, typed, maintained module (Cephes/Boost-derived algorithms), so the app loads
// these seven functions and nothing else. Tail probabilities are computed on the lower tail at
// −|x| where the distribution is symmetric, which keeps small p-values accurate.
import betaCdfStdlib from "@stdlib/stats-base-dists-beta-cdf";
import binomialCdfStdlib from "@stdlib/stats-base-dists-binomial-cdf";
import chiSquareCdfStdlib from "@stdlib/stats-base-dists-chisquare-cdf";
import normalCdfStdlib from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantileStdlib from "@stdlib/stats-base-dists-normal-quantile";
import tCdfStdlib from "@stdlib/stats-base-dists-t-cdf";
import tQuantileStdlib from "@stdlib/stats-base-dists-t-quantile";

/** Standard normal CDF Φ(x). */
export function normalCdf(x: number): number {
  return normalCdfStdlib(x, 0, 1);
}

/** Standard normal quantile Φ⁻¹(p). */
export function normalQuantile(p: number): number {
  return normalQuantileStdlib(p, 0, 1);
}

/** Two-sided p-value of a standard normal statistic: 2 Φ(−|z|). */
export function normalTwoSidedP(z: number): number {
  return Math.min(1, 2 * normalCdf(-Math.abs(z)));
}

/** Two-sided p-value of a Student t statistic with `df` degrees of freedom: 2 F(−|t|). */
export function tTwoSidedP(t: number, df: number): number {
  return Math.min(1, 2 * tCdfStdlib(-Math.abs(t), df));
}

/** Student t quantile. */
export function tQuantile(p: number, df: number): number {
  return tQuantileStdlib(p, df);
}

/** Upper tail P(X ≥ x) of a chi-square with `df` degrees of freedom (1 − CDF: absolute error ~1e-16). */
export function chiSquareUpperTail(x: number, df: number): number {
  return Math.max(0, 1 - chiSquareCdfStdlib(x, df));
}

/** Binomial CDF P(X ≤ k) for X ~ Bin(n, p). */
export function binomialCdf(k: number, n: number, p: number): number {
  return binomialCdfStdlib(k, n, p);
}

/** Beta CDF (regularised incomplete beta). */
export function betaCdf(x: number, alpha: number, beta: number): number {
  return betaCdfStdlib(x, alpha, beta);
}
