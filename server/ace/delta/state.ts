// Building and reading a PlaybookState: the one place that knows how bullets are ordered.
import type { BulletState, SectionState } from "../history";
import { highestIdNumber } from "../ids";
import type { PlaybookState } from "./types";

/** nextIdNumber defaults to the highest id suffix in use + 1 (the ACE counter rule). */
export function createPlaybookState(
  sections: Iterable<SectionState>,
  bullets: Iterable<BulletState>,
  nextIdNumber?: number,
): PlaybookState {
  const byId = new Map<string, BulletState>();
  for (const bullet of bullets) byId.set(bullet.externalId, bullet);
  const ordered = [...sections].sort(compareSections);
  const next = Math.max(nextIdNumber ?? 0, highestIdNumber(byId.keys()) + 1);
  return { sections: ordered, bullets: byId, nextIdNumber: next };
}

export function compareSections(a: SectionState, b: SectionState): number {
  return a.position - b.position || compareText(a.id, b.id);
}

/** Reading order inside a section, as the repository sorts: position, then id. */
export function compareBullets(a: BulletState, b: BulletState): number {
  return a.position - b.position || compareText(a.externalId, b.externalId);
}

/** Code-unit order, not locale order, so results do not depend on the machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Each section's bullets in reading order, keyed by section id (sections without bullets map to []). */
export function bulletsBySection(state: PlaybookState): Map<string, BulletState[]> {
  const groups = new Map<string, BulletState[]>();
  for (const section of state.sections) groups.set(section.id, []);
  for (const bullet of state.bullets.values()) {
    const group = groups.get(bullet.sectionId);
    if (group) group.push(bullet);
    else groups.set(bullet.sectionId, [bullet]);
  }
  for (const group of groups.values()) group.sort(compareBullets);
  return groups;
}

/** Every bullet in reading order: sections by position, then bullets by position. */
export function orderedBullets(state: PlaybookState): BulletState[] {
  const groups = bulletsBySection(state);
  const known = new Set(state.sections.map((section) => section.id));
  const result: BulletState[] = [];
  for (const section of state.sections) result.push(...(groups.get(section.id) ?? []));
  // Bullets of an unknown section would otherwise vanish from views; keep them last, in id order.
  const orphans = [...groups.keys()].filter((id) => !known.has(id)).sort(compareText);
  for (const id of orphans) result.push(...(groups.get(id) ?? []));
  return result;
}
