// The figures of a playbook version that the Evolution charts draw: its size (active bullets per
// section, tokens of the compiled playbook), what its counters say (helpful, harmful and neutral
// totals, the distribution of bullet scores) and what kind of change made it. They are computed
// once, when the version is written, and stored with it: charts never rebuild old versions.
//
// Two ways to the same figures, tested to agree: from the delta engine's state of the version
// (figuresOfState), and from the previous version's figures and this version's recorded changes
// (advanceFigures), which touches only the bullets that changed.
import { DELTA_OPERATION_TYPES, type DeltaOperationType, type PlaybookState } from "./delta";
import type { BulletState, SectionState, VersionChange } from "./history";
import { bulletScore } from "./signals";
import { countSectionTokens, stateTokens } from "./tokens";

export interface SectionFigures {
  id: string;
  name: string;
  position: number;
  activeBullets: number;
}

/** [score, bullets]: how many active bullets with counters have this helpful − harmful. */
export type ScoreCount = [score: number, bullets: number];

export interface PlaybookFigures {
  /** Every section, in playbook order, empty ones too. */
  sections: SectionFigures[];
  activeBullets: number;
  archivedBullets: number;
  /** Counter totals over the active bullets. */
  helpful: number;
  harmful: number;
  neutral: number;
  /**
   * Tokens (o200k_base) of the compiled playbook with every active bullet: each section header that
   * has an active bullet, and each bullet's line with its counters. What the context endpoint
   * returns for an unlimited budget, and what the token budget is compared with.
   */
  tokens: number;
  /** Score distribution of the active bullets with counters, ascending by score. */
  scores: ScoreCount[];
}

export type OperationCounts = Partial<Record<DeltaOperationType, number>>;

export interface ChangeFigures {
  /**
   * Something besides counters changed: a bullet's content, section, place or status, or a section.
   * Every reflection writes a version that only tags counters; charts hide those by default.
   */
  contentChanged: boolean;
  /** A bullet's helpful, harmful or neutral counter changed. */
  countersChanged: boolean;
  /**
   * What the recorded changes amount to, by delta operation type, for every kind of version (a
   * delta's, an import's, a rollback's). A merge counts once per kept bullet, not as removals and an
   * update; a bullet that only moved among its neighbours is not counted; a deleted section counts as
   * remove_section.
   */
  operations: OperationCounts;
}

export type VersionFigures = PlaybookFigures & ChangeFigures;

// ---- Tokens ----------------------------------------------------------------------------------

const tokensBySectionName = new Map<string, number>();
const MAX_CACHED_SECTION_NAMES = 10_000;

function headerTokens(name: string): number {
  let tokens = tokensBySectionName.get(name);
  if (tokens === undefined) {
    tokens = countSectionTokens(name);
    if (tokensBySectionName.size >= MAX_CACHED_SECTION_NAMES) tokensBySectionName.clear();
    tokensBySectionName.set(name, tokens);
  }
  return tokens;
}

function headersOf(sections: readonly SectionFigures[]): number {
  let total = 0;
  for (const section of sections) if (section.activeBullets > 0) total += headerTokens(section.name);
  return total;
}

// ---- From a state ----------------------------------------------------------------------------

