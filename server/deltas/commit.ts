// The one write path of a playbook's content. Every change (a proposal applied at once, a person's
// edit, an approval, a rollback) goes through commitChanges(): one transaction that moves the
// version on only if it is still the one the change was computed from (optimistic concurrency),
// writes only the changed rows, and records the PlaybookVersion and the delta together. A writer
// that loses the race recomputes its change on the newer version through withVersionRetry().
// A person's own change (an edit, a rollback, an undo) commits through commitPersonChange().
import type { BulletState, SectionState, VersionChange } from "@/server/ace/history";
import type { PlaybookState } from "@/server/ace/delta";
import { auditInsert, type AuditRecord, type AuditSource, type Who } from "@/server/audit/record";
import { forgetHead } from "@/server/context/heads";
import { publicationWithBump } from "@/server/context/publication";
import type { Db, Tx } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import { recordVersion } from "@/server/history/record";
import * as playbookRepo from "@/server/playbooks/repository";
import { changeSummaries, type ChangeSummaries } from "./audit";
import { moveOn, remember, tokenDelta, type Snapshot } from "./engine-state";
import * as repo from "./repository";

/** Large applies (a rollback of thousands of bullets) on the embedded engine take seconds. */
export const WRITE_TRANSACTION = { maxWait: 15_000, timeout: 120_000 } as const;
/** A change computed on a version someone else moved on from is recomputed this many times. */
const COMMIT_ATTEMPTS = 4;

/** The version moved on between reading the state and committing: recompute or report a conflict. */
export class VersionMoved extends Error {
  override readonly name = "VersionMoved";
}

export interface Commit {
  playbookId: string;
  snapshot: Snapshot;
  next: PlaybookState;
  changes: VersionChange[];
  author: string;
  reason: string;
  /** Writes the delta's rows inside the transaction and returns its id for the version record. */
  recordDelta: (tx: Tx, version: number) => Promise<string>;
  provenance: (bulletId: string) => repo.NewBulletProvenance;
  /**
   * The audit entry of the change, written in the same transaction: who, and what for the version
   * written; `changed` summarises the commit's changes, for the entry's before and after.
   */
  audit: { source: AuditSource; record: (version: number, changed: ChangeSummaries) => AuditRecord };
}

/**
 * One transaction: the version bump first (it serialises writers, and publishes a version that
 * changes more than counters to agents' context), then the delta and the rows, and last the version with
 * its figures and audit entry, in one statement.
 */
export async function commitChanges(db: Db, commit: Commit): Promise<number> {
  const { entry } = commit.snapshot;
  const version = entry.version + 1;
  const figures = await db.$transaction(async (tx) => {
    const bumped = await playbookRepo.bumpVersion(tx, commit.playbookId, entry.version, {
      nextBulletNumber: commit.next.nextIdNumber,
      ...publicationWithBump(commit.changes, version),
    });
    if (!bumped) throw new VersionMoved();
    const deltaId = await commit.recordDelta(tx, version);
    await writeChanges(tx, commit.playbookId, commit.changes, version, commit.provenance);
    const recorded = await recordVersion(tx, {
      playbookId: commit.playbookId,
      number: version,
      author: commit.author,
      reason: commit.reason,
      changes: commit.changes,
      deltaId,
      state: commit.next,
      previousFigures: entry.figures ?? undefined,
      published: true,
      alsoInsert: [auditInsert(commit.audit.source, commit.audit.record(version, changeSummaries(commit.changes)))],
    });
    return recorded;
  }, WRITE_TRANSACTION);
  forgetHead(db, commit.playbookId);
  // Committed: move the cached state forward instead of reloading it.
  if (!entry.retired) {
    remember(
      db,
      commit.playbookId,
      moveOn(entry, commit.changes, {
        version,
        state: commit.next,
        tokens: entry.tokens === null ? null : entry.tokens + tokenDelta(commit.changes),
        figures,
      }),
    );
  }
  return version;
}

/** A person's change (an edit, a rollback, the undo of a decision), recorded as a delta they applied at once. */
export interface PersonCommit extends Omit<Commit, "author" | "recordDelta" | "audit"> {
  who: Who;
  /** The delta's own fields; it is based on `baseVersion` and applied as the version committed. */
  delta: Pick<repo.NewDeltaRow, "id" | "origin" | "rationale" | "baseVersion"> & { operations?: repo.NewOperationRow[] };
  /** More writes in the same transaction, after the delta's (the undo reopens the delta it undid). */
  alsoInTransaction?: (tx: Tx, version: number) => Promise<void>;
  audit: (version: number, changed: ChangeSummaries) => AuditRecord;
}

