// Turns loaded bullet pages into the rows the virtual list draws. Sorted by position, bullets
// arrive section by section, so a header row goes in front of each section and the list reads
// like the playbook file; sorted by anything else, sections interleave and each row names its own.
import type { BulletRow, SectionSummary } from "@/server/playbooks/schemas";

export type ListRow =
  | { kind: "section"; key: string; section: SectionSummary }
  | { kind: "bullet"; key: string; bullet: BulletRow; sectionName: string | null };

export function buildRows({
  bullets,
  sections,
  grouped,
  includeEmptySections,
  complete,
}: {
  bullets: readonly BulletRow[];
  sections: readonly SectionSummary[];
  /** Sorted by position: interleave section headers. */
  grouped: boolean;
  /** Unfiltered view: show sections without bullets too, where they stand in the playbook. */
  includeEmptySections: boolean;
  /** All pages are loaded, so empty sections after the last bullet can be shown as well. */
  complete: boolean;
}): ListRow[] {
  const byId = new Map(sections.map((s) => [s.id, s]));
  if (!grouped) {
    return bullets.map((bullet) => ({
      kind: "bullet",
      key: bullet.id,
      bullet,
      sectionName: byId.get(bullet.sectionId)?.name ?? null,
    }));
  }

  const ordered = [...sections].sort((a, b) => a.position - b.position);
  const rows: ListRow[] = [];
  let cursor = 0; // index into `ordered` of the next section not yet emitted
  let current: string | null = null;

  const emitEmptyUntil = (position: number) => {
    while (cursor < ordered.length && ordered[cursor]!.position < position) {
      const section = ordered[cursor]!;
      if (includeEmptySections && section.bulletCount === 0) {
        rows.push({ kind: "section", key: `section:${section.id}`, section });
      }
      cursor += 1;
    }
  };

  for (const bullet of bullets) {
    if (bullet.sectionId !== current) {
      current = bullet.sectionId;
      const section = byId.get(bullet.sectionId);
      if (section) {
        emitEmptyUntil(section.position);
        rows.push({ kind: "section", key: `section:${section.id}`, section });
        const index = ordered.indexOf(section);
        if (index >= cursor) cursor = index + 1;
      }
    }
    rows.push({ kind: "bullet", key: bullet.id, bullet, sectionName: null });
  }
  if (complete) emitEmptyUntil(Number.POSITIVE_INFINITY);
  return rows;
}
