// What changed between two playbook states, section by section, for the history and approval
// views; and word-level text diffs to highlight an edited bullet. (jsdiff is not a dependency, so
// the word diff is a small Myers diff here.)
import { orderedBullets } from "./delta/state";
import type { PlaybookState } from "./delta/types";
import type { BulletState, SectionState } from "./history";

// ---- sequence diff -----------------------------------------------------------------------------

export type DiffKind = "same" | "added" | "removed";

/**
 * Myers' O(ND) diff: the shortest edit script turning `a` into `b`, one entry per element, with
 * removals before additions at each change. Common ends are cut first, the usual case for edits.
 */
export function diffSequences<T>(a: readonly T[], b: readonly T[]): { kind: DiffKind; item: T }[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const same = (items: readonly T[]) => items.map((item) => ({ kind: "same" as const, item }));
  const middle = myersMiddle(a.slice(start, endA), b.slice(start, endB));
  return [...same(a.slice(0, start)), ...middle, ...same(a.slice(endA))];
}

function myersMiddle<T>(a: readonly T[], b: readonly T[]): { kind: DiffKind; item: T }[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((item) => ({ kind: "added", item }));
  if (m === 0) return a.map((item) => ({ kind: "removed", item }));
  const offset = n + m + 1;
  const v = new Int32Array(2 * offset + 1);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= n + m; d += 1) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = takesInsertion(v, offset, k, d) ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, offset);
    }
  }
  return []; // unreachable: d = n + m always reaches the end
}

function takesInsertion(v: Int32Array, offset: number, k: number, d: number): boolean {
  return k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
}

function backtrack<T>(a: readonly T[], b: readonly T[], trace: readonly Int32Array[], offset: number) {
  const edits: { kind: DiffKind; item: T }[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d -= 1) {
    const v = trace[d] ?? new Int32Array(0);
    const k = x - y;
    const previousK = takesInsertion(v, offset, k, d) ? k + 1 : k - 1;
    const previousX = v[offset + previousK] ?? 0;
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      x -= 1;
      y -= 1;
      edits.push({ kind: "same", item: a[x] as T });
    }
    if (d === 0) break;
    if (x === previousX) edits.push({ kind: "added", item: b[(y -= 1)] as T });
    else edits.push({ kind: "removed", item: a[(x -= 1)] as T });
  }
  return edits.reverse();
}

// ---- text diff ---------------------------------------------------------------------------------

export interface TextSegment {
  kind: DiffKind;
  text: string;
}

/** Word-level diff; whitespace runs are tokens of their own, so joining the segments gives the texts back. */
export function diffText(before: string, after: string): TextSegment[] {
  const tokens = (text: string) => text.match(/\s+|[^\s]+/gu) ?? [];
  const segments: TextSegment[] = [];
  for (const { kind, item } of diffSequences(tokens(before), tokens(after))) {
    const last = segments.at(-1);
    if (last?.kind === kind) last.text += item;
    else segments.push({ kind, text: item });
  }
  return segments;
}

// ---- playbook diff -----------------------------------------------------------------------------

export interface EditedBullet {
  id: string;
  before: string;
  after: string;
  segments: TextSegment[];
}
export interface RemovedBullet {
  bullet: BulletState;
  /** The archive reason, or null when the bullet is gone from the state altogether. */
  reason: string | null;
}
export interface MovedBullet {
  bullet: BulletState;
  fromSectionId: string;
  fromSectionName: string | null;
}
export interface MergedBullet {
  bullet: BulletState;
  into: string;
}
export interface CounterChange {
  id: string;
  helpful: number;
  harmful: number;
  neutral: number;
}

export interface BulletChanges {
  added: BulletState[];
  /** Gone, or archived without a merge. */
  removed: RemovedBullet[];
  edited: EditedBullet[];
  /** Arrived from another section (listed under the section it is in now). */
  moved: MovedBullet[];
  merged: MergedBullet[];
  restored: BulletState[];
  counters: CounterChange[];
  /** Pinned, or unpinned while it stays active (archiving unpins too, and says so itself). */
  pinned: BulletState[];
  unpinned: BulletState[];
}

