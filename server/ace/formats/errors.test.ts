import { describe, expect, it } from "vitest";
import { PlaybookParseError, describeFound, findJsonSyntaxError, jsonPath, parseJsonText, quote } from "./errors";

describe("PlaybookParseError", () => {
  it("leads the message with the line, the line and column, or the JSON path", () => {
    expect(new PlaybookParseError({ format: "ace", line: 12, problem: "p" }).message).toBe("Line 12: p");
    expect(new PlaybookParseError({ format: "kayba", line: 3, column: 9, problem: "p" }).message).toBe("Line 3, column 9: p");
    const atPath = new PlaybookParseError({ format: "kayba", path: "next_id", problem: "p" });
    expect(atPath.message).toBe("next_id: p");
    expect(atPath).toMatchObject({ name: "PlaybookParseError", format: "kayba", path: "next_id", problem: "p" });
    expect(atPath).toBeInstanceOf(Error);
    expect(new PlaybookParseError({ format: "auto", problem: "the file is empty" }).message).toBe("the file is empty");
  });
});

describe("jsonPath", () => {
  it("writes identifiers with dots, other keys quoted in brackets, indexes in brackets, and the root as $", () => {
    expect(jsonPath(["skills", "abc-00001", "helpful"])).toBe(`skills["abc-00001"].helpful`);
    expect(jsonPath(["sections", "X", 2])).toBe("sections.X[2]");
    expect(jsonPath(["sections", "two words", 0])).toBe(`sections["two words"][0]`);
    expect(jsonPath([])).toBe("$");
  });
});

describe("quote and describeFound", () => {
  it("quote escapes and shortens long text", () => {
    expect(quote('say "hi"\n')).toBe(String.raw`"say \"hi\"\n"`);
    expect(quote("abcdef", 3)).toBe('"abc…"');
  });

  it("describeFound names the kind of a value that is not a string", () => {
    expect([undefined, null, "3", 3, true, [], {}].map(describeFound)).toEqual([
      "nothing",
      "null",
      '"3"',
      "3",
      "true",
      "an array",
      "an object",
    ]);
  });
});

describe("parseJsonText", () => {
  it("returns the parsed value", () => {
    expect(parseJsonText('{"a": [1]}', "kayba")).toEqual({ a: [1] });
  });

  const broken: [string, string, number, number][] = [
    ['{"a": 1,}', 'unexpected "}"', 1, 9],
    ['{\n  "a": tru\n}', 'unexpected "t"', 2, 8],
    ['{"a": "unterminated', "the text ends too early", 1, 20],
    ['{"a": "bad \\x escape"}', 'unexpected "\\\\"', 1, 12],
    ["{} {}", 'unexpected "{"', 1, 4],
    ["", "the text ends too early", 1, 1],
    ["{'a': 1}", `unexpected "'"`, 1, 2],
  ];
  for (const [text, problem, line, column] of broken) {
    it(`reports ${JSON.stringify(text)} at line ${line}, column ${column}`, () => {
      let caught: unknown;
      try {
        parseJsonText(text, "json");
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PlaybookParseError);
      expect(caught).toMatchObject({ line, column, problem: `not valid JSON: ${problem}` });
    });
  }

  it("finds the offset of the first error", () => {
    expect(findJsonSyntaxError("[1, 2, ]")).toEqual({ offset: 7, problem: 'unexpected "]"' });
  });
});
