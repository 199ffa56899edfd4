// Edge cases, argument checks and properties that tie the statistics together. The numbers
// themselves are checked against SciPy in reference.test.ts.
import { describe, expect, it } from "vitest";
import { betaCdf } from "./distributions";
import {
  StatisticsInputError,
  chanceToBeatControl,
  exactMcNemar,
  holmAdjust,
  minimumDetectableEffect,
  newcombeInterval,
  quantile,
  quantiles,
  ratioDifferenceTest,
  ratioMetric,
  sampleRatioMismatch,
  sampleSizePerVariant,
  summarizeSample,
  twoProportionPower,
  twoProportionZTest,
  welchTTest,
  wilsonInterval,
  type RatioSums,
} from "./index";

describe("Wilson score interval", () => {
  it("has no interval for 0 of 0", () => {
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it("starts at exactly 0 with no successes and ends at exactly 1 with all successes", () => {
    expect(wilsonInterval(0, 10)?.[0]).toBe(0);
    expect(wilsonInterval(10, 10)?.[1]).toBe(1);
  });

  it("gives the evolution issue's example: 30 of 38 → [0.6365422052, 0.8892520816]", () => {
    const [low, high] = wilsonInterval(30, 38) ?? [NaN, NaN];
    expect(low).toBeCloseTo(0.6365422052, 10);
    expect(high).toBeCloseTo(0.8892520816, 10);
  });

  it("narrows as the sample grows at the same rate", () => {
    const width = (k: number, n: number) => {
      const [low, high] = wilsonInterval(k, n) ?? [0, 0];
      return high - low;
    };
    expect(width(40, 100)).toBeGreaterThan(width(400, 1000));
  });

  it("refuses impossible counts and a bad z, naming the argument", () => {
    expect(() => wilsonInterval(11, 10)).toThrow(/successes \(11\) cannot exceed counts.trials \(10\)/);
    expect(() => wilsonInterval(-1, 10)).toThrow(StatisticsInputError);
    expect(() => wilsonInterval(2.5, 10)).toThrow(/whole number/);
    expect(() => wilsonInterval(1, 10, 0)).toThrow(/z must be a finite number > 0/);
  });
});

describe("difference of two rates", () => {
  it("has no interval and no test when a variant has no traces", () => {
    expect(newcombeInterval({ variant: { successes: 0, trials: 0 }, control: { successes: 4, trials: 10 } })).toBeNull();
    expect(twoProportionZTest({ variant: { successes: 3, trials: 10 }, control: { successes: 0, trials: 0 } })).toBeNull();
  });

  it("holds the observed difference inside the interval", () => {
    const [low, high] = newcombeInterval({ variant: { successes: 45, trials: 80 }, control: { successes: 37, trials: 80 } }) ?? [0, 0];
    expect(low).toBeLessThan(8 / 80);
    expect(high).toBeGreaterThan(8 / 80);
  });

  it("finds no evidence when every trace in both variants failed, or every one succeeded", () => {
    expect(twoProportionZTest({ variant: { successes: 0, trials: 12 }, control: { successes: 0, trials: 10 } })).toEqual({
      z: 0,
      pValue: 1,
    });
    expect(twoProportionZTest({ variant: { successes: 12, trials: 12 }, control: { successes: 10, trials: 10 } })).toEqual({
      z: 0,
      pValue: 1,
    });
  });

  it("gives the same p whichever variant is called the control, with z of opposite sign", () => {
    const a = { successes: 2250, trials: 5000 };
    const b = { successes: 2100, trials: 5000 };
    const forward = twoProportionZTest({ variant: a, control: b });
    const backward = twoProportionZTest({ variant: b, control: a });
    expect(backward?.z).toBeCloseTo(-(forward?.z ?? 0), 12);
    expect(backward?.pValue).toBeCloseTo(forward?.pValue ?? 0, 15);
  });
});

describe("Welch's t-test", () => {
  it("needs two values in each variant", () => {
    expect(welchTTest({ variant: { n: 1, sum: 3, sumSquares: 9 }, control: { n: 5, sum: 10, sumSquares: 30 } })).toBeNull();
    expect(welchTTest({ variant: { n: 4, sum: 3, sumSquares: 9 }, control: { n: 0, sum: 0, sumSquares: 0 } })).toBeNull();
  });

  it("has nothing to test when no value varies (every cost 0 in both variants)", () => {
    expect(welchTTest({ variant: { n: 50, sum: 0, sumSquares: 0 }, control: { n: 40, sum: 0, sumSquares: 0 } })).toBeNull();
  });

  it("summarises a variant from its sums", () => {
    expect(summarizeSample({ n: 4, sum: 10, sumSquares: 30 })).toEqual({ n: 4, mean: 2.5, variance: (30 - 25) / 3 });
    expect(summarizeSample({ n: 1, sum: 7, sumSquares: 49 })).toEqual({ n: 1, mean: 7, variance: null });
    expect(summarizeSample({ n: 0, sum: 0, sumSquares: 0 })).toEqual({ n: 0, mean: null, variance: null });
  });

  it("refuses sums that no data could give", () => {
    expect(() => summarizeSample({ n: 3, sum: 1, sumSquares: -1 })).toThrow(/sumSquares must be ≥ 0/);
    expect(() => welchTTest({ variant: { n: 3, sum: NaN, sumSquares: 1 }, control: { n: 3, sum: 1, sumSquares: 1 } })).toThrow(
      /sum must be a finite number/,
    );
    expect(() => welchTTest({ variant: { n: 3, sum: 1, sumSquares: 1 }, control: { n: 3, sum: 1, sumSquares: 1 } }, 95)).toThrow(
      /confidenceLevel/,
    );
  });
});

/** Sums of per-unit (successes, decided traces) pairs. */
function ratioSums(units: ReadonlyArray<readonly [number, number]>): RatioSums {
  return units.reduce<RatioSums>(
    (s, [x, y]) => ({
      units: s.units + 1,
      numeratorSum: s.numeratorSum + x,
      numeratorSumSquares: s.numeratorSumSquares + x * x,
      denominatorSum: s.denominatorSum + y,
      denominatorSumSquares: s.denominatorSumSquares + y * y,
      crossProductSum: s.crossProductSum + x * y,
    }),
    { units: 0, numeratorSum: 0, numeratorSumSquares: 0, denominatorSum: 0, denominatorSumSquares: 0, crossProductSum: 0 },
  );
}

describe("per-unit ratio metric", () => {
  it("reduces to Welch's test on the outcomes when every unit has one decided trace", () => {
    const outcomes = (successes: number, n: number) => Array.from({ length: n }, (_, i) => [i < successes ? 1 : 0, 1] as const);
    const variant = ratioSums(outcomes(130, 200));
    const control = ratioSums(outcomes(110, 210));
    const perUnit = ratioDifferenceTest({ variant, control });
    const perTrace = welchTTest({
      variant: { n: 200, sum: 130, sumSquares: 130 },
      control: { n: 210, sum: 110, sumSquares: 110 },
    });
    expect(perUnit?.pValue).toBeCloseTo(perTrace?.pValue ?? NaN, 12);
    expect(perUnit?.ci[0]).toBeCloseTo(perTrace?.ci[0] ?? NaN, 12);
    expect(perUnit?.degreesOfFreedom).toBeCloseTo(perTrace?.degreesOfFreedom ?? NaN, 8);
  });

  it("widens the interval when a unit's traces succeed or fail together", () => {
    // Same 60 % of 400 traces either way; clustered: whole units of 4 traces succeed or fail.
    const spread = ratioSums(Array.from({ length: 100 }, (_, i) => [i < 40 ? 3 : 2, 4] as const));
    const clustered = ratioSums(Array.from({ length: 100 }, (_, i) => [i < 60 ? 4 : 0, 4] as const));
    expect(ratioMetric(spread)?.rate).toBe(0.6);
    expect(ratioMetric(clustered)?.rate).toBe(0.6);
    expect(ratioMetric(clustered)?.variance ?? 0).toBeGreaterThan(10 * (ratioMetric(spread)?.variance ?? Infinity));
  });

  it("has no rate without a decided trace, and no variance with a single unit", () => {
    expect(ratioMetric(ratioSums([]))).toBeNull();
    expect(
      ratioMetric(
        ratioSums([
          [0, 0],
          [0, 0],
        ]),
      ),
    ).toBeNull();
    expect(ratioMetric(ratioSums([[2, 3]]))).toEqual({ units: 1, rate: 2 / 3, variance: null, standardError: null, ci: null });
    expect(
      ratioDifferenceTest({
        variant: ratioSums([[2, 3]]),
        control: ratioSums([
          [1, 2],
          [0, 1],
        ]),
      }),
    ).toBeNull();
  });

  it("puts the chance to beat control on the side of the difference", () => {
    const better = ratioSums(Array.from({ length: 300 }, (_, i) => [i % 10 < 7 ? 2 : 1, 2] as const));
    const worse = ratioSums(Array.from({ length: 300 }, (_, i) => [i % 10 < 4 ? 2 : 1, 2] as const));
    expect(ratioDifferenceTest({ variant: better, control: worse })?.chanceToBeatControl).toBeGreaterThan(0.99);
    expect(ratioDifferenceTest({ variant: worse, control: better })?.chanceToBeatControl).toBeLessThan(0.01);
  });
});

describe("Holm adjustment", () => {
  it("adjusts nothing in an empty family and keeps the input order", () => {
    expect(holmAdjust([])).toEqual([]);
    const adjusted = holmAdjust([0.04, 0.001]);
    expect(adjusted[0]).toBeCloseTo(0.04, 15);
    expect(adjusted[1]).toBeCloseTo(0.002, 15);
  });

  it("never makes a p-value smaller, nor larger than 1", () => {
    const raw = [0.2, 0.01, 0.6, 0.03, 0.5];
    holmAdjust(raw).forEach((adjusted, i) => {
      expect(adjusted).toBeGreaterThanOrEqual(raw[i] as number);
      expect(adjusted).toBeLessThanOrEqual(1);
    });
  });

  it("refuses a p-value outside [0, 1]", () => {
    expect(() => holmAdjust([0.2, 1.2])).toThrow(/pValues\[1\] must be between 0 and 1/);
  });
});

describe("sample-ratio mismatch", () => {
  it("flags a 48/52 split of 10,200 units and passes an even one", () => {
    expect(sampleRatioMismatch([4800, 5400], [0.5, 0.5]).flagged).toBe(true);
    expect(sampleRatioMismatch([5000, 5000], [0.5, 0.5])).toMatchObject({
      chiSquare: 0,
      pValue: 1,
      flagged: false,
      expected: [5000, 5000],
    });
  });

  it("has nothing to mismatch before any unit is exposed", () => {
    expect(sampleRatioMismatch([0, 0, 0], [0.2, 0.3, 0.5])).toMatchObject({ chiSquare: 0, degreesOfFreedom: 2, pValue: 1, flagged: false });
  });

  it("treats weights as relative", () => {
    expect(sampleRatioMismatch([300, 700], [1, 3]).pValue).toBeCloseTo(sampleRatioMismatch([300, 700], [0.25, 0.75]).pValue, 14);
  });

  it("refuses mismatched lengths, a single variant and a weight of 0", () => {
    expect(() => sampleRatioMismatch([10, 20], [0.5, 0.3, 0.2])).toThrow(/observed has 2 variants but weights has 3/);
    expect(() => sampleRatioMismatch([10], [1])).toThrow(/at least 2 variants/);
    expect(() => sampleRatioMismatch([10, 20], [1, 0])).toThrow(/weights\[1\] must be a finite number > 0/);
  });
});

describe("exact McNemar", () => {
  it("has no p-value without a discordant pair", () => {
    expect(exactMcNemar({ onlyControl: 0, onlyVariant: 0 })).toEqual({ discordant: 0, pValue: null });
  });

  it("is symmetric and gives p = 1 for a tie", () => {
    expect(exactMcNemar({ onlyControl: 3, onlyVariant: 10 }).pValue).toBe(exactMcNemar({ onlyControl: 10, onlyVariant: 3 }).pValue);
    expect(exactMcNemar({ onlyControl: 7, onlyVariant: 7 }).pValue).toBe(1);
  });

  it("gives 2 × ½⁵ = 0.0625 for 5 discordant pairs all one way", () => {
    expect(exactMcNemar({ onlyControl: 0, onlyVariant: 5 }).pValue).toBeCloseTo(0.0625, 15);
  });
});

describe("chance to beat control", () => {
  it("is ½ for two variants without traces, or with the same counts", () => {
    expect(chanceToBeatControl({ variant: { successes: 0, trials: 0 }, control: { successes: 0, trials: 0 } })).toBeCloseTo(0.5, 15);
    expect(chanceToBeatControl({ variant: { successes: 37, trials: 80 }, control: { successes: 37, trials: 80 } })).toBeCloseTo(0.5, 12);
  });

  it("sums to 1 with the reverse comparison", () => {
    const a = { successes: 45, trials: 80 };
    const b = { successes: 37, trials: 80 };
    expect(chanceToBeatControl({ variant: a, control: b }) + chanceToBeatControl({ variant: b, control: a })).toBeCloseTo(1, 12);
  });

  it("agrees with ∫ F_control dF_variant summed over a fine grid of @stdlib beta CDFs", () => {
    const variant = { successes: 45, trials: 80 };
    const control = { successes: 37, trials: 80 };
    const steps = 20_000;
    let integral = 0;
    let previous = 0;
    for (let k = 1; k <= steps; k++) {
      const x = k / steps;
      const next = betaCdf(x, 1 + variant.successes, 1 + variant.trials - variant.successes);
      integral += betaCdf(x - 0.5 / steps, 1 + control.successes, 1 + control.trials - control.successes) * (next - previous);
      previous = next;
    }
    expect(chanceToBeatControl({ variant, control })).toBeCloseTo(integral, 6);
  });

  it("stays fast at 200,000 traces per variant", () => {
    const started = performance.now();
    const p = chanceToBeatControl({ variant: { successes: 84_600, trials: 200_000 }, control: { successes: 84_000, trials: 200_000 } });
    expect(performance.now() - started).toBeLessThan(250);
    expect(p).toBeGreaterThan(0.9);
    expect(p).toBeLessThan(1);
  });
});

describe("power and sample size", () => {
  it("detects at the planned sample the MDE it was planned for", () => {
    const units = sampleSizePerVariant({ baseline: 0.42, mde: 0.03 });
    expect(minimumDetectableEffect({ unitsPerVariant: units, baseline: 0.42 })).toBeLessThanOrEqual(0.03);
    expect(minimumDetectableEffect({ unitsPerVariant: units - 1, baseline: 0.42 })).toBeGreaterThan(0.03);
  });

  it("says nothing can be detected yet with no units or far too few", () => {
    expect(minimumDetectableEffect({ unitsPerVariant: 0, baseline: 0.4 })).toBeNull();
    expect(minimumDetectableEffect({ unitsPerVariant: 3, baseline: 0.6 })).toBeNull();
  });

  it("uses α = 0.05 two-sided and power 0.8 by default", () => {
    expect(sampleSizePerVariant({ baseline: 0.3, mde: 0.05 })).toBe(
      sampleSizePerVariant({ baseline: 0.3, mde: 0.05, alpha: 0.05, power: 0.8 }),
    );
    expect(twoProportionPower({ unitsPerVariant: 1000, baseline: 0.3, mde: 0.05 })).toBe(
      twoProportionPower({ unitsPerVariant: 1000, baseline: 0.3, mde: 0.05, alpha: 0.05 }),
    );
  });

  it("refuses effects no rate can have and settings outside (0, 1)", () => {
    expect(() => sampleSizePerVariant({ baseline: 0.9, mde: 0.2 })).toThrow(/baseline \+ mde must be at most 1/);
    expect(() => sampleSizePerVariant({ baseline: 0.5, mde: 0 })).toThrow(/mde must be an absolute increase > 0/);
    expect(() => sampleSizePerVariant({ baseline: 0, mde: 0.1 })).toThrow(/baseline must be between 0 and 1/);
    expect(() => sampleSizePerVariant({ baseline: 0.5, mde: 0.1, power: 80 })).toThrow(/power must be between 0 and 1/);
    expect(() => minimumDetectableEffect({ unitsPerVariant: -5, baseline: 0.5 })).toThrow(/unitsPerVariant must be a whole number/);
  });
});

describe("quantiles", () => {
  it("has none for an empty list", () => {
    expect(quantiles([], [0.5, 0.95])).toBeNull();
    expect(quantile([], 0.5)).toBeNull();
  });

  it("interpolates between order statistics and leaves the input unsorted", () => {
    const durations = [400, 100, 300, 200];
    expect(quantile(durations, 0.5)).toBe(250);
    expect(quantile(durations, 0.95)).toBeCloseTo(385, 10);
    expect(durations).toEqual([400, 100, 300, 200]);
  });

  it("refuses values that are not numbers and levels outside [0, 1]", () => {
    expect(() => quantiles([1, NaN], [0.5])).toThrow(/values\[1\] must be a finite number/);
    expect(() => quantile([1, 2], 95)).toThrow(/levels\[0\] must be between 0 and 1/);
  });
});
