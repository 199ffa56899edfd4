// An experiment's results: the rollups of one phase (repository.ts: sums over units per variant,
// version and day, kept by triggers) turned into the figures experimenters know from GrowthBook, by
// the statistics of server/ace/stats. Nothing here reads a trace; every figure is a function of a
// few numbers per variant.
import {
  chanceToBeatControl,
  exactMcNemar,
  holmAdjust,
  minimumDetectableEffect,
  newcombeInterval,
  ratioDifferenceTest,
  sampleRatioMismatch,
  sampleSizePerVariant,
  twoProportionPower,
  twoProportionZTest,
  welchTTest,
  wilsonInterval,
  type RatioSums,
  type SampleSums,
} from "@/server/ace/stats";
import type { DbOrTx } from "@/server/db/client";
import * as repo from "./repository";
import {
  ALPHA,
  POWER,
  type ComparisonResult,
  type ExperimentListItem,
  type ExperimentResults,
  type Guardrail,
  type GuardrailResult,
  type PairedResult,
  type PowerResult,
  type VariantResult,
} from "./schemas";
import { currentPhase, decisionOf, definitionOf, phaseViewOf, targetOf } from "./views";

export const METHODS: Record<string, string> = {
  successRate: "success ÷ (success + failure) over the variant's traces; unknown outcomes are counted but not rated.",
  ci95: "Wilson score interval, 95 %, no continuity correction.",
  analysis:
    "per-trace when every unit has at most one decided trace (the figures are then exact); per-unit otherwise: the rate is a ratio of per-unit sums " +
    "(successes ÷ decided traces) with delta-method variance, as GrowthBook analyses ratio metrics, and ci95, pValue and chanceToBeatControl come from it.",
  difference:
    "variant − control. per-trace: Newcombe's hybrid score interval (method 10, Wilson, no continuity correction) and the pooled two-proportion z-test, " +
    "two-sided. per-unit: Welch's test on the delta-method variances (Welch–Satterthwaite df).",
  adjustedPValue:
    "Holm's step-down adjustment over all comparisons with the control; significant when below 0.05. Intervals are not adjusted.",
  chanceToBeatControl:
    "per-trace: P(variant rate > control rate) for Beta(1 + success, 1 + failure) posteriors, computed exactly. per-unit: Φ(difference ÷ standard error).",
  guardrails:
    "Means per trace (cost, tokens = input + output, duration) compared by Welch's t-test and interval (Welch–Satterthwaite df); a guardrail is flagged " +
    "when the variant is significantly higher (p < 0.05, not adjusted).",
  srm: "Pearson chi-square goodness of fit of the units per variant against the phase's weights (df = variants − 1); flagged when p < 0.001.",
  power:
    "α = 0.05 two-sided, power 0.8; the MDE is an absolute difference in success rate over the control's rate (normal approximation of the pooled z-test).",
  design:
    "Fixed horizon: read the p-values once every variant reaches the planned units; until then the results are early and peeking inflates false positives.",
  paired:
    "Tasks run under both the control and a variant: the first decided trace per task and variant, paired. Exact McNemar test: two-sided binomial test " +
    "on the discordant pairs with p = 0.5. Crossover units are included here.",
  timeline:
    "Cumulative success rate per variant by UTC day of the units' first exposure: each day counts every unit exposed by then, with all its traces.",
  byVersion: "Units split by the playbook version served at their first exposure (the version current at assignment for a latest variant).",
  units:
    "Distinct unit ids exposed to a variant (an assignment, a served context or a trace), counted in the variant of their first exposure. A unit later seen " +
    "in another variant is a crossover: left out of the analysis and counted. A trace without a unitId is a unit of its own.",
  phases: "Each phase has its own seed and weights and is analysed on its own; phases are never pooled.",
};

