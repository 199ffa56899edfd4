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
