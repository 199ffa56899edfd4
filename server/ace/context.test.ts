import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compileContext, contextBulletTokens, contextSectionsOf, type ContextBullet, type ContextSection } from "./context";
import { createPlaybookState } from "./delta";
import type { PlaybookDocument } from "./document";
import type { BulletState } from "./history";
import { parsePlaybook } from "./formats";
import { parseAceText } from "./formats/ace-text";
import { countBulletTokens, countSectionTokens, countTokens } from "./tokens";
import { PLAYBOOK_FIXTURES_DIR } from "@/server/testing/playbook-files";

const FIXTURES = PLAYBOOK_FIXTURES_DIR;
const fixtureNames = readdirSync(FIXTURES).filter((name) => /\.(txt|json)$/.test(name) && !name.endsWith(".peer.json"));

/** A bullet with its token count stored, as the database holds it. */
function bullet(externalId: string, content: string, helpful = 0, harmful = 0, countersKnown = true): ContextBullet {
  const row = { externalId, content, helpful, harmful, neutral: 0, countersKnown, tokenCount: -1 };
  return { ...row, tokenCount: countBulletTokens(row) };
}

function sectionsOf(document: PlaybookDocument): ContextSection[] {
  return document.sections.map((section) => ({
    name: section.name,
    bullets: section.bullets
      .filter((b) => b.status === "active")
      .map((b) => bullet(b.id, b.content, b.counters?.helpful ?? 0, b.counters?.harmful ?? 0, b.counters !== null)),
  }));
}

const UNLIMITED = 100_000_000;

const playbook: ContextSection[] = [
  {
    name: "strategies_and_insights",
    bullets: [
      bullet("str-00001", "Verify data types before processing.", 3, 0),
      bullet("str-00002", "Retry failed calls at once without backoff.", 1, 4),
      bullet("str-00003", "Paginate through every page of results.", 0, 0),
    ],
  },
  { name: "formulas_and_calculations", bullets: [] },
  {
    name: "common_mistakes_to_avoid",
    bullets: [
      bullet("mis-00004", "Convert time zones before comparing dates.", 5, 0),
      bullet("mis-00005", "Check the sign of every amount.", 3, 0),
    ],
  },
];

