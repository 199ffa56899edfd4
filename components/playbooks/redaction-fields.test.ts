import { describe, expect, it } from "vitest";
import { customPatternsProblem } from "./redaction-fields";

describe("customPatternsProblem", () => {
  it("accepts good patterns and none", () => {
    expect(customPatternsProblem([])).toBeNull();
    expect(customPatternsProblem([{ name: "ticket", pattern: "TCK-[0-9]{6}" }])).toBeNull();
  });
  it("names the row and the reason of the first problem", () => {
    expect(
      customPatternsProblem([
        { name: "ok", pattern: "x" },
        { name: "bad", pattern: "(a)\\1" },
      ]),
    ).toMatch(/^Custom pattern 2: the pattern uses a backreference/);
    expect(customPatternsProblem([{ name: "Bad Name", pattern: "x" }])).toMatch(
      /^Custom pattern 1: the name "Bad Name" is 1 to 40 lowercase/,
    );
    expect(
      customPatternsProblem([
        { name: "t", pattern: "x" },
        { name: "t", pattern: "y" },
      ]),
    ).toMatch(/two patterns are named "t"/);
    expect(customPatternsProblem([{ name: "e", pattern: "a?" }])).toMatch(/matches the empty string/);
  });
});
