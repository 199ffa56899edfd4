import { describe, expect, it } from "vitest";
import {
  formatConfidence,
  formatCost,
  formatDuration,
  formatNumber,
  formatTokens,
  plural,
  pluralWord,
  shortId,
  tokenSummary,
} from "./format";

describe("formatCost", () => {
  it("shows fractions of a cent to four decimals and dollars to two", () => {
    expect(formatCost(0.00042)).toBe("$0.0004");
    expect(formatCost(0.0123)).toBe("$0.0123");
    expect(formatCost(12.4)).toBe("$12.40");
    expect(formatCost(1234.5)).toBe("$1,234.50");
  });

  it("says when a cost is zero, tiny or unknown", () => {
    expect(formatCost(0)).toBe("$0");
    expect(formatCost(0.00001)).toBe("< $0.0001");
    expect(formatCost(null)).toBe("—");
  });
});

describe("formatDuration", () => {
  it("reads as milliseconds, seconds, minutes or hours", () => {
    expect(formatDuration(840)).toBe("840 ms");
    expect(formatDuration(3_240)).toBe("3.2 s");
    expect(formatDuration(42_000)).toBe("42 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
    expect(formatDuration(120_000)).toBe("2 min");
    expect(formatDuration(3_840_000)).toBe("1 h 4 min");
    expect(formatDuration(null)).toBe("—");
  });
});

describe("tokens", () => {
  it("uses thousands separators and sums input and output", () => {
    expect(formatTokens(1234567)).toBe("1,234,567");
    expect(tokenSummary(1_500, 180)).toEqual({ total: "1,680", detail: "1,500 in · 180 out" });
    expect(tokenSummary(null, null).total).toBe("—");
  });
});

describe("counts", () => {
  it("separates thousands the same way on the server and in the browser", () => {
    expect(formatNumber(10_000)).toBe("10,000");
    expect(formatNumber(0)).toBe("0");
  });

  it("puts the singular noun after one and the plural after any other count", () => {
    expect(plural(1, "bullet")).toBe("1 bullet");
    expect(plural(0, "bullet")).toBe("0 bullets");
    expect(plural(1_204, "bullet")).toBe("1,204 bullets");
    expect(plural(2, "run is", "runs are")).toBe("2 runs are");
    expect(plural(1, "run is", "runs are")).toBe("1 run is");
    expect(pluralWord(3, "trace not reflected yet", "traces not reflected yet")).toBe("traces not reflected yet");
  });

  it("shows a confidence to two decimals, and a dash when there is none", () => {
    expect(formatConfidence(0.8)).toBe("0.80");
    expect(formatConfidence(null)).toBe("—");
  });
});

describe("shortId", () => {
  it("keeps the first eight characters of an id", () => {
    expect(shortId("0b9e5a4c-3f1d-4c8e-9a7b-1d2e3f4a5b6c")).toBe("0b9e5a4c");
  });
});
