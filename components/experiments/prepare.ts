// The results page's numbers, arranged before a component draws them: one group per metric (the
// success rate first, then the guardrails), one row per variant with its figures, the comparison
// with the control and a verdict, and each group's shared interval scale. Pure, unit-tested.
import type { ComparisonResult, ExperimentResults, Guardrail, GuardrailResult, VariantResult } from "@/server/experiments/schemas";
import { intervalScale, type IntervalScale } from "./interval-scale";
import type { Verdict } from "./labels";

export type MetricKey = "successRate" | Guardrail;

/** Significance level of every figure on the page (the server's ALPHA). */
const ALPHA = 0.05;

export interface MetricMeta {
  label: string;
  /** What the figure is per: shown under the metric's name. */
  unit: string;
  /** Which way is good: a higher success rate, a lower cost. */
  better: "higher" | "lower";
}

export const METRIC_META: Record<MetricKey, MetricMeta> = {
  successRate: { label: "Success rate", unit: "success ÷ decided traces", better: "higher" },
  costUsd: { label: "Cost", unit: "mean USD per trace", better: "lower" },
  tokens: { label: "Tokens", unit: "mean per trace", better: "lower" },
  durationMs: { label: "Duration", unit: "mean per trace", better: "lower" },
};

export interface ResultRow {
  variant: string;
  variantName: string;
  isControl: boolean;
  /** The variant's own figure: its success rate or mean. */
  value: number | null;
  /** Wilson interval of the success rate (guardrails: none). */
  valueInterval: readonly [number, number] | null;
  /** Observations behind the figure: decided traces, or traces with the guardrail's value. */
  n: number;
  units: number;
  /** variant − control; null for the control and without data. */
  difference: number | null;
  ci95: readonly [number, number] | null;
  relativeUplift: number | null;
  pValue: number | null;
  /** Holm-adjusted (success rate only; guardrails are single tests at α). */
  adjustedPValue: number | null;
  chanceToBeatControl: number | null;
  significant: boolean;
  verdict: Verdict;
}

export interface MetricGroup {
  metric: MetricKey;
  meta: MetricMeta;
  primary: boolean;
  rows: ResultRow[];
  /** The shared axis of the group's interval bars. */
  scale: IntervalScale;
}

function verdictOf(significant: boolean, difference: number | null, better: "higher" | "lower"): Verdict {
  if (difference === null) return "none";
  if (!significant || difference === 0) return "inconclusive";
  const up = difference > 0;
  return up === (better === "higher") ? "better" : "worse";
}

function rateRow(variant: VariantResult, control: string, comparison: ComparisonResult | undefined): ResultRow {
  const isControl = variant.key === control;
  const difference = comparison?.absoluteDiff ?? null;
  const significant = comparison?.significant ?? false;
  return {
    variant: variant.key,
    variantName: variant.name,
    isControl,
    value: variant.successRate,
    valueInterval: variant.ci95,
    n: variant.success + variant.failure,
    units: variant.units,
    difference: isControl ? null : difference,
    ci95: isControl ? null : (comparison?.ci95 ?? null),
    relativeUplift: isControl ? null : (comparison?.relativeUplift ?? null),
    pValue: isControl ? null : (comparison?.pValue ?? null),
    adjustedPValue: isControl ? null : (comparison?.adjustedPValue ?? null),
    chanceToBeatControl: isControl ? null : (comparison?.chanceToBeatControl ?? null),
    significant: !isControl && significant,
    verdict: isControl ? "none" : verdictOf(significant, difference, "higher"),
  };
}

function meanOf(metric: Guardrail, variant: VariantResult): number | null {
  return metric === "costUsd" ? variant.meanCostUsd : metric === "tokens" ? variant.meanTokens : variant.meanDurationMs;
}

function guardrailRow(
  metric: Guardrail,
  variant: VariantResult,
  control: VariantResult | undefined,
  isControl: boolean,
  result: GuardrailResult | undefined,
): ResultRow {
  const significant = !isControl && result?.pValue !== null && result?.pValue !== undefined && result.pValue < ALPHA;
  const difference = isControl ? null : (result?.difference ?? null);
  const own = isControl ? result?.control : result?.variant;
  const controlMean = result?.control.mean ?? (control ? meanOf(metric, control) : null);
  return {
    variant: variant.key,
    variantName: variant.name,
    isControl,
    value: own?.mean ?? meanOf(metric, variant),
    valueInterval: null,
    n: own?.n ?? variant.traces,
    units: variant.units,
    difference,
    ci95: isControl ? null : (result?.ci95 ?? null),
    relativeUplift: difference !== null && controlMean !== null && controlMean !== 0 ? difference / controlMean : null,
    pValue: isControl ? null : (result?.pValue ?? null),
    adjustedPValue: null,
    chanceToBeatControl: null,
    significant,
    // The server's `worse` is the guardrail's own verdict; "better" is the mirror case (p < α, lower).
    verdict: isControl ? "none" : result?.worse ? "worse" : verdictOf(significant, difference, "lower"),
  };
}

