// The playbook while a delta runs: changed bullets and sections sit in an overlay on top of the
// untouched input, so validating never copies the 10,000 bullets and the input is never mutated.
// finish() lays the changed bullets over the input's (LayeredMap), records each touched entity's
// first and last state, and carries the section ends forward.
import type { BulletState, SectionState, VersionChange } from "../history";
import { bulletStateChanged } from "../history";
import { adoptStateTokens, changesCountedText, hasStateTokens, stateTokens } from "../tokens";
import { LayeredMap } from "./layered-map";
import { compareBullets, compareSections } from "./state";
import type { PlaybookState } from "./types";

export type BulletListener = (before: BulletState | undefined, after: BulletState) => void;

export class WorkingState {
  private readonly bullets = new Map<string, BulletState>();
  private sections: SectionState[];
  private readonly touchedSections = new Map<string, SectionState | null>();
  // Section id → ids of its bullets; built on first need in one pass, then kept up to date.
  private members: Map<string, Set<string>> | null = null;
  nextIdNumber: number;
  private readonly listeners: BulletListener[] = [];

  constructor(private readonly base: PlaybookState) {
    this.sections = [...base.sections];
    this.nextIdNumber = base.nextIdNumber;
  }

  /** Called after every bullet write with the bullet as it was before that write. */
  onBulletChange(listener: BulletListener): void {
    this.listeners.push(listener);
  }

  bullet(id: string): BulletState | undefined {
    return this.bullets.get(id) ?? this.base.bullets.get(id);
  }

  putBullet(next: BulletState): void {
    const before = this.bullet(next.externalId);
    // A move, a shift or an archival keeps the bullet's line text, so its token count goes with it.
    if (before && hasStateTokens(before) && !changesCountedText(before, next)) adoptStateTokens(next, stateTokens(before));
    if (this.members && before?.sectionId !== next.sectionId) {
      if (before) this.members.get(before.sectionId)?.delete(next.externalId);
      this.membersOf(next.sectionId).add(next.externalId);
    }
    this.bullets.set(next.externalId, next);
    for (const listener of this.listeners) listener(before, next);
  }

  /** The section's bullets (archived too) in reading order. */
  sectionBullets(sectionId: string): BulletState[] {
    const result: BulletState[] = [];
    for (const id of this.membersOf(sectionId)) {
      const bullet = this.bullet(id);
      if (bullet) result.push(bullet);
    }
    return result.sort(compareBullets);
  }

  /**
   * A position after every bullet of the section: the input's end for it, raised by the bullets this
   * delta put there. When one of them held the input's end and left it or moved back, the section's
   * bullets are read instead.
   */
  endPosition(sectionId: string): number {
    const baseEnds = sectionEndsOf(this.base);
    let end = baseEnds.get(sectionId) ?? 0;
    for (const bullet of this.bullets.values()) {
      const original = this.base.bullets.get(bullet.externalId);
      if (original?.sectionId === sectionId && leftEnd(original, bullet, baseEnds)) return this.scannedEnd(sectionId);
      if (bullet.sectionId === sectionId) end = Math.max(end, bullet.position + 1);
    }
    return end;
  }

  /** endPosition from the section's bullets, one by one. */
  scannedEnd(sectionId: string): number {
    let end = 0;
    for (const id of this.membersOf(sectionId)) end = Math.max(end, (this.bullet(id)?.position ?? -1) + 1);
    return end;
  }

  private membersOf(sectionId: string): Set<string> {
    if (!this.members) {
      this.members = new Map();
      for (const bullet of this.base.bullets.values()) this.addMember(bullet.sectionId, bullet.externalId);
      for (const bullet of this.bullets.values()) {
        const original = this.base.bullets.get(bullet.externalId);
        if (original) this.members.get(original.sectionId)?.delete(bullet.externalId);
        this.addMember(bullet.sectionId, bullet.externalId);
      }
    }
    let set = this.members.get(sectionId);
    if (!set) {
      set = new Set();
      this.members.set(sectionId, set);
    }
    return set;
  }

  private addMember(sectionId: string, id: string): void {
    const set = this.members?.get(sectionId);
    if (set) set.add(id);
    else this.members?.set(sectionId, new Set([id]));
  }

  /** Sections in playbook order. */
  orderedSections(): SectionState[] {
    return [...this.sections].sort(compareSections);
  }

  sectionById(id: string): SectionState | undefined {
    return this.sections.find((section) => section.id === id);
  }

  putSection(next: SectionState): void {
    const index = this.sections.findIndex((section) => section.id === next.id);
    if (!this.touchedSections.has(next.id)) this.touchedSections.set(next.id, index >= 0 ? (this.sections[index] ?? null) : null);
    if (index >= 0) this.sections[index] = next;
    else this.sections.push(next);
  }

