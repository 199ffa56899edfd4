// Playbook history: the versions, the playbook as it was at any of them, section-aware diffs,
// rollback (a new version, never a rewrite) and each bullet's lineage.
//
// A past version is rebuilt by undoing later versions' recorded changes from the current state,
// not by redoing from version 1: the current state is already in memory (the delta engine's cache),
// people mostly look at the recent past, and version 1 (the import) is usually the largest record,
// which undoing from the present never reads.
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { bulletsBySection, orderedBullets, sectionKey, unpinned, type PlaybookState } from "@/server/ace/delta";
import { diffStates, diffText, movedSections } from "@/server/ace/diff";
import { bulletStateChanged, type BulletState, type SectionState, type VersionChange } from "@/server/ace/history";
import { redoChanges, undoChanges } from "@/server/ace/replay";
import { whoOf, type WhoOrName } from "@/server/audit/record";
import type { Db } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import { commitPersonChange, withVersionRetry } from "@/server/deltas/commit";
import { loadSnapshot, type Snapshot } from "@/server/deltas/engine-state";
import * as deltaRepo from "@/server/deltas/repository";
import type { DeltaStatus } from "@/server/deltas/schemas";
import { readStoredOperation } from "@/server/deltas/stored";
import * as repo from "./repository";
import { CITING_TASK_LENGTH, CITING_TRACES_SHOWN } from "./schemas";
import type {
  atVersionInput,
  BulletLineage,
  diffVersionsInput,
  LineageDelta,
  LineageEntry,
  LineageKind,
  lineageInput,
  PlaybookAtVersion,
  rollbackInput,
  RollbackResult,
  VersionDiff,
  VersionPage,
  versionsInput,
} from "./schemas";

// ---- Versions -------------------------------------------------------------------------------

export async function listVersions(db: Db, input: z.output<typeof versionsInput>): Promise<VersionPage> {
  const head = await deltaRepo.currentVersion(db, input.playbookId);
  if (!head) throw notFound("The playbook");
  const [rows, total] = await Promise.all([
    repo.listVersions(db, input.playbookId, input.cursor, input.limit),
    repo.countVersions(db, input.playbookId),
  ]);
  const moves = await sectionMoves(db, input.playbookId, rows);
  const items = rows.map(({ number, author, reason, createdAt, deltaId, deltaOrigin, ...counts }) => ({
    number,
    author,
    reason,
    createdAt,
    deltaId,
    deltaOrigin,
    counts: { ...counts, sectionsMoved: moves.get(number) ?? counts.sectionsMoved },
  }));
  const nextCursor = input.cursor + rows.length < total ? input.cursor + rows.length : null;
  return { items, total, nextCursor, currentVersion: head.version };
}

/**
 * How many sections each listed version moved, as the diff counts them (movedSections): a section
 * moved past three others shifts their stored positions too, yet it is one move. Only versions
 * that changed a section's position need it; their section lists are rebuilt from the current
 * one by undoing the section changes recorded since.
 */
async function sectionMoves(db: Db, playbookId: string, rows: readonly repo.VersionRow[]): Promise<Map<number, number>> {
  const wanted = new Set(rows.filter((row) => row.sectionsMoved > 0).map((row) => row.number));
  const moves = new Map<number, number>();
  if (wanted.size === 0) return moves;
  const snapshot = await loadSnapshot(db, playbookId);
  let state: PlaybookState = { sections: snapshot.entry.state.sections, bullets: new Map(), nextIdNumber: 0 };
  for (const version of await repo.sectionChangesAfter(db, playbookId, Math.min(...wanted) - 1)) {
    const before = undoChanges(state, version.changes);
    if (wanted.has(version.number)) moves.set(version.number, movedSections(before.sections, state.sections).size);
    state = before;
  }
  return moves;
}

// ---- Past states --------------------------------------------------------------------------

function checkVersion(snapshot: Snapshot, version: number): void {
  if (version > snapshot.head.version) {
    throw new AppError("NOT_FOUND", `Version ${version} does not exist: the playbook is at version ${snapshot.head.version}.`);
  }
}

