import { describe, expect, it } from "vitest";
import type { ComparisonResult, GuardrailResult, VariantResult } from "@/server/experiments/schemas";
import { formatChance, formatDifference, formatDifferenceInterval, formatMetric, formatPValue, formatTick, formatUplift } from "./format";
import { guardrailAlarms, headline, pairedPanels, resultGroups } from "./prepare";

function variant(key: string, success: number, failure: number, extra: Partial<VariantResult> = {}): VariantResult {
  const decided = success + failure;
  return {
    key,
    name: `Variant ${key}`,
    weight: 0.5,
    target: { kind: "latest" },
    units: decided,
    crossovers: 0,
    traces: decided,
    success,
    failure,
    unknown: 0,
    successRate: decided === 0 ? null : success / decided,
    ci95: decided === 0 ? null : [Math.max(0, success / decided - 0.05), Math.min(1, success / decided + 0.05)],
    unitsWithSeveralDecidedTraces: 0,
    meanCostUsd: 0.01,
    meanTokens: 1_000,
    meanDurationMs: 5_000,
    byVersion: [],
    ...extra,
  };
}

const NO_PAIRS = { tasks: 0, bothSuccess: 0, onlyControl: 0, onlyVariant: 0, bothFail: 0, pValue: null };
const POWER = {
  alpha: 0.05,
  power: 0.8,
  baseline: 0.4,
  unitsPerVariant: 100,
  plannedUnitsPerVariant: null,
  minimumDetectableEffect: null,
  mdeAtCurrentSample: null,
  powerAtPlannedMde: null,
};

function guardrail(
  metric: GuardrailResult["metric"],
  difference: number | null,
  pValue: number | null,
  extra: Partial<GuardrailResult> = {},
): GuardrailResult {
  return {
    metric,
    control: { n: 100, mean: 10 },
    variant: { n: 90, mean: difference === null ? null : 10 + difference },
    difference,
    ci95: difference === null ? null : [difference - 1, difference + 1],
    pValue,
    worse: pValue !== null && pValue < 0.05 && difference !== null && difference > 0,
    ...extra,
  };
}

function comparison(variantKey: string, diff: number | null, extra: Partial<ComparisonResult> = {}): ComparisonResult {
  return {
    variant: variantKey,
    control: "A",
    metric: "successRate",
    absoluteDiff: diff,
    ci95: diff === null ? null : [diff - 0.02, diff + 0.02],
    relativeUplift: diff === null ? null : diff / 0.4,
    pValue: 0.01,
    adjustedPValue: 0.02,
    significant: true,
    chanceToBeatControl: 0.99,
    guardrails: [],
    paired: NO_PAIRS,
    power: POWER,
    ...extra,
  };
}

describe("resultGroups", () => {
  it("puts the success rate first with the control's row first, whatever order the variants come in", () => {
    const groups = resultGroups({
      control: "A",
      variants: [variant("B", 50, 50), variant("A", 40, 60)],
      comparisons: [comparison("B", 0.1)],
    });
    expect(groups.map((group) => group.metric)).toEqual(["successRate"]);
    const [control, b] = groups[0]!.rows;
    expect(control).toMatchObject({
      variant: "A",
      isControl: true,
      value: 0.4,
      n: 100,
      difference: null,
      ci95: null,
      verdict: "none",
      significant: false,
    });
    expect(b).toMatchObject({
      variant: "B",
      isControl: false,
      value: 0.5,
      difference: 0.1,
      pValue: 0.01,
      adjustedPValue: 0.02,
      chanceToBeatControl: 0.99,
      verdict: "better",
    });
    expect(b!.ci95).toEqual([0.08, 0.12000000000000001]);
  });

  it("calls a significant drop in success rate worse and a non-significant change inconclusive", () => {
    const groups = resultGroups({
      control: "A",
      variants: [variant("A", 50, 50), variant("B", 40, 60), variant("C", 52, 48)],
      comparisons: [comparison("B", -0.1), comparison("C", 0.02, { significant: false, adjustedPValue: 0.6 })],
    });
    expect(groups[0]!.rows.map((row) => row.verdict)).toEqual(["none", "worse", "inconclusive"]);
  });

  it("draws every interval of a metric on one scale around zero that holds them all", () => {
    const groups = resultGroups({
      control: "A",
      variants: [variant("A", 50, 50), variant("B", 60, 40), variant("C", 45, 55)],
      comparisons: [comparison("B", 0.1), comparison("C", -0.05)],
    });
    // Widest bound: 0.12 → × 1.1 = 0.132 → 0.2.
    expect(groups[0]!.scale.domain).toEqual([-0.2, 0.2]);
  });

  it("has no verdict or interval for a variant without decided traces", () => {
    const groups = resultGroups({
      control: "A",
      variants: [variant("A", 5, 5), variant("B", 0, 0)],
      comparisons: [comparison("B", null, { pValue: null, adjustedPValue: null, significant: false, chanceToBeatControl: null })],
    });
    expect(groups[0]!.rows[1]).toMatchObject({ value: null, difference: null, ci95: null, verdict: "none", n: 0 });
    expect(groups[0]!.scale.domain).toEqual([-0.1, 0.1]);
  });

  it("adds a group per guardrail where lower is better, flagging what the server calls worse", () => {
    const groups = resultGroups({
      control: "A",
      variants: [variant("A", 50, 50), variant("B", 55, 45)],
      comparisons: [
        comparison("B", 0.05, {
          guardrails: [guardrail("costUsd", 2, 0.001), guardrail("durationMs", -3, 0.01), guardrail("tokens", 1, 0.4)],
        }),
      ],
    });
    expect(groups.map((group) => group.metric)).toEqual(["successRate", "costUsd", "durationMs", "tokens"]);
    const cost = groups[1]!;
    expect(cost.meta.better).toBe("lower");
    expect(cost.rows[0]).toMatchObject({ isControl: true, value: 10, n: 100, difference: null, verdict: "none" });
    expect(cost.rows[1]).toMatchObject({
      value: 12,
      n: 90,
      difference: 2,
      relativeUplift: 0.2,
      pValue: 0.001,
      adjustedPValue: null,
      verdict: "worse",
      significant: true,
    });
    expect(groups[2]!.rows[1]!.verdict).toBe("better");
    expect(groups[3]!.rows[1]!.verdict).toBe("inconclusive");
    // Differences of 2 ± 1 → scale 3 × 1.1 = 3.3 → 5.
    expect(cost.scale.domain).toEqual([-5, 5]);
  });
});

