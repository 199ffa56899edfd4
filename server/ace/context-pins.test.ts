// Pinned bullets in the compiled context and the coding-agent files: first, counted, never cut silently.
import { describe, expect, it } from "vitest";
import { compileContext, PinnedBudgetError, type ContextBullet, type ContextSection } from "./context";
import { AgentBudgetError, writeAgentInstructions } from "./formats/agent-instructions";
import { countBulletTokens, countSectionTokens } from "./tokens";

function bullet(externalId: string, content: string, helpful: number, harmful: number, pinned = false): ContextBullet {
  const row = { externalId, content, helpful, harmful, neutral: 0, countersKnown: true };
  return { ...row, tokenCount: countBulletTokens(row), ...(pinned ? { pinned: true } : {}) };
}

const sections: ContextSection[] = [
  {
    name: "strategies",
    bullets: [
      bullet("str-00001", "Verify data types before processing.", 30, 0),
      bullet("str-00002", "Never approve a refund without checking the order.", 0, 5, true),
      bullet("str-00003", "Paginate through every page of results.", 10, 0),
    ],
  },
  { name: "mistakes", bullets: [bullet("mis-00004", "Do not email customer records outside the company.", 0, 0, true)] },
];

const UNLIMITED = 1_000_000;
const pinnedTokens =
  countSectionTokens("strategies") +
  countSectionTokens("mistakes") +
  (sections[0]!.bullets[1]!.tokenCount as number) +
  (sections[1]!.bullets[0]!.tokenCount as number);

describe("pinned bullets in the compiled context", () => {
  it("rank before every other bullet, whatever their counters, in playbook order", () => {
    const compiled = compileContext(sections, { tokenBudget: UNLIMITED, includeCounters: true });
    expect(compiled.includedBullets).toEqual(["str-00002", "mis-00004", "str-00001", "str-00003"]);
    // Inside a section the text follows the rank, so the pinned rule is read first.
    expect(compiled.text.split("\n")[1]).toContain("[str-00002]");
  });

  it("count against the budget: a budget holding exactly the pinned bullets serves only them", () => {
    const compiled = compileContext(sections, { tokenBudget: pinnedTokens, includeCounters: true });
    expect(compiled.includedBullets).toEqual(["str-00002", "mis-00004"]);
    expect(compiled.tokens).toBe(pinnedTokens);
    expect(compiled.omittedBullets).toEqual(["str-00001", "str-00003"]);
  });

  it("a budget smaller than the pinned bullets is refused, naming the tokens they need", () => {
    const refuse = () => compileContext(sections, { tokenBudget: pinnedTokens - 1, includeCounters: true });
    expect(refuse).toThrow(PinnedBudgetError);
    expect(refuse).toThrow(`The 2 pinned bullets take ${pinnedTokens} tokens, more than the budget of ${pinnedTokens - 1}`);
    // The studio's own prompts may cut them instead.
    const cut = compileContext(sections, { tokenBudget: pinnedTokens - 1, includeCounters: true, pinnedOverflow: "cut" });
    expect(cut.includedBullets).toEqual(["str-00002"]);
  });

  it("no pinned bullet: ranking by counters as before", () => {
    const unpinned = sections.map((section) => ({ ...section, bullets: section.bullets.map(({ pinned: _p, ...rest }) => rest) }));
    expect(compileContext(unpinned, { tokenBudget: UNLIMITED, includeCounters: true }).includedBullets).toEqual([
      "str-00001",
      "str-00003",
      "mis-00004",
      "str-00002",
    ]);
  });

  it("coding-agent files put pinned bullets first and refuse a budget that cannot hold them", () => {
    const source = { playbook: "support", version: 3, exportedAt: new Date("2026-12-01T00:00:00Z") };
    const written = writeAgentInstructions(sections, "claude-md", source, { tokenBudget: 10_000 });
    expect(written.includedBullets.slice(0, 2)).toEqual(["str-00002", "mis-00004"]);
    // The smallest budget that holds the file's header leaves no room for the pinned bullets.
    const tooSmall = (tokenBudget: number) => () => writeAgentInstructions(sections, "claude-md", source, { tokenBudget });
    expect(tooSmall(1)).toThrow(AgentBudgetError);
    let minimum = 0;
    try {
      tooSmall(1)();
    } catch (error) {
      minimum = (error as AgentBudgetError).minimum;
    }
    expect(tooSmall(minimum)).toThrow(PinnedBudgetError);
    expect(tooSmall(minimum)).toThrow(`more than the budget of ${minimum}`);
  });
});