/** The playbook at each of `versions`, rebuilt from the snapshot's current state. */
export async function statesAt(db: Db, snapshot: Snapshot, versions: number[]): Promise<Map<number, PlaybookState>> {
  const playbookId = snapshot.head.id;
  const current = snapshot.head.version;
  for (const version of versions) checkVersion(snapshot, version);
  const wanted = [...new Set(versions)].sort((a, b) => b - a);
  const lowest = wanted.at(-1) ?? current;
  const records = (await repo.versionChanges(db, playbookId, lowest, current)).reverse();
  const states = new Map<number, PlaybookState>();
  let state = snapshot.entry.state;
  let at = current;
  for (const target of wanted) {
    // One undo per requested version: the versions in between are undone together, newest last in the list.
    const between = records.filter((record) => record.number > target && record.number <= at).sort((a, b) => a.number - b.number);
    if (between.length > 0)
      state = undoChanges(
        state,
        between.flatMap((record) => record.changes),
      );
    at = target;
    states.set(target, state);
  }
  return states;
}

export async function playbookAt(db: Db, input: z.output<typeof atVersionInput>): Promise<PlaybookAtVersion> {
  const snapshot = await loadSnapshot(db, input.playbookId);
  checkVersion(snapshot, input.version);
  const [states, meta] = await Promise.all([
    statesAt(db, snapshot, [input.version]),
    repo.findVersion(db, input.playbookId, input.version),
  ]);
  if (!meta) throw notFound(`Version ${input.version}`);
  const state = states.get(input.version) as PlaybookState;
  const groups = bulletsBySection(state);
  let activeCount = 0;
  let archivedCount = 0;
  for (const bullet of state.bullets.values()) {
    if (bullet.status === "active") activeCount += 1;
    else archivedCount += 1;
  }
  return {
    playbookId: input.playbookId,
    name: snapshot.head.name,
    version: input.version,
    currentVersion: snapshot.head.version,
    author: meta.author,
    reason: meta.reason,
    createdAt: meta.createdAt,
    sections: state.sections.map((section) => ({
      ...section,
      bullets: (groups.get(section.id) ?? []).filter((bullet) => input.includeArchived || bullet.status === "active"),
    })),
    activeCount,
    archivedCount,
  };
}

export async function diffVersions(db: Db, input: z.output<typeof diffVersionsInput>): Promise<VersionDiff> {
  const snapshot = await loadSnapshot(db, input.playbookId);
  const states = await statesAt(db, snapshot, [input.from, input.to]);
  const diff = diffStates(states.get(input.from) as PlaybookState, states.get(input.to) as PlaybookState);
  return { playbookId: input.playbookId, from: input.from, to: input.to, ...diff };
}

// ---- Rollback -------------------------------------------------------------------------------

/**
 * The changes that take `current` to `target`. Bullets `target` lacks (added since) are archived
 * with `archiveReason`, not deleted: their provenance stays, and a restore brings them back.
 */
export function rollbackChanges(
  current: PlaybookState,
  target: PlaybookState,
  archiveReason: string,
): { changes: VersionChange[]; archived: number } {
  const changes: VersionChange[] = [];
  const currentSections = new Map(current.sections.map((section) => [section.id, section]));
  const targetSections = new Map(target.sections.map((section) => [section.id, section]));
  for (const section of target.sections) {
    const before = currentSections.get(section.id) ?? null;
    if (!before || sectionChanged(before, section)) changes.push({ entity: "section", id: section.id, before, after: section });
  }

  const bulletChanges: VersionChange[] = [];
  const sectionsInUse = new Set<string>();
  let archived = 0;
  for (const bullet of orderedBullets(current)) {
    const wanted = target.bullets.get(bullet.externalId);
    let after: BulletState = wanted ?? bullet;
    if (!wanted && bullet.status === "active") {
      after = { ...unpinned(bullet), status: "archived", archivedReason: archiveReason, mergedInto: null };
      archived += 1;
    }
    sectionsInUse.add(after.sectionId);
    if (bulletStateChanged(bullet, after)) bulletChanges.push({ entity: "bullet", id: bullet.externalId, before: bullet, after });
  }
  for (const bullet of orderedBullets(target)) {
    if (!current.bullets.has(bullet.externalId)) {
      sectionsInUse.add(bullet.sectionId);
      bulletChanges.push({ entity: "bullet", id: bullet.externalId, before: null, after: bullet });
    }
  }

  // Sections added after the target version: gone when empty; otherwise kept after the others (they hold archived bullets).
  const takenNames = new Set(target.sections.map((section) => sectionKey(section.name)));
  let position = target.sections.reduce((max, section) => Math.max(max, section.position + 1), 0);
  for (const section of current.sections) {
    if (targetSections.has(section.id)) continue;
    if (!sectionsInUse.has(section.id)) {
      changes.push({ entity: "section", id: section.id, before: section, after: null });
      continue;
    }
    let name = section.name;
    for (let n = 2; takenNames.has(sectionKey(name)); n += 1) name = `${section.name} (${n})`;
    takenNames.add(sectionKey(name));
    const after = { ...section, name, position: position++ };
    if (sectionChanged(section, after)) changes.push({ entity: "section", id: section.id, before: section, after });
  }
  return { changes: [...changes, ...bulletChanges], archived };
}

