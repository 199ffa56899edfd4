// Rebuilding playbook versions from recorded changes: undo walks `before`s backwards, redo walks
// `after`s forwards. A rollback is a new version whose changes are the inverse of the undone ones.
import { compareSections } from "./delta/state";
import type { PlaybookState } from "./delta/types";
import type { BulletState, SectionState, VersionChange } from "./history";
import { highestIdNumber } from "./ids";

/** The state before `changes` (one version's, or several versions' in order) were made. */
export function undoChanges(state: PlaybookState, changes: readonly VersionChange[]): PlaybookState {
  // The counter is not recorded in versions; an engine-built state has highest id + 1, so that is rebuilt.
  return replay(state, [...changes].reverse(), "before", 0);
}

/**
 * The state after `changes`. The id counter never goes back, so a rollback that removes an added
 * bullet does not hand its id to the next new bullet.
 */
export function redoChanges(state: PlaybookState, changes: readonly VersionChange[]): PlaybookState {
  return replay(state, changes, "after", state.nextIdNumber);
}

/** Changes that undo `changes` when redone: for a rollback version. */
export function inverseChanges(changes: readonly VersionChange[]): VersionChange[] {
  return [...changes]
    .reverse()
    .map((change): VersionChange =>
      change.entity === "section"
        ? { entity: "section", id: change.id, before: change.after, after: change.before }
        : { entity: "bullet", id: change.id, before: change.after, after: change.before },
    );
}

function replay(state: PlaybookState, changes: readonly VersionChange[], side: "before" | "after", counterFloor: number): PlaybookState {
  const bullets = new Map(state.bullets);
  const sections = new Map(state.sections.map((section) => [section.id, section]));
  for (const change of changes) {
    if (change.entity === "section") setOrDelete<SectionState>(sections, change.id, change[side]);
    else setOrDelete<BulletState>(bullets, change.id, change[side]);
  }
  const nextIdNumber = Math.max(counterFloor, highestIdNumber(bullets.keys()) + 1);
  return { sections: [...sections.values()].sort(compareSections), bullets, nextIdNumber };
}

function setOrDelete<T>(map: Map<string, T>, id: string, value: T | null): void {
  if (value === null) map.delete(id);
  else map.set(id, value);
}
