// The rule-based Curator of the offline provider: one ADD per pattern the offline reflections found
// (a lesson in its general form, however many runs taught it), placed in the playbook's own section
// for that kind of lesson, and only when neither the playbook nor the delta says it already. Its
// confidence is below auto-apply, so a person always reviews it.
import type { PlaybookState } from "../delta/types";
import { DEFAULT_SIMILARITY_THRESHOLD } from "../delta/types";
import type { CandidateLesson } from "../reflection/offline";
import { generalLesson } from "../reflection/lessons";
import { buildSimilarityIndex, type SimilarityIndex } from "../similarity";
import { CURATOR_LIMITS, MAX_CURATOR_OPERATIONS, type CuratorOperation, type CuratorOutput } from "./schema";
import { placeLesson } from "./sections";
import { plural } from "../text/format";

/**
 * Confidence of a rule-based addition: below the 0.7 the ACE design documents use for applying a
 * delta without review, so offline lessons always wait for a person.
 */
export const OFFLINE_CURATOR_CONFIDENCE = 0.5;

export interface OfflineCurationInput {
  lessons: readonly CandidateLesson[];
  /** The playbook now: its sections (where lessons go) and active bullets (what it already says). */
  state: PlaybookState;
  /** The playbook's near-duplicate threshold, the one its review flags with. Default 0.85. */
  similarityThreshold?: number;
  /** An index of the state's active bullets when the caller keeps one; built otherwise. */
  similarity?: SimilarityIndex;
}

interface Pattern {
  content: string;
  section: string;
  /** Evidence of each lesson that taught it, in order. */
  evidence: string[];
  first: number;
}

/**
 * Lessons are grouped by their general form (reflection/lessons.ts: no task, ids or numbers of one
 * run), so a failure seen on ten orders is one addition citing ten runs. A pattern is left out when
 * an active bullet already says it (a near-duplicate at the playbook's threshold) and folded into
 * an earlier addition of this delta that says nearly the same. Patterns taught by more runs come
 * first; at most MAX_CURATOR_OPERATIONS are proposed. Each goes to the section placeLesson finds.
 */
export function curateOffline({
  lessons,
  state,
  similarityThreshold = DEFAULT_SIMILARITY_THRESHOLD,
  similarity,
}: OfflineCurationInput): CuratorOutput {
  const patterns = new Map<string, Pattern>();
  for (const [index, lesson] of lessons.entries()) {
    const content = generalLesson(lesson).slice(0, CURATOR_LIMITS.content);
    const key = lessonKey(content);
    if (key === "") continue;
    const pattern = patterns.get(key) ?? { content, section: lesson.section, evidence: [], first: index };
    pattern.evidence.push(lesson.evidence.trim());
    patterns.set(key, pattern);
  }
  const ranked = [...patterns.values()].sort((a, b) => b.evidence.length - a.evidence.length || a.first - b.first);

  const index = similarity ?? buildSimilarityIndex(state.bullets.values());
  const covered: string[] = [];
  const chosen: Pattern[] = [];
  let folded = 0;
  for (const pattern of ranked) {
    const existing = index.query(pattern.content, { threshold: similarityThreshold, limit: 1 })[0];
    if (existing) {
      covered.push(existing.bulletId);
      continue;
    }
    const twin = chosen.find((other) => index.compare(other.content, pattern.content) >= similarityThreshold);
    if (twin) {
      twin.evidence.push(...pattern.evidence);
      folded += 1;
      continue;
    }
    chosen.push(pattern);
  }

  const operations: CuratorOperation[] = chosen.slice(0, MAX_CURATOR_OPERATIONS).map((pattern) => {
    const target = placeLesson(pattern.section, state.sections);
    return {
      type: "ADD",
      section: target.kind === "existing" ? target.section.name : target.name,
      content: pattern.content,
      bulletIds: [],
      rationale: rationaleOf(pattern.evidence).slice(0, CURATOR_LIMITS.rationale),
      confidence: OFFLINE_CURATOR_CONFIDENCE,
    };
  });
  return { reasoning: reasoningOf(lessons.length, patterns.size, operations.length, covered, folded, chosen.length), operations };
}

function rationaleOf(evidence: readonly string[]): string {
  const distinct = [...new Set(evidence.filter(Boolean))];
  if (evidence.length <= 1) return distinct[0] ?? "";
  const examples = distinct.slice(0, 2).join(" ");
  return `Seen in ${evidence.length} runs. ${examples}${distinct.length > 2 ? ` (and ${distinct.length - 2} more)` : ""}`;
}

function reasoningOf(lessons: number, patterns: number, added: number, covered: readonly string[], folded: number, chosen: number): string {
  if (lessons === 0) return "Rule-based curation (no model): no lesson to add.";
  const parts = [
    `Rule-based curation (no model): ${plural(lessons, "candidate lesson")} in ${plural(patterns, "pattern")}; ${plural(added, "addition")}.`,
  ];
  if (covered.length > 0) {
    const ids = [...new Set(covered)].map((id) => `[${id}]`).join(", ");
    parts.push(`${plural(covered.length, "pattern")} the playbook already has (${ids}) ${covered.length === 1 ? "was" : "were"} left out.`);
  }
  if (folded > 0)
    parts.push(`${plural(folded, "pattern")} nearly the same as another addition ${folded === 1 ? "was" : "were"} folded into it.`);
  if (chosen > added)
    parts.push(
      `${plural(chosen - added, "pattern")} over the limit of ${MAX_CURATOR_OPERATIONS} additions per run ${chosen - added === 1 ? "was" : "were"} left out.`,
    );
  return parts.join(" ");
}

function lessonKey(content: string): string {
  return content
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/gu, " ")
    .replace(/[\s.!;:,]+$/u, "")
    .trim();
}
