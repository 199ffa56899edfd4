import { describe, expect, it } from "vitest";
import { percentile, summarize } from "./stats";

const oneToTwenty = Array.from({ length: 20 }, (_, i) => i + 1);

describe("percentile (nearest rank)", () => {
  it("takes the ceil(p·n/100)-th smallest sample", () => {
    expect(percentile(oneToTwenty, 50)).toBe(10);
    expect(percentile(oneToTwenty, 95)).toBe(19);
    expect(percentile(oneToTwenty, 100)).toBe(20);
    expect(percentile([15, 20, 35, 40, 50], 30)).toBe(20);
    expect(percentile([15, 20, 35, 40, 50], 40)).toBe(20);
    expect(percentile([15, 20, 35, 40, 50], 50)).toBe(35);
  });

  it("ignores the order the samples come in and leaves the input untouched", () => {
    const samples = [9, 1, 5, 3, 7];
    expect(percentile(samples, 50)).toBe(5);
    expect(samples).toEqual([9, 1, 5, 3, 7]);
  });

  it("returns a measured sample, never an interpolation", () => {
    expect(percentile([10, 20], 50)).toBe(10);
    expect(percentile([10, 20], 51)).toBe(20);
  });

  it("gives the only sample for every p", () => {
    expect(percentile([42], 0.1)).toBe(42);
    expect(percentile([42], 95)).toBe(42);
  });

  it("with fewer than 20 samples, p95 is the maximum", () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
  });

  it("rejects no samples, NaN and p outside (0, 100]", () => {
    expect(() => percentile([], 50)).toThrow(RangeError);
    expect(() => percentile([1, Number.NaN], 50)).toThrow(RangeError);
    expect(() => percentile([1], 0)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });
});

describe("summarize", () => {
  it("reports runs, p50, p95 and max", () => {
    expect(summarize([...oneToTwenty].reverse())).toEqual({ runs: 20, p50: 10, p95: 19, max: 20 });
  });
});