export interface SectionDiff {
  id: string;
  name: string;
  status: "added" | "removed" | "kept";
  /** Set when the section was renamed. */
  previousName: string | null;
  previousSlug: string | null;
  /** Its place among the sections changed (not counting places freed or taken by others). */
  moved: boolean;
  bullets: BulletChanges;
}

export interface PlaybookDiff {
  /** In the `to` order, then sections that `to` no longer has, in the `from` order. */
  sections: SectionDiff[];
  totals: Record<keyof BulletChanges, number> & {
    sectionsAdded: number;
    sectionsRemoved: number;
    sectionsRenamed: number;
    sectionsMoved: number;
  };
  empty: boolean;
}

const emptyChanges = (): BulletChanges => ({
  added: [],
  removed: [],
  edited: [],
  moved: [],
  merged: [],
  restored: [],
  counters: [],
  pinned: [],
  unpinned: [],
});

export function diffStates(from: PlaybookState, to: PlaybookState): PlaybookDiff {
  const sections = diffSections(from.sections, to.sections);
  const byId = new Map(sections.map((section) => [section.id, section]));
  const changesIn = (sectionId: string): BulletChanges => {
    let section = byId.get(sectionId);
    if (!section) {
      // A bullet in a section neither state lists: keep it visible rather than drop it.
      section = {
        id: sectionId,
        name: sectionId,
        status: "kept",
        previousName: null,
        previousSlug: null,
        moved: false,
        bullets: emptyChanges(),
      };
      byId.set(sectionId, section);
      sections.push(section);
    }
    return section.bullets;
  };
  const fromNames = new Map(from.sections.map((section) => [section.id, section.name]));
  for (const after of orderedBullets(to)) {
    classifyBullet(from.bullets.get(after.externalId) ?? null, after, changesIn(after.sectionId), fromNames);
  }
  for (const before of orderedBullets(from)) {
    if (!to.bullets.has(before.externalId)) changesIn(before.sectionId).removed.push({ bullet: before, reason: null });
  }
  return { sections, ...summarise(sections) };
}

function classifyBullet(
  before: BulletState | null,
  after: BulletState,
  changes: BulletChanges,
  fromNames: ReadonlyMap<string, string>,
): void {
  if (!before) {
    changes.added.push(after);
    return;
  }
  if (before.status === "active" && after.status === "archived") {
    if (after.mergedInto !== null) changes.merged.push({ bullet: after, into: after.mergedInto });
    else changes.removed.push({ bullet: after, reason: after.archivedReason });
  }
  if (before.status === "archived" && after.status === "active") changes.restored.push(after);
  if (!before.pinned && after.pinned) changes.pinned.push(after);
  if (before.pinned && !after.pinned && after.status === "active") changes.unpinned.push(after);
  if (before.content !== after.content) {
    changes.edited.push({
      id: after.externalId,
      before: before.content,
      after: after.content,
      segments: diffText(before.content, after.content),
    });
  }
  if (before.sectionId !== after.sectionId) {
    changes.moved.push({ bullet: after, fromSectionId: before.sectionId, fromSectionName: fromNames.get(before.sectionId) ?? null });
  }
  const counters = {
    id: after.externalId,
    helpful: after.helpful - before.helpful,
    harmful: after.harmful - before.harmful,
    neutral: after.neutral - before.neutral,
  };
  if (counters.helpful !== 0 || counters.harmful !== 0 || counters.neutral !== 0) changes.counters.push(counters);
}

function diffSections(from: readonly SectionState[], to: readonly SectionState[]): SectionDiff[] {
  const before = new Map(from.map((section) => [section.id, section]));
  const toIds = new Set(to.map((section) => section.id));
  const moved = movedSections(from, to);
  const kept = to.map((section): SectionDiff => {
    const previous = before.get(section.id);
    return {
      id: section.id,
      name: section.name,
      status: previous ? "kept" : "added",
      previousName: previous && previous.name !== section.name ? previous.name : null,
      previousSlug: previous && previous.slug !== section.slug ? previous.slug : null,
      moved: moved.has(section.id),
      bullets: emptyChanges(),
    };
  });
  const removed = from
    .filter((section) => !toIds.has(section.id))
    .map((section): SectionDiff => ({
      id: section.id,
      name: section.name,
      status: "removed",
      previousName: null,
      previousSlug: null,
      moved: false,
      bullets: emptyChanges(),
    }));
  return [...kept, ...removed];
}

