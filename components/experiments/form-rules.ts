// The rules the new-experiment form checks while one types: a key from the name, weights entered as
// percentages that must add up to 100 %, the even split, coverage. The server checks them again
// (server/experiments/schemas.ts); these only let the form say what is wrong before sending.
import { EXPERIMENT_KEY_MAX, WEIGHT_SUM_TOLERANCE } from "@/server/experiments/schemas";

/**
 * A key from an experiment's name: lower case ASCII letters and digits joined by single hyphens
 * ("Curated v5 vs. v4 (June)" → "curated-v5-vs-v4-june"). Accents are dropped, not the letter.
 */
export function slugFromName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, EXPERIMENT_KEY_MAX)
    .replace(/-+$/, "");
}

/** A weight typed as a percentage ("50", "33.3", "12,5"); null when it is not a number from 0 to 100. */
export function parsePercent(text: string): number | null {
  const trimmed = text.trim().replace(",", ".").replace(/\s*%$/, "");
  if (!/^\d+(\.\d*)?$|^\.\d+$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return value >= 0 && value <= 100 ? value / 100 : null;
}

/** A share as the form shows it: 0.5 → "50", 1/3 → "33.33". */
export function percentText(share: number): string {
  return String(Math.round(share * 10_000) / 100);
}

/**
 * Equal weights for `count` variants that add up to exactly 1 in four decimals: the last variant
 * takes what rounding left (3 → 0.3333, 0.3333, 0.3334).
 */
export function evenWeights(count: number): number[] {
  if (!Number.isInteger(count) || count < 1) return [];
  const each = Math.floor(10_000 / count) / 10_000;
  const weights = Array.from({ length: count }, () => each);
  weights[count - 1] = Math.round((1 - each * (count - 1)) * 10_000) / 10_000;
  return weights;
}

export type WeightCheck =
  | { ok: true; total: number }
  | { ok: false; total: number | null; message: string; /** Indexes of the fields to mark. */ invalid: number[] };

/** Whether the weights typed into the form (percentages) are valid, and the total so far. */
export function checkWeights(texts: readonly string[]): WeightCheck {
  const parsed = texts.map(parsePercent);
  const invalid = parsed.flatMap((value, index) => (value === null ? [index] : []));
  if (invalid.length > 0) {
    return { ok: false, total: null, invalid, message: `Enter each weight as a percentage from 0 to 100 (${describeIndexes(invalid)}).` };
  }
  const total = (parsed as number[]).reduce((sum, value) => sum + value, 0);
  if (Math.abs(total - 1) > WEIGHT_SUM_TOLERANCE) {
    const off = total - 1;
    return {
      ok: false,
      total,
      invalid: [],
      message: `The weights add up to ${percentText(total)} %; they must add up to 100 % (${off > 0 ? "remove" : "add"} ${percentText(Math.abs(off))} points, or split evenly).`,
    };
  }
  if (parsed.some((value) => value === 0)) {
    const zero = parsed.flatMap((value, index) => (value === 0 ? [index] : []));
    return {
      ok: false,
      total,
      invalid: zero,
      message: `A variant with weight 0 % would never be served: give ${describeIndexes(zero)} a share, or remove it.`,
    };
  }
  return { ok: true, total };
}

function describeIndexes(indexes: readonly number[]): string {
  const names = indexes.map((index) => `variant ${index + 1}`);
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** Coverage typed as a percentage: the share of units that enter the experiment at all. */
export function checkCoverage(text: string): { ok: true; coverage: number } | { ok: false; message: string } {
  const coverage = parsePercent(text);
  if (coverage === null || coverage === 0)
    return { ok: false, message: "Coverage is the share of units in the experiment: a percentage above 0 and at most 100." };
  return { ok: true, coverage };
}

/** Variant keys in order: A, B, C … (the first is the control). */
export function variantKeyAt(index: number): string {
  return String.fromCharCode(65 + index);
}

/** The first key not used yet, for a variant being added. */
export function nextVariantKey(used: readonly string[]): string {
  for (let index = 0; index < 26; index++) {
    const key = variantKeyAt(index);
    if (!used.includes(key)) return key;
  }
  return `V${used.length + 1}`;
}

/** Keys used twice (after trimming, as the server compares them), for the form to mark. */
export function duplicateKeys(keys: readonly string[]): Set<string> {
  const seen = new Map<string, number>();
  for (const key of keys.map((k) => k.trim())) seen.set(key, (seen.get(key) ?? 0) + 1);
  return new Set([...seen].filter(([key, count]) => key !== "" && count > 1).map(([key]) => key));
}
