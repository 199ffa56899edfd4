// How numbers read everywhere in the UI: counts with separators, counted nouns, tokens, dollars,
// durations, shares. Always en-US, so the server's HTML and the browser's render spell a number the
// same way (a locale difference, 10.000 for 10,000, would break hydration).

import { formatNumber } from "@/server/ace/text/format";

// The counts and their nouns are the server's (server/ace/text/format.ts, pure): one wording for both.
export { countsInWords, formatBytes, formatNumber, plural, pluralWord } from "@/server/ace/text/format";

export function formatTokens(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : formatNumber(value);
}

const DOLLARS = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** $0.0042 below a dollar (one run costs fractions of a cent), $12.40 above; null: not priced. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "—";
  if (usd === 0) return "$0";
  if (usd < 0.0001) return "< $0.0001";
  if (usd < 1) return `$${usd.toFixed(4)}`;
  return DOLLARS.format(usd);
}

/** "840 ms", "3.2 s", "42 s", "2 min 5 s", "1 h 4 min". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1_000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    const rest = Math.round(seconds - minutes * 60);
    return rest > 0 ? `${minutes} min ${rest} s` : `${minutes} min`;
  }
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes - hours * 60} min`;
}

/** Input and output tokens as one figure for a table cell, with the split for its tooltip. */
export function tokenSummary(input: number | null, output: number | null): { total: string; detail: string } {
  if (input === null && output === null) return { total: "—", detail: "No token usage reported" };
  const total = (input ?? 0) + (output ?? 0);
  return { total: formatNumber(total), detail: `${formatTokens(input)} in · ${formatTokens(output)} out` };
}

/** The first 8 characters of a UUID: enough to tell runs and deltas apart on one screen. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** A model's confidence in an operation, 0 to 1, to two decimals; null: it gave none. */
export function formatConfidence(confidence: number | null): string {
  return confidence === null ? "—" : confidence.toFixed(2);
}

export function formatPercent(share: number): string {
  return `${Math.round(share * 100)} %`;
}

/** "78.9 %"; null: "—". */
export function formatRate(share: number | null | undefined): string {
  return share === null || share === undefined ? "—" : `${(share * 100).toFixed(1)} %`;
}

/** A change of rate in percentage points: "+4.2 pp", "−3.0 pp". */
export function formatRateChange(change: number | null | undefined): string {
  if (change === null || change === undefined) return "—";
  const points = (change * 100).toFixed(1);
  if (points === "0.0" || points === "-0.0") return "±0.0 pp";
  return change > 0 ? `+${points} pp` : `−${points.slice(1)} pp`;
}