/**
 * The sections that moved between two section lists (each in playbook order): those outside the
 * longest order both lists share, so a section moved past three others is one move, not four
 * shifted positions. Where several longest orders exist (two neighbours swapped), the sections kept
 * in place are the ones that moved least, by rank, then by stored position, and a section whose
 * stored position went down counts as the mover: the engine only ever shifts the others up.
 * The history's timeline counts moves with this function too, so it agrees with the diff.
 */
export function movedSections(from: readonly SectionState[], to: readonly SectionState[]): Set<string> {
  const toIds = new Set(to.map((section) => section.id));
  const fromIds = new Set(from.map((section) => section.id));
  const a = from.filter((section) => toIds.has(section.id));
  const b = to.filter((section) => fromIds.has(section.id));
  const moved = new Set<string>();
  if (a.length * b.length > MAX_WEIGHTED_CELLS) {
    // Thousands of sections: the plain longest common order, without the tie-break.
    for (const entry of diffSequences(
      a.map((s) => s.id),
      b.map((s) => s.id),
    ))
      if (entry.kind !== "same") moved.add(entry.item);
    return moved;
  }
  const rankAfter = new Map(b.map((section, index) => [section.id, index]));
  const positionAfter = new Map(b.map((section) => [section.id, section.position]));
  // Keeping a section in place is worth 1, less a penalty under 1 / (n + 1) for how far it went, so
  // the penalties of all n sections together never outweigh keeping one more: the longest order wins.
  const n = a.length + 1;
  const worth = a.map((section, rank) => {
    const shift = Math.abs((rankAfter.get(section.id) ?? rank) - rank);
    const change = (positionAfter.get(section.id) ?? section.position) - section.position;
    const penalty = (0.5 * shift) / n + (0.25 * Math.min(Math.abs(change), 1000)) / 1000 + (change < 0 ? 0.1 : 0);
    return 1 - penalty / n;
  });
  // best[i][j]: the most worth keeping among a[i..] and b[j..].
  const width = b.length + 1;
  const best = new Float64Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      const skip = Math.max(best[(i + 1) * width + j] ?? 0, best[i * width + j + 1] ?? 0);
      const keep = a[i]?.id === b[j]?.id ? (worth[i] ?? 0) + (best[(i + 1) * width + j + 1] ?? 0) : 0;
      best[i * width + j] = Math.max(skip, keep);
    }
  }
  const kept = new Set<string>();
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const here = best[i * width + j] ?? 0;
    if (a[i]?.id === b[j]?.id && here === (worth[i] ?? 0) + (best[(i + 1) * width + j + 1] ?? 0)) {
      kept.add(a[i]?.id ?? "");
      i += 1;
      j += 1;
    } else if (here === (best[(i + 1) * width + j] ?? 0)) i += 1;
    else j += 1;
  }
  for (const section of a) if (!kept.has(section.id)) moved.add(section.id);
  return moved;
}

const MAX_WEIGHTED_CELLS = 4_000_000;

const BULLET_CHANGE_KINDS = ["added", "removed", "edited", "moved", "merged", "restored", "counters", "pinned", "unpinned"] as const;

function summarise(sections: readonly SectionDiff[]): Pick<PlaybookDiff, "totals" | "empty"> {
  const totals: PlaybookDiff["totals"] = {
    added: 0,
    removed: 0,
    edited: 0,
    moved: 0,
    merged: 0,
    restored: 0,
    counters: 0,
    pinned: 0,
    unpinned: 0,
    sectionsAdded: sections.filter((section) => section.status === "added").length,
    sectionsRemoved: sections.filter((section) => section.status === "removed").length,
    sectionsRenamed: sections.filter((section) => section.previousName !== null).length,
    sectionsMoved: sections.filter((section) => section.moved).length,
  };
  for (const section of sections) for (const kind of BULLET_CHANGE_KINDS) totals[kind] += section.bullets[kind].length;
  const empty = Object.values(totals).every((count) => count === 0) && !sections.some((section) => section.previousSlug !== null);
  return { totals, empty };
}
