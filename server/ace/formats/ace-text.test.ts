import { describe, expect, it } from "vitest";
import type { BulletDoc, PlaybookDocument } from "../document";
import { bulletLines, detectAceTextFormat, parseAceText, readAceText, serializeAceText } from "./ace-text";
import { PlaybookExportError, PlaybookParseError } from "./errors";

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

  it("is written with continuation lines indented by two spaces, a backslash before what the peers would take for a header or bullet", () => {
    expect(serializeAceText(docWith([bullet("str-00001", content)]), "ace")).toBe(
      "## STRATEGIES\n[str-00001] helpful=2 harmful=1 :: first line\n    indented code\n  \n  \\## not a header\n  \\[not-00001] not a bullet\n  last\n",
    );
  });

  it("escapes lines that already start with backslashes before a header or bullet, so they read back unchanged", () => {
    const tricky = "x\n\\[a] one backslash\n\\\\## two\n  [b] indented\n\\ plain backslash\n\\[ display math \\]";
    const text = serializeAceText(docWith([bullet("str-00001", tricky)]), "ace-plain");
    expect(text.split("\n").slice(2, 6)).toEqual([
      "  \\\\[a] one backslash",
      "  \\\\\\## two",
      "  \\  [b] indented",
      "  \\ plain backslash",
    ]);
    expect(parseAceText(text, "ace-plain").sections[0]?.bullets[0]?.content).toBe(tricky);
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
    expect(serializeAceText(doc, "ace-plain", { includeArchived: true })).toBe("## STRATEGIES\n[str-00001] kept\n[str-00002] gone\n");
  });

  it("refuses ids and section names the text format cannot hold, naming them all and the formats that keep them", () => {
    const doc: PlaybookDocument = {
      sections: [
        { name: "a\nb", slug: "a", bullets: [bullet("x]y", "x"), bullet("ok-00001", "y"), bullet("", "z")] },
        { name: "", slug: "s", bullets: [] },
      ],
      hints: {},
    };
    expect(() => serializeAceText(doc, "ace")).toThrow(PlaybookExportError);
    expect(() => serializeAceText(doc, "ace")).toThrow(
      `Cannot write this playbook as ACE text: bullet ids "x]y" and "" cannot stand inside "[ ]" (empty, or with "]" or a line break); ` +
        `section names "a\\nb" and "" cannot be a "## <name>" header (empty, or with a line break; only the first section may be unnamed). ` +
        `Export it as kayba or ACE Studio JSON, which keep them.`,
    );
  });

  it("writes ids with spaces, which the peers' parsers read back whole", () => {
    const text = serializeAceText(docWith([bullet("my skill", "x")]), "ace");
    expect(text).toBe("## STRATEGIES\n[my skill] helpful=2 harmful=1 :: x\n");
    expect(parseAceText(text, "ace").sections[0]?.bullets[0]?.id).toBe("my skill");
  });

  it("never refuses to write a line for a compiled context or a token count, whatever the id", () => {
    expect(bulletLines({ id: "a]b", content: "x", counters: null }, "ace")).toEqual(["[a]b] helpful=0 harmful=0 :: x"]);
  });
});

