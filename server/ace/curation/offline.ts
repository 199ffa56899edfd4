// The rule-based Curator of the offline provider: one ADD per distinct candidate lesson of the
// offline reflections, at a confidence below auto-apply, so a person always reviews them.
import type { CandidateLesson } from "../reflection/offline";
import { CURATOR_LIMITS, MAX_CURATOR_OPERATIONS, type CuratorOperation, type CuratorOutput } from "./schema";
import { looseKey } from "./sections";

/**
 * Confidence of a rule-based addition: below the 0.7 the ACE design documents use for applying a
 * delta without review, so offline lessons always wait for a person.
 */
export const OFFLINE_CURATOR_CONFIDENCE = 0.5;

export interface OfflineCurationInput {
  lessons: readonly CandidateLesson[];
  /** The playbook's section names; a lesson's section is written as the matching one. */
  sections: readonly string[];
}

/**
 * One ADD per distinct lesson (same content after normalising case, whitespace and final
 * punctuation counts once), in order, at most MAX_CURATOR_OPERATIONS. A lesson that several runs
 * teach (the same `general` form, e.g. one tool error on different tasks) is added once in that
 * general form, citing how many runs showed it. Near-duplicates of existing bullets are left to the
 * engine, which warns about them with a merge suggestion.
 */
export function curateOffline({ lessons, sections }: OfflineCurationInput): CuratorOutput {
  const runsTeaching = new Map<string, number>();
  for (const lesson of lessons) {
    if (lesson.general) runsTeaching.set(lessonKey(lesson.general), (runsTeaching.get(lessonKey(lesson.general)) ?? 0) + 1);
  }
  const seen = new Set<string>();
  const operations: CuratorOperation[] = [];
  for (const lesson of lessons) {
    const shared = lesson.general ? (runsTeaching.get(lessonKey(lesson.general)) ?? 0) : 0;
    const content = (shared > 1 ? (lesson.general as string) : lesson.content).trim();
    const key = lessonKey(content);
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    if (operations.length === MAX_CURATOR_OPERATIONS) break;
    const section = sections.find((name) => looseKey(name) === looseKey(lesson.section)) ?? lesson.section;
    const evidence = shared > 1 ? `${lesson.evidence.trim()} Seen in ${shared} runs.` : lesson.evidence.trim();
    operations.push({
      type: "ADD",
      section,
      content: content.slice(0, CURATOR_LIMITS.content),
      bulletIds: [],
      rationale: evidence.slice(0, CURATOR_LIMITS.rationale),
      confidence: OFFLINE_CURATOR_CONFIDENCE,
    });
  }
  const skipped = lessons.length - operations.length;
  const reasoning =
    operations.length === 0
      ? "Rule-based curation (no model): no lesson to add."
      : `Rule-based curation (no model): ${operations.length} ${operations.length === 1 ? "addition" : "additions"} from ${lessons.length} candidate ${lessons.length === 1 ? "lesson" : "lessons"}` +
        (skipped > 0 ? ` (${skipped} repeated or over the limit of ${MAX_CURATOR_OPERATIONS}).` : ".");
  return { reasoning, operations };
}

function lessonKey(content: string): string {
  return content.normalize("NFKC").toLowerCase().replace(/\s+/gu, " ").replace(/[\s.!;:,]+$/u, "").trim();
}