export function commitPersonChange(db: Db, { who, delta, alsoInTransaction, audit, ...commit }: PersonCommit): Promise<number> {
  const { operations = [], ...row } = delta;
  return commitChanges(db, {
    ...commit,
    author: who.actor,
    recordDelta: async (tx, version) => {
      const applied = repo.appliedByPerson({ ...row, playbookId: commit.playbookId, actor: who.actor, appliedVersion: version });
      await repo.insertDelta(tx, applied, operations);
      await alsoInTransaction?.(tx, version);
      return delta.id;
    },
    audit: { source: who.audit, record: audit },
  });
}

/** Anything but a shift among neighbours makes a proposal that targets the bullet stale. */
function bumpsStaleness(before: BulletState, after: BulletState): boolean {
  return (Object.keys(after) as (keyof BulletState)[]).some((key) => key !== "position" && before[key] !== after[key]);
}

async function writeChanges(
  tx: Tx,
  playbookId: string,
  changes: readonly VersionChange[],
  version: number,
  provenance: (bulletId: string) => repo.NewBulletProvenance,
): Promise<void> {
  const newSections: SectionState[] = [];
  const sectionUpdates: { before: SectionState; after: SectionState }[] = [];
  const removedSections: string[] = [];
  const bullets: repo.BulletWrite[] = [];
  for (const change of changes) {
    if (change.entity === "section") {
      if (!change.before && change.after) newSections.push(change.after);
      else if (change.before && change.after) sectionUpdates.push({ before: change.before, after: change.after });
      else if (change.before) removedSections.push(change.id);
      continue;
    }
    if (!change.before && change.after) bullets.push({ state: change.after, provenance: provenance(change.id), bump: true });
    else if (change.before && change.after) {
      bullets.push({ state: change.after, provenance: null, bump: bumpsStaleness(change.before, change.after) });
    } else {
      throw new Error(`A change may not delete bullet [${change.id}]: bullets are archived, never deleted.`);
    }
  }
  // Renames first: a new section may take the name another one gives up in the same delta.
  await repo.updateSections(tx, playbookId, sectionUpdates, version);
  await repo.insertSections(tx, playbookId, newSections, version);
  await repo.writeBullets(tx, playbookId, bullets, version);
  await repo.deleteSections(tx, playbookId, removedSections);
}

/** What an attempt returns to be run again on a newer version without having tried to commit. */
export const RETRY: unique symbol = Symbol("retry");

/**
 * Computes and commits a change, and computes it again on the newer version when another writer
 * commits first (commitChanges throws VersionMoved) or when the attempt returns RETRY (its cached
 * state was retired while it worked). `raced` tells an attempt that an earlier one lost a commit
 * race, so it can report that rather than a conflict the person caused. After `attempts` tries,
 * throws `exhausted()`.
 */
export async function withVersionRetry<T>(
  { attempts = COMMIT_ATTEMPTS, exhausted, backoffMs = 0 }: { attempts?: number; exhausted: () => Error; backoffMs?: number },
  attempt: (context: { raced: boolean }) => Promise<T | typeof RETRY>,
): Promise<T> {
  let raced = false;
  for (let tried = 0; tried < attempts; tried += 1) {
    try {
      const outcome = await attempt({ raced });
      if (outcome !== RETRY) return outcome;
    } catch (error) {
      if (!(error instanceof VersionMoved)) throw error;
      raced = true;
      // Many writers at once (a fleet's counter tags): a random pause spreads their next attempts.
      if (backoffMs > 0) await sleep(Math.random() * backoffMs * 2 ** Math.min(tried, 5));
    }
  }
  throw exhausted();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Counter increments (tag operations) commute: applied in any order they give the same counts, so a
 * delta of only tags never conflicts with another writer. It is recomputed on the newer version
 * until it commits (many more attempts, with a random pause), never refused as a conflict.
 */
export const COMMUTING_RETRY = { attempts: 64, backoffMs: 4 } as const;

export function onlyCounterIncrements(ops: readonly { type: string }[]): boolean {
  return ops.length > 0 && ops.every((op) => op.type === "tag");
}

/** The change lost every race against other writers: the person reloads and tries again. */
export function raceError(what: string): AppError {
  return new AppError(
    "CONFLICT",
    `The playbook was changed by someone else a moment ago; your ${what} was not applied. Reload and try again.`,
    { details: { stale: true } },
  );
}