describe("malformed text", () => {
  const orphan = (found: string, where = "above it in its section") =>
    `expected a "## <section>" header or a "[id] …" bullet, found ${found} (a line that is neither continues the bullet ${where}, and there is none)`;
  const cases: { title: string; format: "ace" | "ace-plain"; text: string; message: string; line?: number }[] = [
    {
      title: "a line that is neither header nor bullet, with no bullet above it to continue",
      format: "ace-plain",
      text: "## A\nfree text\n",
      line: 2,
      message: `Line 2: ${orphan('"free text"')}`,
    },
    {
      title: "a title line before everything",
      format: "ace",
      text: "# My playbook\n## A\n",
      line: 1,
      message: `Line 1: ${orphan('"# My playbook"', "before it")}`,
    },
    { title: "an empty header", format: "ace", text: "## \n", line: 1, message: `Line 1: a section header needs a name, found "## "` },
    { title: "a bare ##", format: "ace", text: "##\n", line: 1, message: `Line 1: a section header needs a name, found "##"` },
    {
      title: "an empty id with no bullet above",
      format: "ace-plain",
      text: "## A\n[] x\n",
      line: 2,
      message: `Line 2: ${orphan('"[] x"')}`,
    },
    {
      title: "an id without a closing bracket with no bullet above",
      format: "ace-plain",
      text: "## A\n[str-00001 x\n",
      line: 2,
      message: `Line 2: ${orphan('"[str-00001 x"')}`,
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
      title: "a bullet without counters in the ace format, with no bullet above",
      format: "ace",
      text: "## A\n[a-00002] plain\n",
      line: 2,
      message: `Line 2: expected "helpful=<n> harmful=<n> :: <content>" after [a-00002], found "plain"`,
    },
    {
      title: "counters that do not parse on an indented line",
      format: "ace",
      text: "## A\n[a-00001] helpful=1 harmful=0 :: x\n  [a-00002] helpful=two harmful=0 :: y\n",
      line: 3,
      message: `Line 3: helpful of [a-00002]: expected a whole number ≥ 0, found "two"`,
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

// Issue 12, items 1-5 and 10: what the peers' own code writes, read as their parsers read it.
describe("files the peers' code writes", () => {
  const contents = (text: string, format: "ace" | "ace-plain" = "ace") =>
    parseAceText(text, format).sections.map((s) => [s.name, s.bullets.map((b) => [b.id, b.content, b.counters?.helpful ?? null])]);

  it("keeps the raw second line of a curator ADD as content of its bullet, and says so", () => {
    // apply_curator_operations writes an ADD's content as is, line breaks included.
    const text =
      "## FORMULAS\n[calc-00002] helpful=2 harmful=0 :: NPV = sum of CF_t / (1+r)^t\nDiscount each year separately.\n\n    indented code\n## OTHERS\n";
    const { document, warnings } = readAceText(text, "ace");
    expect(document.sections[0]?.bullets[0]?.content).toBe(
      "NPV = sum of CF_t / (1+r)^t\nDiscount each year separately.\n\n    indented code",
    );
    expect(warnings).toEqual([expect.stringMatching(/^Lines 3 and 5: read as more lines of the bullet above them \(\[calc-00002\]\)\./)]);
    // Written back in ACE Studio's form, which reads back to the same content.
    const back = serializeAceText(document, "ace");
    expect(back).toBe(
      "## FORMULAS\n[calc-00002] helpful=2 harmful=0 :: NPV = sum of CF_t / (1+r)^t\n  Discount each year separately.\n  \n      indented code\n## OTHERS\n",
    );
    expect(parseAceText(back, "ace").sections[0]?.bullets[0]?.content).toBe(document.sections[0]?.bullets[0]?.content);
  });

  it("keeps a raw line that starts like a bullet without counters as content in the ace format, as the ACE authors' parser skips it", () => {
    const text = "## MISTAKES\n[err-00003] helpful=0 harmful=1 :: Quote the rule:\n[fin-00001] style citations help.\n";
    const { document, warnings } = readAceText(text, "ace");
    expect(contents(text)).toEqual([["MISTAKES", [["err-00003", "Quote the rule:\n[fin-00001] style citations help.", 0]]]]);
    expect(warnings[1]).toMatch(/^Line 3: starts like a bullet but has no counters/);
    expect(serializeAceText(document, "ace")).toContain("\n  \\[fin-00001] style citations help.\n");
  });

  it("reads bullets before any header into an unnamed first section that is written back without a header", () => {
    // The curator's ADD into an empty playbook.
    const text =
      "[gene-00001] helpful=1 harmful=0 :: Check units.\n[misc-00002] helpful=0 harmful=0 :: Growth = (new - old) / old\n\n## LATER\n[lat-00003] helpful=0 harmful=0 :: x";
    const { document, warnings } = readAceText(text, "ace");
    expect(document.sections.map((s) => [s.name, s.bullets.length])).toEqual([
      ["", 2],
      ["LATER", 1],
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^Lines 1-2: bullets before the first "## " header were read into an unnamed first section/),
    ]);
    expect(serializeAceText(document, "ace")).toBe(text);
  });

  it("accepts an empty last bullet stripped of its trailing space, and writes it back so", () => {
    const text = "## OTHERS\n[misc-00005] helpful=0 harmful=0 ::";
    const { document, warnings } = readAceText(text, "ace");
    expect(document.sections[0]?.bullets[0]).toMatchObject({ id: "misc-00005", content: "" });
    expect(document.hints.trimmedEnd).toBe(true);
    expect(warnings).toEqual([]);
    expect(serializeAceText(document, "ace")).toBe(text);
    // Elsewhere it is only spaced differently: read, and written with the space.
    const inside = readAceText("## A\n[a-00001] helpful=0 harmful=0 ::\n[a-00002] helpful=0 harmful=0 :: x\n", "ace");
    expect(inside.warnings).toEqual([expect.stringMatching(/^Line 2: bullets spaced differently/)]);
    expect(serializeAceText(inside.document, "ace")).toBe("## A\n[a-00001] helpful=0 harmful=0 :: \n[a-00002] helpful=0 harmful=0 :: x\n");
  });

  it("reads an indented bullet line as a bullet, as the peers do, in both text formats", () => {
    const text = "## STRATEGIES\n[str-00001] helpful=1 harmful=0 :: a\n  [str-00002] helpful=2 harmful=0 :: b\n";
    expect(contents(text)).toEqual([
      [
        "STRATEGIES",
        [
          ["str-00001", "a", 1],
          ["str-00002", "b", 2],
        ],
      ],
    ]);
    expect(readAceText(text, "ace").warnings).toEqual([expect.stringMatching(/^Line 3: indented bullet lines were read as bullets/)]);
    expect(contents("## S\n[s-00001] a\n  [s-00002] b\n", "ace-plain")).toEqual([
      [
        "S",
        [
          ["s-00001", "a", null],
          ["s-00002", "b", null],
        ],
      ],
    ]);
  });

  it("keeps reading continuation lines written the old way, two spaces and no backslash", () => {
    const text = "## S\n[s-00001] helpful=0 harmful=0 :: first\n  second\n  # a comment, not a header\n";
    expect(parseAceText(text, "ace").sections[0]?.bullets[0]?.content).toBe("first\nsecond\n# a comment, not a header");
  });

  it("reads counters spaced with several spaces, tabs or none, as the peers' regular expression does", () => {
    const text =
      "## S\n[s-00001] helpful=1  harmful=0 :: two spaces\n[s-00002] helpful=3\tharmful=1\t::\ttabs\n[s-00003]helpful=0 harmful=2::none\n";
    expect(detectAceTextFormat(text)).toBe("ace");
    expect(contents(text)).toEqual([
      [
        "S",
        [
          ["s-00001", "two spaces", 1],
          ["s-00002", "tabs", 3],
          ["s-00003", "none", 0],
        ],
      ],
    ]);
    const { document, warnings } = readAceText(text, "ace");
    expect(warnings).toEqual([
      expect.stringMatching(/^Lines 2-4: bullets spaced differently from "\[id\] helpful=H harmful=K :: content"/),
    ]);
    expect(serializeAceText(document, "ace")).toBe(
      "## S\n[s-00001] helpful=1 harmful=0 :: two spaces\n[s-00002] helpful=3 harmful=1 :: tabs\n[s-00003] helpful=0 harmful=2 :: none\n",
    );
  });

  it("reads [id]content without a space, and headers spelled ##name, as the peers read them", () => {
    const { document, warnings } = readAceText("##A\n[a-00001]x\n  ## B  \n[b-00002] y\n", "ace-plain");
    expect(document.sections.map((s) => [s.name, s.bullets.map((b) => b.content)])).toEqual([
      ["A", ["x"]],
      ["B", ["y"]],
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^Line 2: bullets spaced differently/),
      expect.stringMatching(/^Lines 1 and 3: section headers written differently/),
    ]);
    expect(serializeAceText(document, "ace-plain")).toBe("## A\n[a-00001] x\n## B\n[b-00002] y\n");
  });

  it("reads ids with spaces whole, as the peers' [^\\]]+ does", () => {
    expect(contents("## A\n[my skill] plain\n", "ace-plain")).toEqual([["A", [["my skill", "plain", null]]]]);
  });

  it("reads an empty file, or one of blank lines, as an empty playbook and writes it back as it was", () => {
    for (const text of ["", "\n\n", "\r\n"]) {
      const doc = parseAceText(text, "ace");
      expect(doc.sections).toEqual([]);
      expect(serializeAceText(doc, "ace")).toBe(text);
    }
  });
});
