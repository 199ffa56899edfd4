import { describe, expect, it } from "vitest";
import type { BulletDoc, PlaybookDocument } from "../document";
import { detectAceTextFormat, parseAceText, serializeAceText } from "./ace-text";
import { PlaybookParseError } from "./errors";

const MIDDLEWARE_PLAYBOOK = `## strategies_and_insights
[str-00001] helpful=5 harmful=0 :: Always verify data types before processing
[str-00002] helpful=3 harmful=1 :: Consider edge cases in financial data

## formulas_and_calculations
[cal-00001] helpful=8 harmful=0 :: NPV = Σ(Cash Flow / (1+r)^t)

## common_mistakes_to_avoid
[mis-00001] helpful=6 harmful=0 :: Don't forget timezone conversions
`;

function bullet(id: string, content: string, extra: Partial<BulletDoc> = {}): BulletDoc {
  return { id, content, counters: { helpful: 2, harmful: 1, neutral: 4 }, status: "active", ...extra };
}

function docWith(bullets: BulletDoc[], hints: PlaybookDocument["hints"] = {}): PlaybookDocument {
  return { sections: [{ name: "STRATEGIES", slug: "str", bullets }], hints };
}

function failureOf(run: () => unknown): PlaybookParseError {
  try {
    run();
  } catch (error) {
    if (error instanceof PlaybookParseError) return error;
    throw error;
  }
  throw new Error("expected a PlaybookParseError");
}

describe("parseAceText in the ace format", () => {
  it("reads the LangChain middleware playbook into sections with counters and slugs", () => {
    const doc = parseAceText(MIDDLEWARE_PLAYBOOK, "ace");
    expect(doc.sections.map((s) => [s.name, s.slug, s.bullets.length])).toEqual([
      ["strategies_and_insights", "str", 2],
      ["formulas_and_calculations", "cal", 1],
      ["common_mistakes_to_avoid", "mis", 1],
    ]);
    expect(doc.sections[0]?.bullets[1]).toEqual({
      id: "str-00002",
      content: "Consider edge cases in financial data",
      counters: { helpful: 3, harmful: 1, neutral: 0 },
      status: "active",
      blankLinesBefore: 0,
    });
    expect(doc.sections[1]?.bullets[0]?.content).toBe("NPV = Σ(Cash Flow / (1+r)^t)");
    expect(doc.lastIdNumber).toBe(2);
    expect(doc.hints).toEqual({ lineEnding: "\n", trailingNewline: true, trailingBlankLines: 0 });
  });

  it("round-trips the middleware playbook byte for byte", () => {
    expect(serializeAceText(parseAceText(MIDDLEWARE_PLAYBOOK, "ace"), "ace")).toBe(MIDDLEWARE_PLAYBOOK);
  });

  it("splits the content at the first ' :: ' after the counters, so later separators stay in the content", () => {
    const doc = parseAceText("## S\n[s-00001] helpful=1 harmful=2 :: a :: b ::c\n", "ace");
    expect(doc.sections[0]?.bullets[0]?.content).toBe("a :: b ::c");
  });

  it("keeps header text exactly, including upper case, colons and snake_case", () => {
    const text = "## STRATEGIES AND HARD RULES\n## TROUBLESHOOTING AND PITFALLS:\n## strategies_and_insights\n##  spaced  \n";
    const doc = parseAceText(text, "ace-plain");
    expect(doc.sections.map((s) => s.name)).toEqual([
      "STRATEGIES AND HARD RULES",
      "TROUBLESHOOTING AND PITFALLS:",
      "strategies_and_insights",
      " spaced  ",
    ]);
    expect(serializeAceText(doc, "ace-plain")).toBe(text);
  });

  it("reads an empty content after the separator as an empty string", () => {
    const doc = parseAceText("## S\n[s-00001] helpful=0 harmful=0 :: \n", "ace");
    expect(doc.sections[0]?.bullets[0]?.content).toBe("");
  });
});

