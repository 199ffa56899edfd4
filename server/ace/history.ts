// What a playbook version records: every section and bullet it touched, with the state before
// and after. Replaying changes forward (after) or backward (before) rebuilds any past version.

export interface SectionState {
  id: string;
  name: string;
  slug: string;
  position: number;
}

export interface BulletState {
  externalId: string;
  sectionId: string;
  content: string;
  helpful: number;
  harmful: number;
  neutral: number;
  countersKnown: boolean;
  status: "active" | "archived";
  position: number;
  archivedReason: string | null;
  mergedInto: string | null;
  /**
   * Ranked first in the compiled context. Present only when true, so a state is written one way and
   * the versions recorded before pins existed read as they were.
   */
  pinned?: true;
}

export type VersionChange =
  | { entity: "section"; id: string; before: SectionState | null; after: SectionState | null }
  | { entity: "bullet"; id: string; before: BulletState | null; after: BulletState | null };

export interface ChangeCounts {
  sectionsAdded: number;
  bulletsAdded: number;
  bulletsUpdated: number;
  bulletsArchived: number;
}

export function countChanges(changes: readonly VersionChange[]): ChangeCounts {
  const counts: ChangeCounts = { sectionsAdded: 0, bulletsAdded: 0, bulletsUpdated: 0, bulletsArchived: 0 };
  for (const change of changes) {
    if (change.entity === "section") {
      if (!change.before && change.after) counts.sectionsAdded += 1;
      continue;
    }
    if (!change.before) counts.bulletsAdded += 1;
    else if (change.after?.status === "archived" && change.before.status === "active") counts.bulletsArchived += 1;
    else counts.bulletsUpdated += 1;
  }
  return counts;
}

/** True when the two states differ in anything a version should record. */
export function bulletStateChanged(before: BulletState, after: BulletState): boolean {
  return before.pinned !== after.pinned || (Object.keys(after) as (keyof BulletState)[]).some((key) => before[key] !== after[key]);
}