describe("compileContext", () => {
  it("ranks by helpful − harmful with ties in playbook order, keeping sections in playbook order", () => {
    const result = compileContext(playbook, { tokenBudget: UNLIMITED, includeCounters: true });
    expect(result.includedBullets).toEqual(["mis-00004", "str-00001", "mis-00005", "str-00003", "str-00002"]);
    expect(result.omittedBullets).toEqual([]);
    expect(result.text).toBe(
      [
        "## strategies_and_insights",
        "[str-00001] helpful=3 harmful=0 :: Verify data types before processing.",
        "[str-00003] helpful=0 harmful=0 :: Paginate through every page of results.",
        "[str-00002] helpful=1 harmful=4 :: Retry failed calls at once without backoff.",
        "## common_mistakes_to_avoid",
        "[mis-00004] helpful=5 harmful=0 :: Convert time zones before comparing dates.",
        "[mis-00005] helpful=3 harmful=0 :: Check the sign of every amount.",
        "",
      ].join("\n"),
    );
    expect(result.tokens).toBe(countTokens(result.text));
  });

  it("keeps unused bullets, ranked above the harmful ones, when the budget cuts", () => {
    const all = compileContext(playbook, { tokenBudget: UNLIMITED, includeCounters: true });
    const withoutHarmful = compileContext(playbook, {
      tokenBudget: all.tokens - contextBulletTokens(playbook[0]!.bullets[1]!, true),
      includeCounters: true,
    });
    expect(withoutHarmful.includedBullets).toContain("str-00003");
    expect(withoutHarmful.omittedBullets).toEqual(["str-00002"]);
  });

  it("cuts the budget exactly: a budget one token short of the next bullet stops before it", () => {
    const header = (name: string) => countSectionTokens(name);
    const [str1] = playbook[0]!.bullets;
    const [mis4] = playbook[2]!.bullets;
    const twoBullets =
      header("common_mistakes_to_avoid") +
      contextBulletTokens(mis4!, true) +
      header("strategies_and_insights") +
      contextBulletTokens(str1!, true);

    const exact = compileContext(playbook, { tokenBudget: twoBullets, includeCounters: true });
    expect(exact.includedBullets).toEqual(["mis-00004", "str-00001"]);
    expect(exact.tokens).toBe(twoBullets);
    expect(countTokens(exact.text)).toBe(twoBullets);

    const short = compileContext(playbook, { tokenBudget: twoBullets - 1, includeCounters: true });
    expect(short.includedBullets).toEqual(["mis-00004"]);
    expect(short.omittedBullets).toEqual(["str-00001", "mis-00005", "str-00003", "str-00002"]);
    expect(short.text).not.toContain("## strategies_and_insights");
  });

  it("stops at the first bullet that does not fit, even when a shorter lower-ranked one would", () => {
    const sections: ContextSection[] = [
      { name: "s", bullets: [bullet("s-00001", "long ".repeat(200), 9, 0), bullet("s-00002", "short", 1, 0)] },
    ];
    const result = compileContext(sections, { tokenBudget: 50, includeCounters: true });
    expect(result.includedBullets).toEqual([]);
    expect(result.omittedBullets).toEqual(["s-00001", "s-00002"]);
    expect(result).toMatchObject({ text: "", tokens: 0 });
  });

  it("leaves counters out on request, with the token count of the shorter lines", () => {
    const result = compileContext(playbook, { tokenBudget: UNLIMITED, includeCounters: false });
    expect(result.text.split("\n").slice(0, 2)).toEqual(["## strategies_and_insights", "[str-00001] Verify data types before processing."]);
    expect(result.text).not.toContain("helpful=");
    expect(result.tokens).toBe(countTokens(result.text));
    const withCounters = compileContext(playbook, { tokenBudget: UNLIMITED, includeCounters: true });
    expect(result.tokens).toBeLessThan(withCounters.tokens);
  });

  it("fits more bullets into the same budget without counters", () => {
    const budget = compileContext(playbook, { tokenBudget: UNLIMITED, includeCounters: false }).tokens;
    expect(compileContext(playbook, { tokenBudget: budget, includeCounters: false }).omittedBullets).toEqual([]);
    expect(compileContext(playbook, { tokenBudget: budget, includeCounters: true }).omittedBullets.length).toBeGreaterThan(0);
  });

  it("gives an empty text for an empty playbook and for a zero budget", () => {
    expect(compileContext([], { tokenBudget: 1_000, includeCounters: true })).toEqual({
      text: "",
      tokens: 0,
      includedBullets: [],
      omittedBullets: [],
    });
    expect(compileContext([{ name: "empty", bullets: [] }], { tokenBudget: 1_000, includeCounters: false }).text).toBe("");
    expect(compileContext(playbook, { tokenBudget: 0, includeCounters: true }).omittedBullets).toHaveLength(5);
  });

  it("counts bullets whose token count was never stored", () => {
    const uncounted = playbook.map((section) => ({
      ...section,
      bullets: section.bullets.map((b) => ({ ...b, tokenCount: -1 })),
    }));
    for (const includeCounters of [true, false]) {
      expect(compileContext(uncounted, { tokenBudget: UNLIMITED, includeCounters })).toEqual(
        compileContext(playbook, { tokenBudget: UNLIMITED, includeCounters }),
      );
    }
  });

  it("writes bullets without known counters as 0/0 and ranks them with the unused ones", () => {
    const sections: ContextSection[] = [
      { name: "s", bullets: [bullet("s-00001", "untracked", 7, 0, false), bullet("s-00002", "rated", 1, 0)] },
    ];
    const result = compileContext(sections, { tokenBudget: UNLIMITED, includeCounters: true });
    expect(result.includedBullets).toEqual(["s-00002", "s-00001"]);
    expect(result.text).toContain("[s-00001] helpful=0 harmful=0 :: untracked");
  });

  it("keeps multi-line content as indented continuation lines and counts it exactly", () => {
    const sections: ContextSection[] = [
      { name: "code", bullets: [bullet("cod-00001", "Use this template:\n```python\nfor page in pages:\n    fetch(page)\n```", 2, 0)] },
    ];
    for (const includeCounters of [true, false]) {
      const result = compileContext(sections, { tokenBudget: UNLIMITED, includeCounters });
      expect(result.text).toContain("\n  ```python\n  for page in pages:\n      fetch(page)\n");
      expect(result.tokens).toBe(countTokens(result.text));
    }
  });
});

describe("compileContext with counts kept by the caller", () => {
  it("asks tokensWithCounters for the bullets the cut reaches and nothing else, and uses its answer", () => {
    const asked: string[] = [];
    const tokensWithCounters = (b: ContextBullet) => {
      asked.push(b.externalId);
      return countBulletTokens(b);
    };
    const whole = compileContext(playbook, { tokenBudget: UNLIMITED, includeCounters: true });
    const budget = whole.tokens - 1;
    const result = compileContext(playbook, { tokenBudget: budget, includeCounters: true, tokensWithCounters });
    expect(result).toEqual(compileContext(playbook, { tokenBudget: budget, includeCounters: true }));
    // The last-ranked bullet is asked for and does not fit; nothing ranked after it is asked for.
    expect(asked).toEqual(whole.includedBullets);

    const inflated = compileContext(playbook, { tokenBudget: UNLIMITED, includeCounters: true, tokensWithCounters: () => 1_000 });
    expect(inflated.tokens).toBe(5_000 + countSectionTokens("strategies_and_insights") + countSectionTokens("common_mistakes_to_avoid"));
  });

  it("takes a playbook state's active bullets by section in reading order", () => {
    const state = createPlaybookState(
      [
        { id: "s2", name: "second", slug: "sec", position: 1 },
        { id: "s1", name: "first", slug: "fir", position: 0 },
      ],
      [
        { ...stateBullet("fir-00002", "s1", 1), content: "Second in first." },
        { ...stateBullet("fir-00001", "s1", 0), content: "First in first." },
        { ...stateBullet("fir-00003", "s1", 2), status: "archived" as const },
        stateBullet("sec-00004", "s2", 0),
      ],
    );
    expect(contextSectionsOf(state).map((section) => [section.name, section.bullets.map((b) => b.externalId)])).toEqual([
      ["first", ["fir-00001", "fir-00002"]],
      ["second", ["sec-00004"]],
    ]);
  });
});

