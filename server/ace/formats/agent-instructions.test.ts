// CLAUDE.md / AGENTS.md / Cursor rule exports: golden files for a fixture playbook (its bullets
// ranked, multi-line content, an empty bullet, a continuation line that looks like a citation), and
// the budget honoured on the 120 KB AppWorld playbook. UPDATE_GOLDEN=1 rewrites the golden files;
// review the diff before committing it.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { playbookFixture } from "@/server/testing/playbook-files";
import { compileContext } from "../context";
import { countTokens } from "../tokens";
import { AGENT_FORMATS, type AgentFormat } from "./agent-formats";
import { AgentBudgetError, contextSectionsOfDocument, writeAgentInstructions, type AgentInstructionsSource } from "./agent-instructions";
import { parsePlaybook } from "./index";

const GOLDEN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "golden");
const SOURCE: AgentInstructionsSource = { playbook: "Finance agent", version: 7, exportedAt: new Date("2026-11-26T09:30:00.000Z") };
const EXTENSION: Record<AgentFormat, string> = { "claude-md": "CLAUDE.md", "agents-md": "AGENTS.md", "cursor-rules": "mdc" };

function sectionsOf(fixture: string) {
  return contextSectionsOfDocument(parsePlaybook(readFileSync(playbookFixture(fixture), "utf8"), "auto").document);
}

function expectGolden(name: string, text: string) {
  const file = path.join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDEN === "1" || !existsSync(file)) {
    if (process.env.UPDATE_GOLDEN !== "1") throw new Error(`No golden file ${name}: run with UPDATE_GOLDEN=1 and review it.`);
    writeFileSync(file, text);
  }
  expect(text).toBe(readFileSync(file, "utf8"));
}

describe("agent instruction exports of a fixture playbook", () => {
  const sections = sectionsOf("generated/ace-agent__curator_session.txt");

  it.each(AGENT_FORMATS)("%s matches its golden file with the whole playbook", (format) => {
    const result = writeAgentInstructions(sections, format, SOURCE, { tokenBudget: 80_000 });
    expectGolden(`curator_session.${EXTENSION[format]}`, result.text);
    expect(result.omittedBullets).toEqual([]);
    expect(result.tokens).toBe(countTokens(result.text));
  });

  it.each(AGENT_FORMATS)("%s matches its golden file when the budget cuts the lowest-ranked bullets", (format) => {
    const full = writeAgentInstructions(sections, format, SOURCE, { tokenBudget: 80_000 });
    const budget = full.tokens - 25;
    const cut = writeAgentInstructions(sections, format, SOURCE, { tokenBudget: budget });
    expectGolden(`curator_session.cut.${EXTENSION[format]}`, cut.text);
    expect(cut.tokens).toBeLessThanOrEqual(budget);
    expect(cut.omittedBullets.length).toBeGreaterThan(0);
    // Harmful-leaning [err-00003] ranks last (score −1) and goes first.
    expect(cut.omittedBullets.at(-1)).toBe("err-00003");
  });

  it("keeps every id as [id] so citations still name the bullets, best-ranked first in each section", () => {
    const { text } = writeAgentInstructions(sections, "claude-md", SOURCE, { tokenBudget: 80_000 });
    for (const id of ["sai-00001", "calc-00002", "err-00003", "ph-00004", "misc-00005"]) expect(text).toContain(`- [${id}]`);
    // A continuation line that reads like a bullet stays inside its list item.
    expect(text).toContain("- [err-00003] Quote the rule you applied:\n  [fin-00001] style citations let the reviewer check it.\n");
    expect(text).not.toMatch(/^## (CODE SNIPPETS & TEMPLATES|CONTEXT CLUES & INDICATORS)$/m);
  });

  it("says where the file came from and when, and cursor-rules opens with front matter that always applies", () => {
    const claude = writeAgentInstructions(sections, "claude-md", SOURCE, { tokenBudget: 80_000 }).text;
    expect(claude.split("\n")[0]).toBe(
      '<!-- Exported by ACE Studio from the playbook "Finance agent", version 7, at 2026-11-26T09:30:00.000Z: all 5 active bullets, ranked by helpful − harmful. Export only: edit the playbook in ACE Studio and export again. -->',
    );
    const rule = writeAgentInstructions(sections, "cursor-rules", SOURCE, { tokenBudget: 80_000 }).text;
    expect(rule.split("\n").slice(0, 5)).toEqual([
      "---",
      'description: "Lessons from the ACE Studio playbook \\"Finance agent\\" (version 7): apply them, and cite the ids you use."',
      "globs:",
      "alwaysApply: true",
      "---",
    ]);
  });

  it("refuses a budget below the header's own tokens, naming the least that works", () => {
    const header = writeAgentInstructions(sections, "agents-md", SOURCE, { tokenBudget: 80_000 });
    expect(() => writeAgentInstructions(sections, "agents-md", SOURCE, { tokenBudget: 20 })).toThrow(AgentBudgetError);
    expect(() => writeAgentInstructions(sections, "agents-md", SOURCE, { tokenBudget: 20 })).toThrow(
      /A budget of 20 tokens does not hold even the file's header; give at least \d+\./,
    );
    expect(header.tokens).toBeGreaterThan(20);
  });
});

describe("the budget on the 120 KB AppWorld playbook", () => {
  const sections = sectionsOf("ace-appworld__appworld_offline_trained_no_gt_playbook.txt");
  const active = sections.reduce((sum, section) => sum + section.bullets.length, 0);
  // The compiled context's ranking of the same bullets: what the exports must cut a prefix of.
  const ranking = compileContext(sections, { tokenBudget: Number.MAX_SAFE_INTEGER, includeCounters: true }).includedBullets;

  it.each(AGENT_FORMATS.flatMap((format) => [300, 2_000, 8_000, 20_000].map((budget) => [format, budget] as const)))(
    "%s within %i tokens: the whole file fits, and its bullets are the ranking's best prefix",
    (format, budget) => {
      const result = writeAgentInstructions(sections, format, SOURCE, { tokenBudget: budget });
      expect(countTokens(result.text)).toBe(result.tokens);
      expect(result.tokens).toBeLessThanOrEqual(budget);
      expect(result.includedBullets.length + result.omittedBullets.length).toBe(active);
      expect(result.includedBullets).toEqual(ranking.slice(0, result.includedBullets.length));
      // Close to the budget: the next-ranked bullet would not have fitted with a little room to spare.
      if (result.omittedBullets.length > 0) expect(result.tokens).toBeGreaterThan(budget * 0.9 - 400);
    },
  );

  it("includes more bullets as the budget grows, and all of them when it is large", () => {
    const counts = [1_000, 4_000, 16_000, 64_000].map(
      (budget) => writeAgentInstructions(sections, "claude-md", SOURCE, { tokenBudget: budget }).includedBullets.length,
    );
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(new Set(counts).size).toBe(counts.length);
    expect(writeAgentInstructions(sections, "claude-md", SOURCE, { tokenBudget: 200_000 }).omittedBullets).toEqual([]);
  });
});
