import { describe, expect, it } from "vitest";
import { describePath, findIllFormed, loneSurrogateAt, MAX_JSON_DEPTH } from "./well-formed";

function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

describe("well-formed input", () => {
  it("finds a lone surrogate, high or low, but not a pair", () => {
    expect(loneSurrogateAt("x\ud800y")).toBe(1);
    expect(loneSurrogateAt("ab\udc00")).toBe(2);
    expect(loneSurrogateAt("emoji 😀 fine")).toBe(-1);
    expect(loneSurrogateAt("cut 😀".slice(0, 5))).toBe(4);
  });

  it("names the field of a lone surrogate, a NUL, or a key that holds one", () => {
    expect(findIllFormed({ traces: [{ task: "ok" }, { output: "x\ud800y" }] })).toMatchObject({
      kind: "lone_surrogate",
      path: ["traces", 1, "output"],
      message: expect.stringMatching(/^traces\.1\.output: has a lone surrogate \(\\uD800\) at character 2/),
    });
    expect(findIllFormed({ content: "line one\nline\u0000two" })).toMatchObject({
      kind: "nul",
      message: "content: has a NUL character (U+0000) at line 2, character 5, which cannot be stored. Remove it.",
    });
    expect(findIllFormed({ metadata: { "k\ud800": 1 } })?.message).toMatch(/^metadata\.k.* \(the key "k\\ud800"\): has a lone surrogate/);
  });

  it("allows NUL where the caller replaces it, never a lone surrogate", () => {
    expect(findIllFormed({ output: "a\u0000b" }, { allowNul: true })).toBeNull();
    expect(findIllFormed({ output: "a\udfffb" }, { allowNul: true })?.kind).toBe("lone_surrogate");
  });

  it("allows NUL only at the paths the caller replaces it, naming the first other one", () => {
    const inText = (path: readonly (string | number)[]) => path[0] === "output";
    expect(findIllFormed({ output: "a\u0000b", name: "ok" }, { allowNul: inText })).toBeNull();
    expect(findIllFormed({ output: "a\u0000b", name: "o\u0000k" }, { allowNul: inText })?.message).toMatch(/^name: has a NUL/);
  });

  it("refuses JSON nested 5,000 deep without overflowing the stack, naming where", () => {
    const problem = findIllFormed({ traces: [{ metadata: nested(5_000) }] });
    expect(problem?.kind).toBe("too_deep");
    expect(problem?.message).toBe(`traces.0.metadata.a.a.a.a.a.…: is nested more than ${MAX_JSON_DEPTH} levels deep. Flatten it.`);
    expect(findIllFormed({ metadata: nested(MAX_JSON_DEPTH - 2) })).toBeNull();
  });

  it("reports the first problem in reading order", () => {
    expect(findIllFormed({ a: "fine", b: ["\u0000", "\ud800"], c: "\ud800" })?.path).toEqual(["b", 0]);
    expect(describePath([])).toBe("the input");
  });
});
