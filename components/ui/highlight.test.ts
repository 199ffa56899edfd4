import { describe, expect, it } from "vitest";
import { matchRanges } from "./highlight";

describe("matchRanges", () => {
  it("finds every place the whole query occurs, ignoring case", () => {
    expect(matchRanges("Retry the call; retry once more.", "RETRY")).toEqual([
      [0, 5],
      [16, 21],
    ]);
  });

  it("marks nothing for a blank query or no match", () => {
    expect(matchRanges("Retry the call.", "  ")).toEqual([]);
    expect(matchRanges("Retry the call.", "page")).toEqual([]);
  });

  it("does not overlap matches of a repeating query", () => {
    expect(matchRanges("aaaa", "aa")).toEqual([
      [0, 2],
      [2, 4],
    ]);
  });
});