/** A scale fallback for means without intervals yet: a tenth of the largest mean, or 1. */
function meanFallback(rows: readonly ResultRow[]): number {
  const largest = Math.max(0, ...rows.map((row) => Math.abs(row.value ?? 0)));
  return largest > 0 ? largest / 10 : 1;
}

/**
 * The results table: the success rate (the primary metric) and then each guardrail the
 * comparisons carry, the control first in each group, then the variants in their order.
 */
export function resultGroups(results: Pick<ExperimentResults, "variants" | "comparisons" | "control">): MetricGroup[] {
  const control = results.variants.find((variant) => variant.key === results.control);
  const comparisonOf = new Map(results.comparisons.map((comparison) => [comparison.variant, comparison]));
  const ordered = [...results.variants].sort((a, b) => Number(b.key === results.control) - Number(a.key === results.control));

  const rateRows = ordered.map((variant) => rateRow(variant, results.control, comparisonOf.get(variant.key)));
  const groups: MetricGroup[] = [
    {
      metric: "successRate",
      meta: METRIC_META.successRate,
      primary: true,
      rows: rateRows,
      scale: intervalScale(rateRows.flatMap(intervalAndPoint)),
    },
  ];

  const guardrails = [...new Set(results.comparisons.flatMap((comparison) => comparison.guardrails.map((g) => g.metric)))];
  for (const metric of guardrails) {
    const rows = ordered.map((variant) => {
      const isControl = variant.key === results.control;
      const comparison = isControl ? results.comparisons[0] : comparisonOf.get(variant.key);
      return guardrailRow(
        metric,
        variant,
        control,
        isControl,
        comparison?.guardrails.find((g) => g.metric === metric),
      );
    });
    groups.push({
      metric,
      meta: METRIC_META[metric],
      primary: false,
      rows,
      scale: intervalScale(rows.flatMap(intervalAndPoint), meanFallback(rows)),
    });
  }
  return groups;
}

function intervalAndPoint(row: ResultRow): (readonly [number, number] | number | null)[] {
  return [row.ci95, row.difference];
}

export type Headline =
  | { kind: "winner"; variant: string; difference: number; ci95: readonly [number, number] | null; adjustedPValue: number | null }
  | { kind: "loser"; variant: string; difference: number; ci95: readonly [number, number] | null; adjustedPValue: number | null }
  | { kind: "leading"; variant: string; difference: number }
  | { kind: "no-data" };

function significant(kind: "winner" | "loser", comparison: ComparisonResult & { absoluteDiff: number }): Headline {
  const { variant, absoluteDiff: difference, ci95, adjustedPValue } = comparison;
  return { kind, variant, difference, ci95, adjustedPValue };
}

/**
 * One sentence's worth for the top of the page: the significant winner with the largest gain, else
 * a variant significantly worse than the control, else who leads so far (not significant).
 */
export function headline(results: Pick<ExperimentResults, "comparisons">): Headline {
  const withDiff = results.comparisons.filter((c): c is ComparisonResult & { absoluteDiff: number } => c.absoluteDiff !== null);
  if (withDiff.length === 0) return { kind: "no-data" };
  const byGain = [...withDiff].sort((a, b) => b.absoluteDiff - a.absoluteDiff);
  const winner = byGain.find((c) => c.significant && c.absoluteDiff > 0);
  if (winner) return significant("winner", winner);
  const loser = byGain.findLast((c) => c.significant && c.absoluteDiff < 0);
  if (loser) return significant("loser", loser);
  return { kind: "leading", variant: byGain[0]!.variant, difference: byGain[0]!.absoluteDiff };
}

/** Guardrails significantly worse than the control, per variant: "B: Cost, Duration". */
export function guardrailAlarms(results: Pick<ExperimentResults, "comparisons">): { variant: string; metrics: Guardrail[] }[] {
  return results.comparisons.flatMap((comparison) => {
    const metrics = comparison.guardrails.filter((g) => g.worse).map((g) => g.metric);
    return metrics.length > 0 ? [{ variant: comparison.variant, metrics }] : [];
  });
}

/** The paired (McNemar) panels to show: one per comparison that has at least one paired task. */
export function pairedPanels(
  results: Pick<ExperimentResults, "comparisons">,
): { variant: string; control: string; paired: ComparisonResult["paired"] }[] {
  return results.comparisons.filter((c) => c.paired.tasks > 0).map((c) => ({ variant: c.variant, control: c.control, paired: c.paired }));
}