function sectionChanged(a: SectionState, b: SectionState): boolean {
  return a.name !== b.name || a.slug !== b.slug || a.position !== b.position;
}

const MAX_ROLLBACK_ATTEMPTS = 3;

export async function rollback(db: Db, author: WhoOrName, input: z.output<typeof rollbackInput>): Promise<RollbackResult> {
  const who = whoOf(author);
  // A caller who named the version it saw is told of a race instead of rolled back from a version it never saw.
  const pinned = input.expectedVersion !== undefined;
  const retry = {
    attempts: pinned ? 1 : MAX_ROLLBACK_ATTEMPTS,
    exhausted: () =>
      pinned
        ? new AppError(
            "CONFLICT",
            "The playbook was changed by someone else a moment ago; the rollback was not applied. Reload and try again.",
          )
        : new AppError("CONFLICT", "The playbook kept changing while rolling back; the rollback was not applied. Try again."),
  };
  return withVersionRetry(retry, async () => {
    const snapshot = await loadSnapshot(db, input.playbookId);
    const current = snapshot.head.version;
    if (input.expectedVersion !== undefined && input.expectedVersion !== current) {
      throw new AppError(
        "CONFLICT",
        `The playbook changed since you opened it (it is at version ${current} now, you saw ${input.expectedVersion}). ` +
          "Nothing was rolled back; reload and check the history again.",
      );
    }
    if (input.version === current) {
      throw new AppError("INVALID_INPUT", `Version ${current} is the current version; there is nothing to roll back.`);
    }
    const states = await statesAt(db, snapshot, [input.version]);
    const { changes, archived } = rollbackChanges(
      snapshot.entry.state,
      states.get(input.version) as PlaybookState,
      `Rolled back to version ${input.version}`,
    );
    if (changes.length === 0) {
      throw new AppError(
        "INVALID_INPUT",
        `The playbook already looks as it did at version ${input.version}; a rollback would change nothing.`,
      );
    }
    const next = redoChanges(snapshot.entry.state, changes);
    const deltaId = randomUUID();
    const reason = `Rolled back to version ${input.version}: ${input.reason}`;
    const version = await commitPersonChange(db, {
      playbookId: input.playbookId,
      snapshot,
      next,
      changes,
      who,
      reason,
      delta: { id: deltaId, origin: "rollback", rationale: reason, baseVersion: current },
      provenance: () => ({ origin: "manual", justification: reason, sourceTraceId: null, sourceRunId: null }),
      audit: (version, changed) => ({
        action: "playbook.rollback",
        target: { type: "playbook", id: input.playbookId, label: snapshot.head.name },
        playbookId: input.playbookId,
        before: { version: current, ...changed.before },
        after: { version, rolledBackTo: input.version, reason: input.reason, bulletsArchived: archived, ...changed.after },
      }),
    });
    const bulletChanges = changes.filter((change) => change.entity === "bullet");
    return {
      playbookId: input.playbookId,
      version,
      rolledBackTo: input.version,
      deltaId,
      bulletsChanged: bulletChanges.length,
      bulletsArchived: archived,
      sectionsChanged: changes.length - bulletChanges.length,
      message: `Rolled back to version ${input.version} as version ${version}; the versions in between stay in the history.`,
    };
  });
}