describe("parseAceText in the ace-plain format", () => {
  it("reads [id] content bullets with counters null", () => {
    const doc = parseAceText("## OTHERS\n[misc-00003] Remember the tokens are not valid.\n", "ace-plain");
    expect(doc.sections[0]?.bullets[0]).toEqual({
      id: "misc-00003",
      content: "Remember the tokens are not valid.",
      counters: null,
      status: "active",
      blankLinesBefore: 0,
    });
    expect(doc.sections[0]?.slug).toBe("misc");
  });

  it("takes counter-like text as ordinary content", () => {
    const doc = parseAceText("## S\n[s-1] helpful=1 harmful=0 :: x\n", "ace-plain");
    expect(doc.sections[0]?.bullets[0]?.content).toBe("helpful=1 harmful=0 :: x");
  });
});

describe("awkward content", () => {
  const awkward = [
    "uses :: inside, and ends with ::",
    "[brackets] and ]stray[ and [str-00009] references",
    `"double" and 'single' quotes, \`backticks\` and \`\`\`fences\`\`\``,
    String.raw`a literal backslash-n \n stays two characters`,
    "unicode: Σ → ≤14 — café 日本語 🚀",
    "  leading and trailing spaces  ",
    "helpful=3 harmful=1 :: counters-like text",
  ];

  for (const format of ["ace", "ace-plain"] as const) {
    it(`round-trips through the ${format} format unchanged`, () => {
      const doc = docWith(awkward.map((content, i) => bullet(`str-0000${i + 1}`, content)));
      const back = parseAceText(serializeAceText(doc, format), format);
      expect(back.sections[0]?.bullets.map((b) => b.content)).toEqual(awkward);
    });
  }

  it("never unescapes a literal backslash-n", () => {
    const text = "## S\n[s-00001] newline(\\n) here\n";
    const doc = parseAceText(text, "ace-plain");
    expect(doc.sections[0]?.bullets[0]?.content).toBe("newline(\\n) here");
    expect(serializeAceText(doc, "ace-plain")).toBe(text);
  });
});

describe("multi-line content", () => {
  const content = "first line\n  indented code\n\n## not a header\n[not-00001] not a bullet\nlast";

  it("is written with continuation lines indented by two spaces", () => {
    expect(serializeAceText(docWith([bullet("str-00001", content)]), "ace")).toBe(
      "## STRATEGIES\n[str-00001] helpful=2 harmful=1 :: first line\n    indented code\n  \n  ## not a header\n  [not-00001] not a bullet\n  last\n",
    );
  });

  for (const format of ["ace", "ace-plain"] as const) {
    it(`round-trips through the ${format} format`, () => {
      const text = serializeAceText(docWith([bullet("str-00001", content), bullet("str-00002", "next")]), format);
      const doc = parseAceText(text, format);
      expect(doc.sections[0]?.bullets.map((b) => b.content)).toEqual([content, "next"]);
      expect(serializeAceText(doc, format)).toBe(text);
    });
  }

  it("strips exactly the two-space indent from a continuation line", () => {
    const doc = parseAceText("## S\n[s-00001] a\n  b\n     c\n  \n", "ace-plain");
    expect(doc.sections[0]?.bullets[0]?.content).toBe("a\nb\n   c\n");
  });
});

