// A playbook as instructions a coding agent reads from its repository: CLAUDE.md (Claude Code),
// AGENTS.md (the tools that read that file) and a Cursor rule (.cursor/rules/*.mdc). Export only:
// nothing reads these files back into a playbook.
//
// The bullets are chosen as the compiled context chooses them (compileContext: ranked by
// helpful − harmful, the best-ranked prefix that fits the budget) and the whole file, header
// included, stays within the budget (o200k tokens). Ids are kept as `[id]`, so an agent that cites
// what it used still names bullets the reflector can tag.
import { countersOf, type PlaybookDocument } from "../document";
import { compileContext, PinnedBudgetError, type ContextBullet, type ContextSection } from "../context";
import { countTokens } from "../tokens";
import type { AgentFormat } from "./agent-formats";
import { formatNumber, plural } from "../text/format";

export interface AgentInstructionsSource {
  /** The playbook's name. */
  playbook: string;
  version: number;
  exportedAt: Date;
}

export interface AgentInstructions {
  text: string;
  /** o200k tokens of the whole text. */
  tokens: number;
  /** External ids in the text, by rank. */
  includedBullets: string[];
  /** External ids left out by the budget, by rank. */
  omittedBullets: string[];
}

/** The budget cannot hold the file's header: there is no honest file to write. */
export class AgentBudgetError extends Error {
  override readonly name = "AgentBudgetError";
  constructor(
    readonly budget: number,
    readonly minimum: number,
  ) {
    super(`A budget of ${formatNumber(budget)} tokens does not hold even the file's header; give at least ${formatNumber(minimum)}.`);
  }
}

/** The document's active bullets by section, in reading order, as the context compiler takes them. */
export function contextSectionsOfDocument(document: PlaybookDocument): ContextSection[] {
  return document.sections.map((section) => ({
    name: section.name,
    bullets: section.bullets
      .filter((bullet) => bullet.status === "active")
      .map((bullet): ContextBullet => ({
        externalId: bullet.id,
        content: bullet.content,
        ...countersOf(bullet),
        ...(bullet.pinned ? { pinned: true } : {}),
      })),
  }));
}

/** A bullet as a markdown list item: further lines of its content indented under it. */
function bulletItem(bullet: ContextBullet): string {
  const [first = "", ...rest] = bullet.content.split(/\r?\n/);
  return [`- [${bullet.externalId}] ${first}`.trimEnd(), ...rest.map((line) => (line.trim() === "" ? "" : `  ${line}`))].join("\n") + "\n";
}

/** A YAML double-quoted scalar: JSON's string syntax is valid YAML. */
const yamlString = (text: string) => JSON.stringify(text);

function header(format: AgentFormat, source: AgentInstructionsSource, budget: number, included: number, total: number): string {
  const when = source.exportedAt.toISOString();
  const cut =
    included === total
      ? `all ${plural(total, "active bullet")}`
      : `the ${formatNumber(included)} best-ranked of ${plural(total, "active bullet")} (budget ${formatNumber(budget)} tokens)`;
  const lines: string[] = [];
  if (format === "cursor-rules") {
    lines.push(
      "---",
      `description: ${yamlString(`Lessons from the ACE Studio playbook "${source.playbook}" (version ${source.version}): apply them, and cite the ids you use.`)}`,
      "globs:",
      "alwaysApply: true",
      "---",
    );
  }
  lines.push(
    `<!-- Exported by ACE Studio from the playbook "${source.playbook}", version ${source.version}, at ${when}: ${cut}, ranked by helpful − harmful. Export only: edit the playbook in ACE Studio and export again. -->`,
    "",
    `# Playbook: ${source.playbook}`,
    "",
    "Lessons learned on earlier tasks, strongest first in each section. When one guides what you do, cite its id in",
    "square brackets (for example [str-00001]) in your reasoning or summary, so ACE Studio can count which lessons help.",
  );
  return `${lines.join("\n")}\n`;
}

function render(sections: readonly ContextSection[], included: readonly string[]): string {
  const rank = new Map(included.map((id, index) => [id, index]));
  const parts: string[] = [];
  for (const section of sections) {
    const chosen = section.bullets.filter((bullet) => rank.has(bullet.externalId));
    if (chosen.length === 0) continue;
    chosen.sort((a, b) => (rank.get(a.externalId) ?? 0) - (rank.get(b.externalId) ?? 0));
    parts.push(`\n## ${section.name}\n\n${chosen.map(bulletItem).join("")}`);
  }
  return parts.join("");
}

/** The bullets' cut; pinned bullets that do not fit are refused for the whole file's budget, with what they need beyond it. */
function compileWithin(
  sections: readonly ContextSection[],
  bulletBudget: number,
  tokensOf: (bullet: ContextBullet) => number,
  tokenBudget: number,
): ReturnType<typeof compileContext> {
  try {
    return compileContext(sections, { tokenBudget: bulletBudget, includeCounters: true, tokensWithCounters: tokensOf });
  } catch (error) {
    if (!(error instanceof PinnedBudgetError)) throw error;
    throw new PinnedBudgetError(tokenBudget, error.pinnedTokens + (tokenBudget - bulletBudget), error.pinned);
  }
}

/**
 * The file for a coding agent. The bullets' cut is the compiled context's, with each bullet costing
 * its list item and each section its header; the whole file is then counted, and when the header
 * and blank lines push it over the budget the bullets' share shrinks by the excess and the cut is
 * made again, so the file never exceeds the budget.
 */
export function writeAgentInstructions(
  sections: readonly ContextSection[],
  format: AgentFormat,
  source: AgentInstructionsSource,
  { tokenBudget }: { tokenBudget: number },
): AgentInstructions {
  const total = sections.reduce((sum, section) => sum + section.bullets.length, 0);
  const itemTokens = new Map<ContextBullet, number>();
  const tokensOf = (bullet: ContextBullet) => {
    let tokens = itemTokens.get(bullet);
    if (tokens === undefined) {
      tokens = countTokens(bulletItem(bullet));
      itemTokens.set(bullet, tokens);
    }
    return tokens;
  };
  const minimum = countTokens(header(format, source, tokenBudget, 0, total));
  if (minimum > tokenBudget) throw new AgentBudgetError(tokenBudget, minimum);

  let bulletBudget = tokenBudget - minimum;
  for (;;) {
    const compiled = compileWithin(sections, Math.max(0, bulletBudget), tokensOf, tokenBudget);
    const text = header(format, source, tokenBudget, compiled.includedBullets.length, total) + render(sections, compiled.includedBullets);
    const tokens = countTokens(text);
    if (tokens <= tokenBudget || compiled.includedBullets.length === 0) {
      // With no bullet the text is the header for "0 of N", which fit above.
      return { text, tokens, includedBullets: compiled.includedBullets, omittedBullets: compiled.omittedBullets };
    }
    bulletBudget -= tokens - tokenBudget;
  }
}