// ---- Lineage --------------------------------------------------------------------------------

function lineageKinds(before: BulletState | null, after: BulletState | null, absorbed: readonly string[]): LineageKind[] {
  const kinds: LineageKind[] = [];
  if (!before) kinds.push("added");
  if (before && after) {
    if (before.content !== after.content) kinds.push("edited");
    if (before.sectionId !== after.sectionId) kinds.push("moved");
    else if (before.position !== after.position) kinds.push("reordered");
    if (before.status === "active" && after.status === "archived") kinds.push(after.mergedInto ? "merged_into" : "archived");
    if (before.status === "archived" && after.status === "active") kinds.push("restored");
    if (before.helpful !== after.helpful || before.harmful !== after.harmful || before.neutral !== after.neutral) kinds.push("counters");
    // Archiving unpins too; "archived" already says the bullet left the context.
    if (!before.pinned && after.pinned) kinds.push("pinned");
    if (before.pinned && !after.pinned && after.status === "active") kinds.push("unpinned");
  }
  if (absorbed.length > 0) kinds.push("absorbed");
  return kinds;
}

export async function lineage(db: Db, input: z.output<typeof lineageInput>): Promise<BulletLineage> {
  const snapshot = await loadSnapshot(db, input.playbookId);
  const [rows, citing] = await Promise.all([
    repo.bulletLineage(db, input.playbookId, input.bulletId),
    repo.tracesCiting(db, input.playbookId, input.bulletId, CITING_TRACES_SHOWN),
  ]);
  const current = snapshot.entry.state.bullets.get(input.bulletId) ?? null;
  if (!current && rows.length === 0) throw notFound(`Bullet [${input.bulletId}]`);
  const entries = rows.map((row): LineageEntry => {
    const change = row.change as Extract<VersionChange, { entity: "bullet" }>;
    const { before, after } = change;
    return {
      version: row.version,
      author: row.author,
      reason: row.reason,
      createdAt: row.createdAt,
      deltaId: row.deltaId,
      deltaOrigin: row.deltaOrigin,
      kinds: lineageKinds(before, after, row.absorbed),
      before,
      after,
      segments: before && after && before.content !== after.content ? diffText(before.content, after.content) : null,
      absorbed: row.absorbed,
    };
  });
  const creators = new Map<string, string>();
  for (const entry of entries) if (entry.deltaId && !entry.before && entry.after) creators.set(entry.deltaId, entry.after.content);
  const versionDeltas = entries.flatMap((entry) => (entry.deltaId ? [entry.deltaId] : []));
  const deltas = await repo.deltasTouching(db, input.playbookId, input.bulletId, versionDeltas);
  const lineageDeltas = deltas.map((delta): LineageDelta => {
    const createdContent = creators.get(delta.id);
    return {
      deltaId: delta.id,
      status: delta.status as DeltaStatus,
      origin: delta.origin,
      author: delta.author,
      rationale: delta.rationale,
      createdAt: delta.createdAt,
      decidedBy: delta.decidedBy,
      appliedVersion: delta.appliedVersion,
      operations: delta.operations.flatMap((op) => {
        const payload = readStoredOperation(op.payload, { deltaId: delta.id, position: op.position });
        const created = createdContent !== undefined && payload.type === "add" && payload.content.trim() === createdContent;
        return op.targetIds.includes(input.bulletId) || created
          ? [{ position: op.position, type: op.type, status: op.status, payload }]
          : [];
      }),
    };
  });
  const sectionName = current ? (snapshot.entry.state.sections.find((s) => s.id === current.sectionId)?.name ?? null) : null;
  return {
    playbookId: input.playbookId,
    bulletId: input.bulletId,
    current,
    currentSectionName: sectionName,
    entries,
    deltas: lineageDeltas,
    citedBy: { traces: citing.traces.map((trace) => ({ ...trace, task: trace.task.slice(0, CITING_TASK_LENGTH) })), total: citing.total },
  };
}