describe("layout", () => {
  it("keeps blank lines before headers and bullets, trailing blank lines and a missing final newline", () => {
    const text = "\n## A\n\n\n[a-00001] one\n[a-00002] two\n\n[a-00003] three\n\n\n\n## B\n## C\n[c-00004] four\n\n";
    const doc = parseAceText(text, "ace-plain");
    expect(doc.sections.map((s) => s.blankLinesBefore)).toEqual([1, 3, 0]);
    expect(doc.sections[0]?.bullets.map((b) => b.blankLinesBefore)).toEqual([2, 0, 1]);
    expect(doc.hints).toMatchObject({ trailingNewline: true, trailingBlankLines: 1 });
    expect(serializeAceText(doc, "ace-plain")).toBe(text);

    const unterminated = "## A\n[a-00001] one";
    expect(parseAceText(unterminated, "ace-plain").hints.trailingNewline).toBe(false);
    expect(serializeAceText(parseAceText(unterminated, "ace-plain"), "ace-plain")).toBe(unterminated);
  });

  it("keeps CRLF line endings, with multi-line content too", () => {
    const text = "## A\r\n[a-00001] helpful=1 harmful=0 :: one\r\n  more\r\n\r\n## B\r\n";
    const doc = parseAceText(text, "ace");
    expect(doc.hints.lineEnding).toBe("\r\n");
    expect(doc.sections[0]?.bullets[0]?.content).toBe("one\nmore");
    expect(serializeAceText(doc, "ace")).toBe(text);
  });

  it("keeps a stray carriage return inside a line of an LF file", () => {
    const text = "## A\n[a-00001] one\rtwo\n";
    expect(serializeAceText(parseAceText(text, "ace-plain"), "ace-plain")).toBe(text);
  });

  it("keeps empty sections in order", () => {
    const doc = parseAceText("## A\n## B\n[b-00001] x\n## C\n", "ace-plain");
    expect(doc.sections.map((s) => [s.name, s.bullets.length])).toEqual([
      ["A", 0],
      ["B", 1],
      ["C", 0],
    ]);
  });

  it("separates sections by one blank line when the document carries no layout", () => {
    const doc: PlaybookDocument = {
      sections: [
        { name: "A", slug: "a", bullets: [bullet("a-00001", "one")] },
        { name: "B", slug: "b", bullets: [] },
      ],
      hints: {},
    };
    expect(serializeAceText(doc, "ace")).toBe("## A\n[a-00001] helpful=2 harmful=1 :: one\n\n## B\n");
  });
});

describe("serializeAceText", () => {
  it("writes helpful=0 harmful=0 for a bullet without counters in the ace format", () => {
    expect(serializeAceText(docWith([bullet("str-00001", "x", { counters: null })]), "ace")).toBe(
      "## STRATEGIES\n[str-00001] helpful=0 harmful=0 :: x\n",
    );
  });

  it("drops counters in the ace-plain format, and never writes neutral counts", () => {
    const doc = docWith([bullet("str-00001", "x")]);
    expect(serializeAceText(doc, "ace-plain")).toBe("## STRATEGIES\n[str-00001] x\n");
    expect(serializeAceText(doc, "ace")).not.toContain("neutral");
  });

  it("skips archived bullets unless includeArchived is set", () => {
    const doc = docWith([bullet("str-00001", "kept"), bullet("str-00002", "gone", { status: "archived" })]);
    expect(serializeAceText(doc, "ace-plain")).toBe("## STRATEGIES\n[str-00001] kept\n");
    expect(serializeAceText(doc, "ace-plain", { includeArchived: true })).toBe(
      "## STRATEGIES\n[str-00001] kept\n[str-00002] gone\n",
    );
  });

  it("refuses ids and section names the text format cannot hold", () => {
    expect(() => serializeAceText(docWith([bullet("str 1", "x")]), "ace")).toThrow(/bullet id "str 1"/);
    const badSection: PlaybookDocument = { sections: [{ name: "a\nb", slug: "a", bullets: [] }], hints: {} };
    expect(() => serializeAceText(badSection, "ace")).toThrow(/section name "a\\nb"/);
  });
});

