// The ACE bullet id rule: `<section slug>-<number padded to 5 digits>`, e.g. `str-00001`.
// Numbers are global across a playbook (the LangChain middleware's next_global_id, kayba's next_id),
// so a new bullet takes the highest number in use plus one, whatever its section.

export const BULLET_ID_DIGITS = 5;

/** The LangChain ACE middleware's default template, in its order. */
export const DEFAULT_SECTIONS: readonly { readonly name: string; readonly slug: string }[] = [
  { name: "strategies_and_insights", slug: "str" },
  { name: "formulas_and_calculations", slug: "cal" },
  { name: "code_snippets_and_templates", slug: "cod" },
  { name: "common_mistakes_to_avoid", slug: "mis" },
  { name: "problem_solving_heuristics", slug: "heu" },
  { name: "context_clues_and_indicators", slug: "ctx" },
  { name: "others", slug: "oth" },
];

/** Ids are written inside `[ ]` in the text formats, so they hold no whitespace and no "]". */
export function isValidBulletId(id: string): boolean {
  return /^[^\s\]]+$/.test(id);
}

export function formatBulletId(slug: string, n: number): string {
  return `${slug}-${String(n).padStart(BULLET_ID_DIGITS, "0")}`;
}

// The lazy prefix lets prefixes hold hyphens themselves (`a-b-00001` → `a-b`, 1).
const NUMBERED_ID = /^(\S+?)-(\d+)$/;

export function parseBulletId(id: string): { prefix: string; number: number } | null {
  const match = NUMBERED_ID.exec(id);
  if (!match?.[1] || !match[2]) return null;
  const number = Number(match[2]);
  return Number.isSafeInteger(number) ? { prefix: match[1], number } : null;
}

/** 0 when no id has a numeric suffix. */
export function highestIdNumber(ids: Iterable<string>): number {
  let highest = 0;
  for (const id of ids) highest = Math.max(highest, parseBulletId(id)?.number ?? 0);
  return highest;
}

const normalizedName = (name: string) => name.toLowerCase().replace(/[\s_]+/g, "");

/**
 * The prefix for new bullets in a section: what its bullets already use (the most common prefix,
 * the first seen on a tie), else the middleware's slug for a default section name, else the
 * first three ASCII letters or digits of the name ("sec" when it has none), so ids stay ASCII.
 */
export function slugForSection(name: string, existingIds: Iterable<string> = []): string {
  const inUse = mostCommonIdPrefix(existingIds);
  if (inUse) return inUse;
  const wanted = normalizedName(name);
  const known = DEFAULT_SECTIONS.find((section) => normalizedName(section.name) === wanted);
  if (known) return known.slug;
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "")
      .slice(0, 3) || "sec"
  );
}

/** The prefix most of these ids share (the first seen on a tie), or null when none is numbered. */
export function mostCommonIdPrefix(ids: Iterable<string>): string | null {
  const counts = new Map<string, number>();
  for (const id of ids) {
    const prefix = parseBulletId(id)?.prefix;
    if (prefix) counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  }
  let best: string | null = null;
  for (const [prefix, count] of counts) if (best === null || count > (counts.get(best) ?? 0)) best = prefix;
  return best;
}

// Square-bracketed references as the generator cites them, `[str-00001]`; at least five digits so
// ordinary bracketed text such as `[step-1]` is not taken for a bullet.
const CITED_ID = /\[([A-Za-z0-9_][\w-]*?-\d{5,})\]/g;
// The LangChain middleware asks the agent for `<!-- bullet_ids: ["str-00001", "mis-00002"] -->`.
const BULLET_IDS_COMMENT = /<!--\s*bullet_ids:\s*\[([\s\S]*?)\]\s*-->/g;
const COMMENT_ID = /(?<![\w-])[A-Za-z0-9_][\w-]*?-\d{5,}(?![\w-])/g;

/** Every bullet id cited in free text, de-duplicated, in order of first appearance. */
export function extractBulletIds(text: string): string[] {
  const found: { id: string; at: number }[] = [];
  for (const match of text.matchAll(CITED_ID)) {
    if (match[1]) found.push({ id: match[1], at: match.index });
  }
  for (const comment of text.matchAll(BULLET_IDS_COMMENT)) {
    const list = comment[1] ?? "";
    const listStart = comment.index + comment[0].indexOf(list);
    for (const match of list.matchAll(COMMENT_ID)) found.push({ id: match[0], at: listStart + match.index });
  }
  found.sort((a, b) => a.at - b.at);
  return [...new Set(found.map((entry) => entry.id))];
}
