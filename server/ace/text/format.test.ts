import { describe, expect, it } from "vitest";
import { formatBytes, countsInWords, formatDuration, formatNumber, plural, pluralWord } from "./format";

describe("counts", () => {
  it("writes whole numbers with en-US thousands separators, whatever the machine's locale", () => {
    expect(formatNumber(0)).toBe("0");
    expect(formatNumber(999)).toBe("999");
    expect(formatNumber(10_000)).toBe("10,000");
    expect(formatNumber(-1_234_567)).toBe("-1,234,567");
  });

  it("says a count with its noun, one for 1 and the plural for anything else", () => {
    expect(plural(1, "operation")).toBe("1 operation");
    expect(plural(3, "operation")).toBe("3 operations");
    expect(plural(0, "near-duplicate")).toBe("0 near-duplicates");
    expect(plural(1_204, "bullet")).toBe("1,204 bullets");
    expect(plural(2, "child", "children")).toBe("2 children");
    expect(pluralWord(1, "lesson")).toBe("lesson");
    expect(pluralWord(2, "property", "properties")).toBe("properties");
  });

  it("lists the counts that are not 0 in words, in their order", () => {
    const counts = [
      [3, "bullet added", "bullets added"],
      [0, "bullet removed", "bullets removed"],
      [1, "section renamed", "sections renamed"],
    ] as const;
    expect(countsInWords(counts)).toBe("3 bullets added, 1 section renamed");
    expect(countsInWords([])).toBe("");
  });
});

describe("formatDuration", () => {
  it("says milliseconds under a second, seconds under two minutes, minutes after", () => {
    expect(formatDuration(0)).toBe("0 ms");
    expect(formatDuration(840.4)).toBe("840 ms");
    expect(formatDuration(1_000)).toBe("1 s");
    expect(formatDuration(60_000)).toBe("60 s");
    expect(formatDuration(119_000)).toBe("119 s");
    expect(formatDuration(120_000)).toBe("2 min");
    expect(formatDuration(3_600_000)).toBe("60 min");
  });

  it("rounds a wait up, never down: 1.2 s is said as 2 s, 2 min 1 s as 3 min", () => {
    expect(formatDuration(1_200)).toBe("2 s");
    expect(formatDuration(121_000)).toBe("3 min");
  });
});

describe("formatBytes", () => {
  it("says bytes in decimal units, one decimal under ten", () => {
    expect([0, 812, 999, 1_000, 4_200, 1_234_567, 45_600_000, 13e9].map(formatBytes)).toEqual([
      "0 B",
      "812 B",
      "999 B",
      "1 kB",
      "4.2 kB",
      "1.2 MB",
      "46 MB",
      "13 GB",
    ]);
  });
});