describe("headline", () => {
  it("names the significant winner with the largest gain", () => {
    const h = headline({ comparisons: [comparison("B", 0.03), comparison("C", 0.06), comparison("D", 0.08, { significant: false })] });
    expect(h).toMatchObject({ kind: "winner", variant: "C", difference: 0.06, adjustedPValue: 0.02 });
  });
  it("names a significantly worse variant when nothing wins", () => {
    expect(headline({ comparisons: [comparison("B", -0.04), comparison("C", 0.01, { significant: false })] })).toMatchObject({
      kind: "loser",
      variant: "B",
    });
  });
  it("says who leads when nothing is significant", () => {
    expect(
      headline({ comparisons: [comparison("B", -0.01, { significant: false }), comparison("C", 0.01, { significant: false })] }),
    ).toEqual({
      kind: "leading",
      variant: "C",
      difference: 0.01,
    });
  });
  it("says there is nothing to compare before any decided trace", () => {
    expect(headline({ comparisons: [comparison("B", null)] })).toEqual({ kind: "no-data" });
  });
});

describe("alarms and paired panels", () => {
  it("lists guardrails significantly worse per variant", () => {
    const alarms = guardrailAlarms({
      comparisons: [
        comparison("B", 0.01, { guardrails: [guardrail("costUsd", 2, 0.001), guardrail("tokens", 5, 0.3)] }),
        comparison("C", 0.01),
      ],
    });
    expect(alarms).toEqual([{ variant: "B", metrics: ["costUsd"] }]);
  });
  it("shows a paired panel only for comparisons with paired tasks", () => {
    const paired = { tasks: 30, bothSuccess: 10, onlyControl: 2, onlyVariant: 9, bothFail: 9, pValue: 0.065 };
    expect(pairedPanels({ comparisons: [comparison("B", 0.1, { paired }), comparison("C", 0.1)] })).toEqual([
      { variant: "B", control: "A", paired },
    ]);
  });
});

describe("formatting", () => {
  it("spells values, differences and intervals in each metric's unit", () => {
    expect(formatMetric("successRate", 0.4213)).toBe("42.1 %");
    expect(formatMetric("costUsd", 0.0123)).toBe("$0.0123");
    expect(formatMetric("tokens", 1839.6)).toBe("1,840");
    expect(formatMetric("durationMs", 5_400)).toBe("5.4 s");
    expect(formatDifference("successRate", 0.03)).toBe("+3.0 pp");
    expect(formatDifference("costUsd", -0.001)).toBe("−$0.0010");
    expect(formatDifference("tokens", 120.4)).toBe("+120");
    expect(formatDifference("durationMs", -340)).toBe("−340 ms");
    expect(formatDifferenceInterval("successRate", [0.01, 0.05])).toBe("+1.0 pp to +5.0 pp");
    expect(formatDifferenceInterval("successRate", null)).toBe("—");
  });
  it("writes axis ticks without needless decimals", () => {
    expect(formatTick("successRate", 0.1)).toBe("+10 pp");
    expect(formatTick("successRate", -0.025)).toBe("−2.5 pp");
    expect(formatTick("successRate", 0)).toBe("0");
  });
  it("writes p-values, uplifts and chances as experimenters read them", () => {
    expect(formatPValue(0.0004)).toBe("< 0.001");
    expect(formatPValue(0.0423)).toBe("0.042");
    expect(formatPValue(null)).toBe("—");
    expect(formatUplift(0.0714)).toBe("+7.1 %");
    expect(formatUplift(-0.02)).toBe("−2.0 %");
    expect(formatChance(0.9996)).toBe("> 99.9 %");
    expect(formatChance(0.5)).toBe("50.0 %");
    expect(formatChance(0.0001)).toBe("< 0.1 %");
  });
});