function stateBullet(externalId: string, sectionId: string, position: number): BulletState {
  return {
    externalId,
    sectionId,
    content: `Bullet ${externalId}.`,
    helpful: 0,
    harmful: 0,
    neutral: 0,
    countersKnown: true,
    status: "active",
    position,
    archivedReason: null,
    mergedInto: null,
  };
}

describe("token counts without counters", () => {
  it("equal a direct count of the plain line, whatever the content starts with", () => {
    const contents = [
      "",
      " leading space",
      "  two spaces",
      "`code` first",
      "3 numbers first",
      "12345 digits",
      ":: separator-like",
      "[str-00009] a cited id",
      "ünïcödé 日本語 text",
      "ends with a space ",
      "trailing punctuation.",
      "line one\nline two",
      "<|endoftext|> special text",
    ];
    const counters: [number, number][] = [
      [0, 0],
      [7, 2],
      [123, 999],
      [1_000, 12_345],
    ];
    for (const content of contents) {
      for (const [helpful, harmful] of counters) {
        const b = bullet("str-00001", content, helpful, harmful);
        const plain = compileContext([{ name: "s", bullets: [b] }], { tokenBudget: UNLIMITED, includeCounters: false });
        expect(contextBulletTokens(b, false), JSON.stringify({ content, helpful, harmful })).toBe(
          countTokens(plain.text) - countSectionTokens("s"),
        );
      }
    }
  });
});

describe("published playbooks", () => {
  it("are all found", () => {
    expect(fixtureNames.length).toBeGreaterThanOrEqual(3);
  });

  for (const name of fixtureNames) {
    const { document } = parsePlaybook(readFileSync(path.join(FIXTURES, name), "utf8"), "auto");
    const sections = sectionsOf(document);
    const active = sections.reduce((sum, section) => sum + section.bullets.length, 0);

    it(`${name}: the whole playbook compiles to ACE text that parses back to the same bullets`, () => {
      for (const includeCounters of [true, false]) {
        const result = compileContext(sections, { tokenBudget: UNLIMITED, includeCounters });
        expect(result.includedBullets).toHaveLength(active);
        expect(result.tokens).toBe(countTokens(result.text));
        const reparsed = parseAceText(result.text, includeCounters ? "ace" : "ace-plain");
        const byId = new Map(reparsed.sections.flatMap((s) => s.bullets.map((b) => [b.id, { section: s.name, content: b.content }])));
        for (const section of sections) {
          for (const b of section.bullets) expect(byId.get(b.externalId)).toEqual({ section: section.name, content: b.content });
        }
      }
    });

    it(`${name}: half the tokens gives a ranked prefix whose text fits exactly`, () => {
      for (const includeCounters of [true, false]) {
        const whole = compileContext(sections, { tokenBudget: UNLIMITED, includeCounters });
        const half = compileContext(sections, { tokenBudget: Math.floor(whole.tokens / 2), includeCounters });
        expect(half.tokens).toBeLessThanOrEqual(Math.floor(whole.tokens / 2));
        expect(half.tokens).toBe(countTokens(half.text));
        expect([...half.includedBullets, ...half.omittedBullets]).toEqual(whole.includedBullets);
        expect(half.omittedBullets.length).toBeGreaterThan(0);
      }
    });
  }

  it("the 318-bullet AppWorld playbook without counters costs exactly its ace-plain text", () => {
    const { document } = parsePlaybook(
      readFileSync(path.join(FIXTURES, "ace-appworld__appworld_offline_trained_no_gt_playbook.txt"), "utf8"),
      "auto",
    );
    const result = compileContext(sectionsOf(document), { tokenBudget: UNLIMITED, includeCounters: false });
    expect(result.includedBullets).toHaveLength(318);
    expect(result.text.startsWith("## STRATEGIES AND HARD RULES\n[shr-00001] Make sure to end code blocks")).toBe(true);
    expect(result.tokens).toBe(countTokens(result.text));
  });
});
