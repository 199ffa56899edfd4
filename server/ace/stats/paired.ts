// Paired evaluation: the same task run under the control and under a variant. Only the discordant
// pairs carry information about which is better.
import { binomialCdf } from "./distributions";
import { requireCount } from "./validate";

export interface DiscordantPairs {
  /** Tasks the control succeeded on and the variant failed. */
  onlyControl: number;
  /** Tasks the variant succeeded on and the control failed. */
  onlyVariant: number;
}

export interface McNemarResult {
  discordant: number;
  /** Null when no pair is discordant: the test has nothing to compare. */
  pValue: number | null;
}

/**
 * Exact McNemar test: under no difference each discordant pair is equally likely to go either way,
 * so the count `onlyVariant` of the b + c discordant pairs is Bin(b + c, ½). Two-sided p =
 * min(1, 2·P(X ≤ min(b, c))), which for p = ½ equals scipy.stats.binomtest(c, b + c, 0.5).pvalue.
 */
export function exactMcNemar(pairs: DiscordantPairs): McNemarResult {
  requireCount("exactMcNemar", "onlyControl", pairs.onlyControl);
  requireCount("exactMcNemar", "onlyVariant", pairs.onlyVariant);
  const discordant = pairs.onlyControl + pairs.onlyVariant;
  if (discordant === 0) return { discordant, pValue: null };
  const smaller = Math.min(pairs.onlyControl, pairs.onlyVariant);
  return { discordant, pValue: Math.min(1, 2 * binomialCdf(smaller, discordant, 0.5)) };
}