/** One variant's sums over its units (crossovers apart), added up from its tally rows. */
interface VariantSums {
  units: number;
  crossovers: number;
  withoutUnit: number;
  traces: number;
  success: number;
  failure: number;
  unknown: number;
  multiTraceUnits: number;
  cost: SampleSums;
  tokens: SampleSums;
  duration: SampleSums;
  ratio: RatioSums;
}

function emptySums(): VariantSums {
  return {
    units: 0,
    crossovers: 0,
    withoutUnit: 0,
    traces: 0,
    success: 0,
    failure: 0,
    unknown: 0,
    multiTraceUnits: 0,
    cost: { n: 0, sum: 0, sumSquares: 0 },
    tokens: { n: 0, sum: 0, sumSquares: 0 },
    duration: { n: 0, sum: 0, sumSquares: 0 },
    ratio: { units: 0, numeratorSum: 0, numeratorSumSquares: 0, denominatorSum: 0, denominatorSumSquares: 0, crossProductSum: 0 },
  };
}

function addTally(sums: VariantSums, row: repo.TallyRow): void {
  sums.units += row.units;
  sums.crossovers += row.crossovers;
  sums.withoutUnit += row.withoutUnit;
  sums.traces += row.traces;
  sums.success += row.success;
  sums.failure += row.failure;
  sums.unknown += row.unknown;
  sums.multiTraceUnits += row.multiTraceUnits;
  addSums(sums.cost, row.costN, row.costSum, row.costSq);
  addSums(sums.tokens, row.tokensN, row.tokensSum, row.tokensSq);
  addSums(sums.duration, row.durationN, row.durationSum, row.durationSq);
  const ratio = sums.ratio;
  ratio.units += row.decidedUnits;
  ratio.numeratorSum += row.success;
  ratio.numeratorSumSquares += row.successSq;
  ratio.denominatorSum += row.success + row.failure;
  ratio.denominatorSumSquares += row.decidedSq;
  ratio.crossProductSum += row.successDecided;
}

function addSums(sums: SampleSums, n: number, sum: number, squares: number): void {
  sums.n += n;
  sums.sum += sum;
  // Added and subtracted in place by the triggers, a row's sum of squares can end a hair below 0.
  sums.sumSquares += Math.max(0, squares);
}

const GUARDRAIL_SUMS: Record<Guardrail, "cost" | "tokens" | "duration"> = {
  costUsd: "cost",
  tokens: "tokens",
  durationMs: "duration",
};

function mean(sums: SampleSums): number | null {
  return sums.n === 0 ? null : sums.sum / sums.n;
}

const rateOf = (success: number, failure: number) => (success + failure === 0 ? null : success / (success + failure));
const openUnit = (value: number | null): value is number => value !== null && value > 0 && value < 1;

function powerOf(experiment: repo.ExperimentRow, baseline: number | null, unitsPerVariant: number): PowerResult {
  const mde = experiment.minimumDetectableEffect;
  const valid = openUnit(baseline);
  const mdeFits = valid && mde !== null && baseline + mde <= 1;
  return {
    alpha: ALPHA,
    power: POWER,
    baseline,
    unitsPerVariant,
    plannedUnitsPerVariant: plannedUnits(experiment, baseline),
    minimumDetectableEffect: mde,
    mdeAtCurrentSample: valid ? minimumDetectableEffect({ unitsPerVariant, baseline, alpha: ALPHA, power: POWER }) : null,
    powerAtPlannedMde: mdeFits ? twoProportionPower({ unitsPerVariant, baseline, mde, alpha: ALPHA }) : null,
  };
}

/** The experiment's planned units, or those its MDE needs at the control's observed rate. */
function plannedUnits(experiment: repo.ExperimentRow, baseline: number | null): number | null {
  if (experiment.plannedUnitsPerVariant !== null) return experiment.plannedUnitsPerVariant;
  const mde = experiment.minimumDetectableEffect;
  if (mde === null || !openUnit(baseline) || baseline + mde > 1) return null;
  return sampleSizePerVariant({ baseline, mde, alpha: ALPHA, power: POWER });
}