describe("malformed text", () => {
  const cases: { title: string; format: "ace" | "ace-plain"; text: string; message: string; line?: number }[] = [
    { title: "an empty file", format: "ace", text: "", message: "the file is empty" },
    { title: "a file of blank lines", format: "ace-plain", text: "\n\n", message: "the file has only blank lines" },
    {
      title: "a bullet before any header",
      format: "ace-plain",
      text: "[a-00001] x\n## A\n",
      line: 1,
      message: `Line 1: bullet [a-00001] comes before any "## <section>" header`,
    },
    {
      title: "a line that is neither header, bullet, continuation nor blank",
      format: "ace-plain",
      text: "## A\n[a-00001] x\n\nfree text\n",
      line: 4,
      message: `Line 4: expected a "## <section>" header or a "[id] …" bullet, found "free text"`,
    },
    {
      title: "an indented line after a blank line",
      format: "ace-plain",
      text: "## A\n[a-00001] x\n\n  more\n",
      line: 4,
      message: `Line 4: an indented line must continue the bullet on the line above it, found "  more"`,
    },
    {
      title: "a continuation indented by a tab",
      format: "ace-plain",
      text: "## A\n[a-00001] x\n\tmore\n",
      line: 3,
      message: `Line 3: continuation lines are indented by two spaces, found "\\tmore"`,
    },
    { title: "an empty header", format: "ace", text: "## \n", line: 1, message: `Line 1: a section header needs a name, found "## "` },
    {
      title: "a header without a space",
      format: "ace",
      text: "##A\n",
      line: 1,
      message: `Line 1: expected a section header "## <name>", found "##A"`,
    },
    {
      title: "an empty id",
      format: "ace-plain",
      text: "## A\n[] x\n",
      line: 2,
      message: `Line 2: a bullet needs an id inside [ ], found "[] x"`,
    },
    {
      title: "an id with whitespace",
      format: "ace-plain",
      text: "## A\n[str 1] x\n",
      line: 2,
      message: `Line 2: bullet id "str 1" contains whitespace, found "[str 1] x"`,
    },
    {
      title: "an id without a closing bracket",
      format: "ace-plain",
      text: "## A\n[str-00001 x\n",
      line: 2,
      message: `Line 2: a bullet id needs a closing "]", found "[str-00001 x"`,
    },
    {
      title: "no space after the id",
      format: "ace-plain",
      text: "## A\n[a-00001]x\n",
      line: 2,
      message: `Line 2: expected a space after [a-00001], found "x"`,
    },
    {
      title: "a negative counter",
      format: "ace",
      text: "## A\n[a-00001] helpful=-1 harmful=0 :: x\n",
      line: 2,
      message: `Line 2: helpful of [a-00001]: expected a whole number ≥ 0, found "-1"`,
    },
    {
      title: "a counter that is not a number",
      format: "ace",
      text: "## A\n[a-00001] helpful=3 harmful=abc :: x\n",
      line: 2,
      message: `Line 2: harmful of [a-00001]: expected a whole number ≥ 0, found "abc"`,
    },
    {
      title: "counters without the ' :: ' separator",
      format: "ace",
      text: "## A\n\n\n[str-00003] helpful=x harmful=0\n",
      line: 4,
      message: `Line 4: expected "helpful=<n> harmful=<n> :: <content>" after [str-00003], found "helpful=x harmful=0"`,
    },
    {
      title: "a bullet without counters in the ace format",
      format: "ace",
      text: "## A\n[a-00001] helpful=1 harmful=0 :: x\n[a-00002] plain\n",
      line: 3,
      message: `Line 3: expected "helpful=<n> harmful=<n> :: <content>" after [a-00002], found "plain"`,
    },
    {
      title: "a duplicate id, naming both lines",
      format: "ace-plain",
      text: "## A\n[a-00001] x\n## B\n[a-00001] y\n",
      line: 4,
      message: "Line 4: bullet id [a-00001] appears twice (lines 2 and 4)",
    },
    {
      title: "a duplicate section header, naming both lines",
      format: "ace-plain",
      text: "## A\n\n## B\n\n## A\n",
      line: 5,
      message: `Line 5: section "## A" appears twice (lines 1 and 5)`,
    },
  ];

  for (const { title, format, text, message, line } of cases) {
    it(`rejects ${title}`, () => {
      const error = failureOf(() => parseAceText(text, format));
      expect(error.message).toBe(message);
      expect(error.line).toBe(line);
      expect(error.format).toBe(format);
    });
  }

  it("counts lines from 1 in CRLF files too", () => {
    expect(failureOf(() => parseAceText("## A\r\n\r\noops\r\n", "ace")).line).toBe(3);
  });
});

describe("detectAceTextFormat", () => {
  it("says ace when any bullet has counters, ace-plain for other headers or bullets, null otherwise", () => {
    expect(detectAceTextFormat("## A\n[a-00001] plain\n[a-00002] helpful=1 harmful=0 :: x\n")).toBe("ace");
    expect(detectAceTextFormat("## A\n[a-00001] plain\n")).toBe("ace-plain");
    expect(detectAceTextFormat("## Only a header\n")).toBe("ace-plain");
    expect(detectAceTextFormat("just prose\n")).toBeNull();
  });
});
