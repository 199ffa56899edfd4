// Where a curator's ADD goes: its section name (model output, so cleaned) matched against the
// playbook's sections by id, name, a loose form of the name, or slug; else a new section.
import type { SectionState } from "../history";
import { DEFAULT_SECTIONS } from "../ids";
import { sanitizeModelText } from "../safety";
import { sectionKey } from "../delta/sections";
import { CURATOR_LIMITS } from "./schema";

/** A section name is one line: a header in the text formats. */
export function sectionName(ref: unknown): string {
  return typeof ref === "string" ? sanitizeModelText(ref, { maxLength: CURATOR_LIMITS.section }).replace(/\s+/gu, " ") : "";
}

/** Case, spaces, "_" and "-" do not count: "Common Mistakes", "common_mistakes" and "common-mistakes" match. */
export function looseKey(name: string): string {
  return sectionKey(name).replace(/[^\p{L}\p{N}]+/gu, "");
}

/** An ADD's section: an existing one (with a note when it was not the one named), or a new one to add first. */
export type AddTarget = { kind: "existing"; section: SectionState; note?: string } | { kind: "new"; name: string };

const FALLBACK_SECTION = DEFAULT_SECTIONS.find((section) => section.slug === "oth")?.name ?? "others";

/** An empty name falls back to the playbook's "others" section (else its last); an unknown name is a new section. */
export function resolveAddSection(ref: string, sections: readonly SectionState[]): AddTarget {
  const name = sectionName(ref);
  if (name === "") {
    const fallback = sections.find((section) => looseKey(section.name) === looseKey(FALLBACK_SECTION)) ?? sections.at(-1);
    if (!fallback) return { kind: "new", name: FALLBACK_SECTION };
    return { kind: "existing", section: fallback, note: `no section given; added to "${fallback.name}"` };
  }
  const key = looseKey(name);
  const found =
    sections.find((section) => section.id === name || section.name === name) ??
    sections.find((section) => looseKey(section.name) === key) ??
    sections.find((section) => section.slug.toLowerCase() === name.toLowerCase()) ??
    // A default section name ("common_mistakes_to_avoid") for a playbook whose section uses its slug.
    sections.find((section) => DEFAULT_SECTIONS.some((known) => looseKey(known.name) === key && known.slug === section.slug));
  return found ? { kind: "existing", section: found } : { kind: "new", name };
}

// ---- Placing a lesson by meaning -----------------------------------------------------------------

/**
 * The ACE section vocabulary: the slug of each section of the default template (ids.ts), plus the
 * verification checklist some published playbooks have, with the words section names use for it.
 * `fallback`: where a lesson of that kind goes when the playbook has no section for it.
 */
const SECTION_KINDS: readonly { slug: string; words: readonly string[]; fallback?: string }[] = [
  { slug: "str", words: ["strategy", "insight", "rule", "principle", "guideline", "approach", "best", "practice"] },
  { slug: "cal", words: ["formula", "calculation", "math", "arithmetic", "computation"], fallback: "str" },
  { slug: "cod", words: ["code", "snippet", "template", "example"], fallback: "str" },
  { slug: "mis", words: ["mistake", "pitfall", "error", "avoid", "troubleshooting", "gotcha", "wrong", "failure", "bug"] },
  { slug: "heu", words: ["heuristic", "workflow", "procedure", "process", "solving"], fallback: "str" },
  { slug: "ctx", words: ["context", "clue", "indicator", "signal", "hint"], fallback: "str" },
  { slug: "ver", words: ["verification", "verify", "check", "checklist", "validation", "validate", "test", "testing"], fallback: "mis" },
  { slug: "oth", words: ["other", "misc", "miscellaneous", "general", "note"] },
];

const FILLER = new Set(["and", "or", "to", "the", "of", "for", "a", "an", "in", "on", "with", "when", "how"]);

/** A section name's words, lower case, plural "s"/"ies" dropped: "COMMON MISTAKES" → common, mistake. */
export function nameWords(name: string): string[] {
  return name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .split(" ")
    .filter((word) => word !== "" && !FILLER.has(word))
    .map((word) =>
      word.endsWith("ies") && word.length > 4
        ? `${word.slice(0, -3)}y`
        : word.length > 3 && word.endsWith("s") && !word.endsWith("ss")
          ? word.slice(0, -1)
          : word,
    );
}

function kindOf(name: string): (typeof SECTION_KINDS)[number] | undefined {
  const words = new Set(nameWords(name));
  let best: (typeof SECTION_KINDS)[number] | undefined;
  let bestHits = 0;
  for (const kind of SECTION_KINDS) {
    const hits = kind.words.filter((word) => words.has(word)).length;
    if (hits > bestHits) [best, bestHits] = [kind, hits];
  }
  return best;
}

/**
 * Where a lesson the curator names by a section of the default template ("common_mistakes_to_avoid")
 * goes in this playbook: the section resolveAddSection finds; else the section whose slug is the
 * kind's ACE slug or whose name uses the kind's words, names sharing words with the lesson's section
 * counting most ("COMMON MISTAKES AND CORRECT STRATEGIES" before "TROUBLESHOOTING AND PITFALLS");
 * else the same for the kind's fallback (a verification lesson joins the mistakes); else a new
 * section, named after the last kind tried, so lessons that fit nowhere share one new section.
 */
export function placeLesson(ref: string, sections: readonly SectionState[]): AddTarget {
  const direct = resolveAddSection(ref, sections);
  if (direct.kind === "existing") return direct;
  const refWords = new Set(nameWords(ref));
  let kind = kindOf(ref);
  let newName = direct.name;
  for (let first = true; kind; first = false) {
    const current = kind;
    let best: SectionState | undefined;
    let bestScore = 0;
    for (const section of sections) {
      const words = nameWords(section.name);
      const vocabulary =
        words.filter((word) => current.words.includes(word)).length + (section.slug.toLowerCase() === current.slug ? 3 : 0);
      if (vocabulary === 0) continue;
      const shared = first ? words.filter((word) => refWords.has(word)).length : 0;
      const score = vocabulary + 2 * shared;
      if (score > bestScore) [best, bestScore] = [section, score];
    }
    if (best) return { kind: "existing", section: best };
    newName = DEFAULT_SECTIONS.find((known) => known.slug === current.slug)?.name ?? newName;
    kind = SECTION_KINDS.find((candidate) => candidate.slug === current.fallback);
  }
  return { kind: "new", name: newName };
}