function guardrailOf(metric: Guardrail, control: SampleSums, variant: SampleSums): GuardrailResult {
  const test = welchTTest({ control, variant });
  const controlMean = mean(control);
  const variantMean = mean(variant);
  return {
    metric,
    control: { n: control.n, mean: controlMean },
    variant: { n: variant.n, mean: variantMean },
    difference: test?.difference ?? (variantMean !== null && controlMean !== null ? variantMean - controlMean : null),
    ci95: test?.ci ?? null,
    pValue: test?.pValue ?? null,
    worse: test !== null && test.pValue < ALPHA && test.difference > 0,
  };
}

function pairedOf(counts: repo.PairedCounts | undefined): PairedResult {
  const cells = counts ?? { tasks: 0, bothSuccess: 0, onlyControl: 0, onlyVariant: 0, bothFail: 0 };
  const { pValue } = exactMcNemar({ onlyControl: cells.onlyControl, onlyVariant: cells.onlyVariant });
  return {
    tasks: cells.tasks,
    bothSuccess: cells.bothSuccess,
    onlyControl: cells.onlyControl,
    onlyVariant: cells.onlyVariant,
    bothFail: cells.bothFail,
    pValue,
  };
}

/** The results of one phase (default: the current or last one). */
export async function computeResults(db: DbOrTx, experiment: repo.ExperimentRow, phaseNumber?: number): Promise<ExperimentResults> {
  const phase = phaseNumber === undefined ? currentPhase(experiment) : (experiment.phases.find((p) => p.number === phaseNumber) ?? null);
  const keys = experiment.variants.map((variant) => variant.key);
  const control = keys[0] ?? "";
  const scope = phase ? { experimentId: experiment.id, phase: phase.number } : null;

  // Two reads of a few rows each (the embedded engine runs one query at a time anyway).
  const rows = scope ? await repo.tallies(db, scope) : [];
  const paired = scope ? await repo.pairedCounts(db, scope) : [];

  const sumsBy = new Map(keys.map((key) => [key, emptySums()]));
  const versionsBy = new Map<string, Map<number | null, { traces: number; success: number; failure: number }>>();
  for (const row of rows) {
    const sums = sumsBy.get(row.variant);
    if (!sums) continue;
    addTally(sums, row);
    const versions = versionsBy.get(row.variant) ?? new Map<number | null, { traces: number; success: number; failure: number }>();
    const version = versions.get(row.playbookVersion) ?? { traces: 0, success: 0, failure: 0 };
    version.traces += row.traces;
    version.success += row.success;
    version.failure += row.failure;
    versions.set(row.playbookVersion, version);
    versionsBy.set(row.variant, versions);
  }
  const pairedBy = new Map(paired.map((row) => [row.variant, row]));
  const weights = phase?.weights ?? experiment.variants.map((variant) => variant.weight);
  const sumsOf = (key: string) => sumsBy.get(key) ?? emptySums();

  const variants: VariantResult[] = experiment.variants.map((variant, index) => {
    const sums = sumsOf(variant.key);
    return {
      key: variant.key,
      name: variant.name,
      weight: weights[index] ?? variant.weight,
      target: targetOf(variant),
      units: sums.units,
      crossovers: sums.crossovers,
      traces: sums.traces,
      success: sums.success,
      failure: sums.failure,
      unknown: sums.unknown,
      successRate: rateOf(sums.success, sums.failure),
      ci95: wilsonInterval(sums.success, sums.success + sums.failure),
      unitsWithSeveralDecidedTraces: sums.multiTraceUnits,
      meanCostUsd: mean(sums.cost),
      meanTokens: mean(sums.tokens),
      meanDurationMs: mean(sums.duration),
      byVersion: [...(versionsBy.get(variant.key) ?? new Map<number | null, { traces: number; success: number; failure: number }>())]
        .filter(([, counts]) => counts.traces > 0)
        .sort(([a], [b]) => (a ?? -1) - (b ?? -1))
        .map(([playbookVersion, counts]) => ({
          playbookVersion,
          traces: counts.traces,
          success: counts.success,
          failure: counts.failure,
          successRate: rateOf(counts.success, counts.failure),
          ci95: wilsonInterval(counts.success, counts.success + counts.failure),
        })),
    };
  });

  const analysis = variants.some((variant) => variant.unitsWithSeveralDecidedTraces > 0) ? "per-unit" : "per-trace";
  const controlResult = variants[0];
  const controlSums = sumsOf(control);
  const guardrails = experiment.guardrails.filter((g): g is Guardrail => g in GUARDRAIL_SUMS);

  const raw = variants.slice(1).map((variant): Omit<ComparisonResult, "adjustedPValue" | "significant"> => {
    const sums = sumsOf(variant.key);
    const groups = {
      control: { successes: controlSums.success, trials: controlSums.success + controlSums.failure },
      variant: { successes: sums.success, trials: sums.success + sums.failure },
    };
    const controlRate = controlResult?.successRate ?? null;
    let absoluteDiff = variant.successRate !== null && controlRate !== null ? variant.successRate - controlRate : null;
    let ci95: [number, number] | null;
    let pValue: number | null;
    let chance: number | null;
    if (analysis === "per-trace") {
      ci95 = newcombeInterval(groups);
      pValue = twoProportionZTest(groups)?.pValue ?? null;
      chance = groups.control.trials > 0 && groups.variant.trials > 0 ? chanceToBeatControl(groups) : null;
    } else {
      const test = ratioDifferenceTest({ control: controlSums.ratio, variant: sums.ratio });
      ci95 = test?.ci ?? null;
      pValue = test?.pValue ?? null;
      chance = test?.chanceToBeatControl ?? null;
      if (test) absoluteDiff = test.difference;
    }
    return {
      variant: variant.key,
      control,
      metric: "successRate",
      absoluteDiff,
      ci95,
      relativeUplift: absoluteDiff !== null && controlRate !== null && controlRate > 0 ? absoluteDiff / controlRate : null,
      pValue,
      chanceToBeatControl: chance,
      guardrails: guardrails.map((metric) => guardrailOf(metric, controlSums[GUARDRAIL_SUMS[metric]], sums[GUARDRAIL_SUMS[metric]])),
      paired: pairedOf(pairedBy.get(variant.key)),
      power: powerOf(experiment, controlRate, Math.min(controlSums.ratio.units, sums.ratio.units)),
    };
  });

  const tested = raw.flatMap((comparison, index) => (comparison.pValue === null ? [] : [{ index, p: comparison.pValue }]));
  const adjusted = holmAdjust(tested.map((entry) => entry.p));
  const adjustedBy = new Map(tested.map((entry, i) => [entry.index, adjusted[i] as number]));
  const comparisons: ComparisonResult[] = raw.map((comparison, index) => {
    const adjustedPValue = adjustedBy.get(index) ?? null;
    return { ...comparison, adjustedPValue, significant: adjustedPValue !== null && adjustedPValue < ALPHA };
  });

  const observed = variants.map((variant) => variant.units);
  const srm =
    keys.length >= 2
      ? sampleRatioMismatch(observed, weights)
      : { chiSquare: 0, degreesOfFreedom: 0, pValue: 1, flagged: false, expected: [] };
  const smallest = variants.length > 0 ? Math.min(...variants.map((variant) => variant.units)) : 0;
  const planned = plannedUnits(experiment, controlResult?.successRate ?? null);

  return {
    experiment: experiment.key,
    name: experiment.name,
    status: experiment.status,
    control,
    phase: phase ? phaseViewOf(phase) : null,
    analysis,
    design: "fixed-horizon",
    early: planned === null || smallest < planned,
    progress: {
      unitsPerVariant: smallest,
      plannedUnitsPerVariant: planned,
      fraction: planned === null ? null : Math.min(1, smallest / planned),
    },
    variants,
    comparisons,
    srm: {
      chiSquare: srm.chiSquare,
      degreesOfFreedom: srm.degreesOfFreedom,
      pValue: srm.pValue,
      flagged: srm.flagged,
      observed,
      expected: srm.expected,
    },
    paired: comparisons.length === 1 ? (comparisons[0] as ComparisonResult).paired : null,
    power: comparisons.length === 1 ? (comparisons[0] as ComparisonResult).power : null,
    crossovers: variants.reduce((sum, variant) => sum + variant.crossovers, 0),
    tracesWithoutUnit: [...sumsBy.values()].reduce((sum, sums) => sum + sums.withoutUnit, 0),
    timeline: timelineOf(keys, rows),
    methods: METHODS,
    computedAt: new Date().toISOString(),
  };
}

