import { describe, expect, it } from "vitest";
import {
  checkCoverage,
  checkWeights,
  duplicateKeys,
  evenWeights,
  nextVariantKey,
  parsePercent,
  percentText,
  slugFromName,
} from "./form-rules";

describe("slugFromName", () => {
  it("lower-cases and joins words with single hyphens", () => {
    expect(slugFromName("Curated v5 vs. v4 (June)")).toBe("curated-v5-vs-v4-june");
  });
  it("keeps the letter of an accented character and drops symbols at the ends", () => {
    expect(slugFromName("  Éléphant — Übersicht!  ")).toBe("elephant-ubersicht");
  });
  it("gives an empty key for a name without letters or digits", () => {
    expect(slugFromName("¿¡ … !?")).toBe("");
  });
  it("cuts long names to 64 characters without a trailing hyphen", () => {
    const slug = slugFromName(`${"a".repeat(63)} b c`);
    expect(slug).toBe("a".repeat(63));
    expect(slug.length).toBeLessThanOrEqual(64);
  });
});

describe("weights", () => {
  it("reads percentages with a comma, a dot or a percent sign", () => {
    expect(parsePercent("50")).toBe(0.5);
    expect(parsePercent("12,5")).toBe(0.125);
    expect(parsePercent("33.3 %")).toBeCloseTo(0.333, 10);
    expect(parsePercent(".5")).toBe(0.005);
  });
  it("refuses what is not a percentage from 0 to 100", () => {
    expect(parsePercent("")).toBeNull();
    expect(parsePercent("-5")).toBeNull();
    expect(parsePercent("101")).toBeNull();
    expect(parsePercent("half")).toBeNull();
    expect(parsePercent("1e2")).toBeNull();
  });
  it("splits evenly into weights that add up to exactly 1", () => {
    expect(evenWeights(2)).toEqual([0.5, 0.5]);
    expect(evenWeights(3)).toEqual([0.3333, 0.3333, 0.3334]);
    for (let count = 2; count <= 10; count++) {
      const weights = evenWeights(count);
      expect(weights).toHaveLength(count);
      expect(Math.abs(weights.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-9);
      expect(checkWeights(weights.map(percentText)).ok).toBe(true);
    }
  });
  it("accepts weights that miss 100 % by at most 0.1 points", () => {
    expect(checkWeights(["33.33", "33.33", "33.33"])).toEqual({ ok: true, total: expect.closeTo(0.9999, 10) });
    expect(checkWeights(["33.2", "33.3", "33.3"]).ok).toBe(false);
    expect(checkWeights(["50", "50"]).ok).toBe(true);
  });
  it("says how far off the total is", () => {
    const check = checkWeights(["50", "40"]);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toBe("The weights add up to 90 %; they must add up to 100 % (add 10 points, or split evenly).");
    const over = checkWeights(["60", "50"]);
    if (!over.ok) expect(over.message).toContain("remove 10 points");
  });
  it("names the fields that are not numbers", () => {
    const check = checkWeights(["50", "x", ""]);
    expect(check).toMatchObject({ ok: false, invalid: [1, 2] });
    if (!check.ok) expect(check.message).toContain("variant 2 and variant 3");
  });
  it("refuses a variant that would never be served", () => {
    expect(checkWeights(["100", "0"])).toMatchObject({ ok: false, invalid: [1] });
  });
});

describe("coverage and variant keys", () => {
  it("takes coverage as a percentage above 0", () => {
    expect(checkCoverage("100")).toEqual({ ok: true, coverage: 1 });
    expect(checkCoverage("25")).toEqual({ ok: true, coverage: 0.25 });
    expect(checkCoverage("0").ok).toBe(false);
    expect(checkCoverage("150").ok).toBe(false);
  });
  it("offers the first letter not used yet", () => {
    expect(nextVariantKey(["A", "B"])).toBe("C");
    expect(nextVariantKey(["A", "C"])).toBe("B");
  });
  it("finds keys used twice, ignoring surrounding spaces but not case (as the server does)", () => {
    expect([...duplicateKeys(["A", "b", " A", "b "])].sort()).toEqual(["A", "b"]);
    expect(duplicateKeys(["A", "a", "", ""]).size).toBe(0);
  });
});