function compareSectionFigures(a: SectionFigures, b: SectionFigures): number {
  return a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function sortedScores(scores: Map<number, number>): ScoreCount[] {
  return [...scores].filter(([, count]) => count > 0).sort((a, b) => a[0] - b[0]);
}

/**
 * The figures of a playbook state. `activeBulletTokens`, when the caller keeps the sum of the active
 * bullets' line tokens (the delta engine does), saves counting them.
 */
export function figuresOfState(state: PlaybookState, options: { activeBulletTokens?: number | null } = {}): PlaybookFigures {
  const active = new Map<string, number>();
  const scores = new Map<number, number>();
  let activeBullets = 0;
  let archivedBullets = 0;
  let helpful = 0;
  let harmful = 0;
  let neutral = 0;
  let lines = 0;
  const countLines = options.activeBulletTokens === undefined || options.activeBulletTokens === null;
  for (const bullet of state.bullets.values()) {
    if (bullet.status !== "active") {
      archivedBullets += 1;
      continue;
    }
    activeBullets += 1;
    active.set(bullet.sectionId, (active.get(bullet.sectionId) ?? 0) + 1);
    helpful += bullet.helpful;
    harmful += bullet.harmful;
    neutral += bullet.neutral;
    if (bullet.countersKnown) {
      const score = bulletScore(bullet);
      scores.set(score, (scores.get(score) ?? 0) + 1);
    }
    if (countLines) lines += stateTokens(bullet);
  }
  const sections = state.sections
    .map((section) => ({ id: section.id, name: section.name, position: section.position, activeBullets: active.get(section.id) ?? 0 }))
    .sort(compareSectionFigures);
  return {
    sections,
    activeBullets,
    archivedBullets,
    helpful,
    harmful,
    neutral,
    tokens: (countLines ? lines : (options.activeBulletTokens as number)) + headersOf(sections),
    scores: sortedScores(scores),
  };
}

// ---- From the previous version -----------------------------------------------------------

/** The figures after `changes`, from the figures before them: only the changed bullets are read. */
export function advanceFigures(previous: PlaybookFigures, changes: readonly VersionChange[]): PlaybookFigures {
  const sections = new Map(previous.sections.map((section) => [section.id, { ...section }]));
  // Sections first: in a rollback the bullet changes can come before the section they move into.
  for (const change of changes) {
    if (change.entity !== "section") continue;
    if (!change.after) {
      sections.delete(change.id);
      continue;
    }
    const kept = sections.get(change.id);
    sections.set(change.id, {
      id: change.id,
      name: change.after.name,
      position: change.after.position,
      activeBullets: kept?.activeBullets ?? 0,
    });
  }

  const scores = new Map(previous.scores);
  let { activeBullets, archivedBullets, helpful, harmful, neutral } = previous;
  let lines = previous.tokens - headersOf(previous.sections);
  const take = (bullet: BulletState | null, sign: 1 | -1) => {
    if (!bullet) return;
    if (bullet.status !== "active") {
      archivedBullets += sign;
      return;
    }
    activeBullets += sign;
    const section = sections.get(bullet.sectionId);
    if (section) section.activeBullets += sign;
    helpful += sign * bullet.helpful;
    harmful += sign * bullet.harmful;
    neutral += sign * bullet.neutral;
    if (bullet.countersKnown) {
      const score = bulletScore(bullet);
      scores.set(score, (scores.get(score) ?? 0) + sign);
    }
    lines += sign * stateTokens(bullet);
  };
  for (const change of changes) {
    if (change.entity !== "bullet") continue;
    take(change.before, -1);
    take(change.after, 1);
  }

  const list = [...sections.values()].sort(compareSectionFigures);
  return {
    sections: list,
    activeBullets,
    archivedBullets,
    helpful,
    harmful,
    neutral,
    tokens: lines + headersOf(list),
    scores: sortedScores(scores),
  };
}

// ---- What kind of change ---------------------------------------------------------------------

const COUNTERS: readonly (keyof BulletState)[] = ["helpful", "harmful", "neutral", "countersKnown"];

function differingFields(before: BulletState, after: BulletState): (keyof BulletState)[] {
  const fields = (Object.keys(after) as (keyof BulletState)[]).filter((key) => before[key] !== after[key]);
  // A pin is present only when true: an unpin leaves no key behind to compare.
  if (before.pinned && !after.pinned) fields.push("pinned");
  return fields;
}

function sectionDiffers(before: SectionState, after: SectionState, field: keyof SectionState): boolean {
  return before[field] !== after[field];
}

/** Whether a version changed content or only counters, and what its changes amount to by operation. */
export function describeChanges(changes: readonly VersionChange[]): ChangeFigures {
  const operations: Record<string, number> = {};
  const count = (type: DeltaOperationType) => (operations[type] = (operations[type] ?? 0) + 1);
  let contentChanged = false;
  let countersChanged = false;

  const mergeTargets = new Set<string>();
  for (const change of changes) {
    if (change.entity !== "bullet" || !change.before || !change.after) continue;
    const into = change.after.mergedInto;
    if (change.before.status === "active" && change.after.status === "archived" && into && into !== change.before.mergedInto) {
      mergeTargets.add(into);
    }
  }
  if (mergeTargets.size > 0) operations.merge = mergeTargets.size;

  for (const change of changes) {
    if (change.entity === "section") {
      contentChanged = true;
      const { before, after } = change;
      if (!before && after) count("add_section");
      else if (before && after && sectionDiffers(before, after, "name")) count("rename_section");
      else if (before && after && sectionDiffers(before, after, "position")) count("move_section");
      else if (before && !after) count("remove_section");
      continue;
    }
    const { before, after } = change;
    if (!before || !after) {
      contentChanged = true;
      if (!before && after) count("add");
      continue;
    }
    const fields = differingFields(before, after);
    if (fields.some((field) => COUNTERS.includes(field))) countersChanged = true;
    if (fields.some((field) => !COUNTERS.includes(field))) contentChanged = true;
    if (before.status === "active" && after.status === "archived") {
      if (!(after.mergedInto && mergeTargets.has(after.mergedInto) && after.mergedInto !== before.mergedInto)) count("remove");
    } else if (before.status === "archived" && after.status === "active") {
      count("restore");
    } else if (mergeTargets.has(change.id)) {
      // The kept bullet of a merge: counted with the merge.
    } else if (fields.includes("content") || fields.includes("sectionId")) {
      count("update");
    } else if (fields.some((field) => COUNTERS.includes(field))) {
      count("tag");
    } else if (fields.includes("pinned")) {
      count(after.pinned ? "pin" : "unpin");
    }
  }
  const ordered: OperationCounts = {};
  for (const type of DELTA_OPERATION_TYPES) if (operations[type]) ordered[type] = operations[type];
  return { contentChanged, countersChanged, operations: ordered };
}

/** The figures stored with a version: of the state it made, and of the changes that made it. */
export function versionFigures(
  state: PlaybookState,
  changes: readonly VersionChange[],
  options: { activeBulletTokens?: number | null } = {},
): VersionFigures {
  return { ...figuresOfState(state, options), ...describeChanges(changes) };
}

/** The figures of a playbook with nothing in it: where advancing from version 1's changes starts. */
export const EMPTY_FIGURES: PlaybookFigures = Object.freeze({
  sections: [],
  activeBullets: 0,
  archivedBullets: 0,
  helpful: 0,
  harmful: 0,
  neutral: 0,
  tokens: 0,
  scores: [],
}) as PlaybookFigures;