/**
 * Cumulative success rate per variant by UTC day of the units' first exposure (GrowthBook's
 * cumulative view): a day's point holds every unit first exposed up to that day, with all its traces.
 */
function timelineOf(keys: readonly string[], rows: readonly repo.TallyRow[]): ExperimentResults["timeline"] {
  const dates = [...new Set(rows.map((row) => row.day))].sort();
  const byDay = new Map<string, { success: number; decided: number }>();
  for (const row of rows) {
    const key = `${row.variant}\u0000${row.day}`;
    const day = byDay.get(key) ?? { success: 0, decided: 0 };
    day.success += row.success;
    day.decided += row.success + row.failure;
    byDay.set(key, day);
  }
  const running = new Map(keys.map((key) => [key, { success: 0, decided: 0 }]));
  return dates.map((date) => ({
    date,
    variants: keys.map((key) => {
      const total = running.get(key) as { success: number; decided: number };
      const today = byDay.get(`${key}\u0000${date}`);
      if (today) {
        total.success += today.success;
        total.decided += today.decided;
      }
      return {
        key,
        success: total.success,
        decided: total.decided,
        successRate: total.decided === 0 ? null : total.success / total.decided,
      };
    }),
  }));
}

/** A row of the experiments list: the leader, whether it is significant, the SRM flag, progress. */
export function listItemOf(experiment: repo.ExperimentRow, results: ExperimentResults | null): ExperimentListItem {
  const definition = definitionOf(experiment);
  let leader: ExperimentListItem["leader"] = null;
  if (results) {
    const rated = results.variants.filter((variant) => variant.successRate !== null);
    const best = rated.reduce<VariantResult | null>(
      (top, variant) => (top === null || (variant.successRate as number) > (top.successRate as number) ? variant : top),
      null,
    );
    if (best) {
      const significant =
        best.key === results.control
          ? results.comparisons.length > 0 && results.comparisons.every((c) => c.significant && (c.absoluteDiff ?? 0) < 0)
          : results.comparisons.some((c) => c.variant === best.key && c.significant && (c.absoluteDiff ?? 0) > 0);
      leader = { variant: best.key, successRate: best.successRate, significant };
    }
  }
  return {
    key: experiment.key,
    name: experiment.name,
    playbook: experiment.playbook.name,
    playbookId: experiment.playbookId,
    status: experiment.status,
    variants: definition.variants.map(({ key, name, weight }) => ({ key, name, weight })),
    phase: currentPhase(experiment)?.number ?? null,
    leader,
    srmFlagged: results?.srm.flagged ?? false,
    early: results?.early ?? true,
    progress: results?.progress.fraction ?? null,
    units: results ? results.variants.reduce((sum, variant) => sum + variant.units, 0) : 0,
    traces: results ? results.variants.reduce((sum, variant) => sum + variant.traces, 0) : 0,
    startedAt: definition.startedAt,
    stoppedAt: definition.stoppedAt,
    decision: decisionOf(experiment),
    updatedAt: definition.updatedAt,
  };
}