  /** Active pinned bullets: the input's (counted once per state), with this delta's changes. */
  pinnedCount(): number {
    let count = pinnedCountOf(this.base);
    for (const bullet of this.bullets.values()) {
      const original = this.base.bullets.get(bullet.externalId);
      if (original && isActivePin(original)) count -= 1;
      if (isActivePin(bullet)) count += 1;
    }
    return count;
  }

  /** Deletes a section (the engine checked it holds no bullet). */
  deleteSection(id: string): void {
    const index = this.sections.findIndex((section) => section.id === id);
    if (index < 0) return;
    if (!this.touchedSections.has(id)) this.touchedSections.set(id, this.sections[index] ?? null);
    this.sections.splice(index, 1);
  }

  /** The new state and the version changes: touched sections, then bullets, in order of first touch. */
  finish(): { state: PlaybookState; changes: VersionChange[] } {
    const changes: VersionChange[] = [];
    for (const [id, before] of this.touchedSections) {
      const after = this.sectionById(id) ?? null;
      // A section added and deleted by the same delta leaves no trace.
      if (!before && !after) continue;
      if (!before || !after || sectionStateChanged(before, after)) changes.push({ entity: "section", id, before, after });
    }
    for (const [id, after] of this.bullets) {
      const before = this.base.bullets.get(id) ?? null;
      if (!before || bulletStateChanged(before, after)) changes.push({ entity: "bullet", id, before, after });
    }
    // The input's bullets with this delta's set on them, as layers: a copy took 1.3 ms of each delta.
    const bullets = LayeredMap.over(this.base.bullets, new Map(this.bullets));
    const state: PlaybookState = { sections: this.orderedSections(), bullets, nextIdNumber: this.nextIdNumber };
    const baseEnds = SECTION_ENDS.get(this.base);
    const ends = baseEnds && this.carriedEnds(baseEnds);
    if (ends) SECTION_ENDS.set(state, ends);
    return { state, changes };
  }

  /**
   * The new state's section ends from the input's, raised by this delta's bullets, so the next delta
   * does not read 10,000 bullets for them (0.7 ms); null when a bullet that held its section's end
   * left the section or moved back (the next delta that needs the ends reads them).
   */
  private carriedEnds(baseEnds: ReadonlyMap<string, number>): Map<string, number> | null {
    const ends = new Map(baseEnds);
    for (const bullet of this.bullets.values()) {
      const original = this.base.bullets.get(bullet.externalId);
      if (original && leftEnd(original, bullet, baseEnds)) return null;
      if (bullet.position + 1 > (ends.get(bullet.sectionId) ?? 0)) ends.set(bullet.sectionId, bullet.position + 1);
    }
    return ends;
  }
}

// Each state's section ends (a position after every bullet of the section), made in one pass over
// its bullets when a delta on it first needs one: 0.3 ms for 10,000 bullets, where building every
// section's member set and reading a section's bullets at each add took 2.5 ms of a 50-operation delta.
const SECTION_ENDS = new WeakMap<PlaybookState, Map<string, number>>();

/** The bullet held its section's end in the input and left the section or moved back: the end must be read again. */
function leftEnd(original: BulletState, bullet: BulletState, baseEnds: ReadonlyMap<string, number>): boolean {
  const heldEnd = original.position + 1 === baseEnds.get(original.sectionId);
  return heldEnd && (bullet.sectionId !== original.sectionId || bullet.position < original.position);
}

function sectionEndsOf(state: PlaybookState): Map<string, number> {
  let ends = SECTION_ENDS.get(state);
  if (!ends) {
    ends = new Map();
    for (const bullet of state.bullets.values()) {
      if (bullet.position + 1 > (ends.get(bullet.sectionId) ?? 0)) ends.set(bullet.sectionId, bullet.position + 1);
    }
    SECTION_ENDS.set(state, ends);
  }
  return ends;
}

const isActivePin = (bullet: BulletState) => bullet.pinned === true && bullet.status === "active";

// Pins are rare and pin operations rarer: one pass over a state's bullets when a pin first needs the count.
const PINNED_COUNTS = new WeakMap<PlaybookState, number>();

function pinnedCountOf(state: PlaybookState): number {
  let count = PINNED_COUNTS.get(state);
  if (count === undefined) {
    count = 0;
    for (const bullet of state.bullets.values()) if (isActivePin(bullet)) count += 1;
    PINNED_COUNTS.set(state, count);
  }
  return count;
}

export function sectionStateChanged(before: SectionState, after: SectionState): boolean {
  return (Object.keys(after) as (keyof SectionState)[]).some((key) => before[key] !== after[key]);
}
