// Every statistic against the reference values in reference/expected.json, which
// reference/compute.py computes with SciPy (and, where SciPy has no function, with the published
// formula written out, checked there against published worked examples), within the tolerance of
// server/testing/reference-values.ts.
import { describe, expect, it } from "vitest";
import reference from "./reference/expected.json";
import {
  Z_95,
  chanceToBeatControl,
  exactMcNemar,
  holmAdjust,
  minimumDetectableEffect,
  newcombeInterval,
  quantiles,
  ratioDifferenceTest,
  ratioMetric,
  sampleRatioMismatch,
  sampleSizePerVariant,
  twoProportionPower,
  twoProportionZTest,
  welchTTest,
  wilsonInterval,
} from "./index";
import { expectClose, expectPairClose } from "@/server/testing/reference-values";

const counts = ([successes, trials]: readonly number[]) => ({ successes: successes as number, trials: trials as number });

describe("reference data", () => {
  it("was produced by the reference script with SciPy", () => {
    expect(reference.generatedBy).toBe("server/ace/stats/reference/compute.py");
    expect(reference.versions.scipy).toMatch(/^\d+\.\d+/);
  });
});

describe("Wilson score interval", () => {
  it.each(reference.wilson)("$successes of $trials with z = $z", (c) => {
    expectPairClose(wilsonInterval(c.successes, c.trials, c.z), c.expected, `${c.successes}/${c.trials}`);
  });

  it("uses z = 1.959963984540054 by default", () => {
    const c = reference.wilson.find((w) => w.successes === 37 && w.trials === 80 && !("confidenceLevel" in w));
    expect(c?.z).toBe(Z_95);
    expectPairClose(wilsonInterval(37, 80), c?.expected ?? [], "37/80 default z");
  });
});

describe("Newcombe hybrid score interval for variant − control", () => {
  it.each(reference.newcombe)("$label: $variant.0/$variant.1 − $control.0/$control.1", (c) => {
    const ci = newcombeInterval({ variant: counts(c.variant), control: counts(c.control) }, c.z);
    expectPairClose(ci, c.expected, c.label);
    if ("published" in c && c.published) {
      // Newcombe (1998), Table II, method 10, printed to 4 decimals.
      expect(Math.abs((ci?.[0] ?? NaN) - (c.published[0] as number))).toBeLessThanOrEqual(5e-5);
      expect(Math.abs((ci?.[1] ?? NaN) - (c.published[1] as number))).toBeLessThanOrEqual(5e-5);
    }
  });
});

describe("pooled two-proportion z-test", () => {
  it.each(reference.zTest)("$variant.0/$variant.1 against $control.0/$control.1", (c) => {
    const result = twoProportionZTest({ variant: counts(c.variant), control: counts(c.control) });
    expectClose(result?.z, c.expected.z, "z");
    expectClose(result?.pValue, c.expected.pValue, "p");
  });
});

describe("Welch's t-test from sums", () => {
  it.each(reference.welch)("$label", (c) => {
    const groups = { variant: c.variant, control: c.control };
    for (const [level, expected] of [
      [0.95, c.expected],
      [0.9, c.expected90],
    ] as const) {
      const result = welchTTest(groups, level);
      expectClose(result?.difference, expected.difference, "difference");
      expectClose(result?.t, expected.t, "t");
      expectClose(result?.degreesOfFreedom, expected.degreesOfFreedom, "df");
      expectClose(result?.pValue, expected.pValue, "p");
      expectPairClose(result?.ci, expected.ci, `ci ${level}`);
    }
  });
});

describe("per-unit ratio metric with delta-method variance", () => {
  it.each(reference.ratio)("$label", (c) => {
    for (const arm of ["variant", "control"] as const) {
      const estimate = ratioMetric(c[arm]);
      expectClose(estimate?.rate, c.expected[arm].rate, `${arm} rate`);
      expectClose(estimate?.variance, c.expected[arm].variance, `${arm} variance`);
      expectPairClose(estimate?.ci, c.expected[arm].ci, `${arm} ci`);
    }
    const test = ratioDifferenceTest({ variant: c.variant, control: c.control });
    const expected = c.expected.difference;
    expectClose(test?.difference, expected.difference, "difference");
    expectClose(test?.standardError, expected.standardError, "standard error");
    expectClose(test?.t, expected.t, "t");
    expectClose(test?.degreesOfFreedom, expected.degreesOfFreedom, "df");
    expectClose(test?.pValue, expected.pValue, "p");
    expectPairClose(test?.ci, expected.ci, "ci");
    expectClose(test?.chanceToBeatControl, expected.chanceToBeatControl, "chance to beat control");
  });
});

describe("sample-ratio mismatch", () => {
  it.each(reference.srm)("$observed against $weights", (c) => {
    const result = sampleRatioMismatch(c.observed, c.weights);
    expectClose(result.chiSquare, c.expected.chiSquare, "chi-square");
    expect(result.degreesOfFreedom).toBe(c.expected.degreesOfFreedom);
    expectClose(result.pValue, c.expected.pValue, "p");
    expect(result.flagged).toBe(c.expected.flagged);
  });
});

describe("exact McNemar", () => {
  it.each(reference.mcnemar)("$onlyControl only-control against $onlyVariant only-variant", (c) => {
    expectClose(exactMcNemar(c).pValue, c.expected, "p");
  });
});

describe("chance to beat control", () => {
  it.each(reference.chanceToBeatControl)("$variant.0/$variant.1 against $control.0/$control.1", (c) => {
    expectClose(chanceToBeatControl({ variant: counts(c.variant), control: counts(c.control) }), c.expected, "P(variant > control)");
  });
});

describe("Holm adjustment", () => {
  it.each(reference.holm)("$pValues", (c) => {
    const adjusted = holmAdjust(c.pValues);
    expect(adjusted).toHaveLength(c.expected.length);
    c.expected.forEach((value, i) => expectClose(adjusted[i], value, `adjusted[${i}]`));
    if ("published" in c && c.published) c.published.forEach((value, i) => expectClose(adjusted[i], value, `published[${i}]`));
  });
});

describe("power and sample size", () => {
  it.each(reference.sampleSize)("baseline $baseline, MDE $mde, α $alpha, power $power", (c) => {
    const n = sampleSizePerVariant(c);
    expect(n).toBe(c.expected.unitsPerVariant);
    // The smallest whole number of units with the power asked for.
    expect(twoProportionPower({ ...c, unitsPerVariant: n })).toBeGreaterThanOrEqual(c.power - 1e-12);
    if (n > 1) expect(twoProportionPower({ ...c, unitsPerVariant: n - 1 })).toBeLessThan(c.power);
  });

  it.each(reference.mde)("MDE with $unitsPerVariant units per variant at baseline $baseline", (c) => {
    const mde = minimumDetectableEffect(c);
    if (c.expected === null) expect(mde).toBeNull();
    else expectClose(mde, c.expected, "MDE");
  });

  it.each(reference.power)("power with $unitsPerVariant units per variant, $baseline + $mde", (c) => {
    expectClose(twoProportionPower(c), c.expected, "power");
  });
});

describe("quantiles (type 7, linear)", () => {
  it.each(reference.quantiles.map((c, i) => ({ ...c, i })))("case $i at $ps", (c) => {
    const result = quantiles(c.values, c.ps);
    c.expected.forEach((value, i) => expectClose(result?.[i], value, `p${c.ps[i]}`));
  });
});
