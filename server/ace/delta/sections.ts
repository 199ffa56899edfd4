// How operations name sections: by id, by exact name, or by a name that differs only in case,
// spaces and underscores ("Common mistakes" = "common_mistakes"), the way curators tend to write them.
import type { SectionState } from "../history";

export function sectionKey(name: string): string {
  return name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\s_]+/gu, "");
}

export function resolveSection(sections: readonly SectionState[], ref: string): SectionState | undefined {
  return (
    sections.find((section) => section.id === ref) ??
    sections.find((section) => section.name === ref) ??
    sections.find((section) => sectionKey(section.name) === sectionKey(ref))
  );
}

/** Another section whose name reads the same as `name`, which would make references ambiguous. */
export function sectionNamed(sections: readonly SectionState[], name: string, exceptId?: string): SectionState | undefined {
  const key = sectionKey(name);
  return sections.find((section) => section.id !== exceptId && sectionKey(section.name) === key);
}

// Ids are cited as `[slug-00001]`, and the citation pattern (ids.ts) wants a letter, digit or "_"
// first, then letters, digits, "_" or "-".
const SLUG = /^[A-Za-z0-9_][\w-]*$/;

export function isValidSlug(slug: string): boolean {
  return SLUG.test(slug);
}
