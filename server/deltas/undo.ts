// Undoing a decision a moment after it was made: an approval (or an auto-apply), a rejection, or a
// rollback. An applied delta's version is reverted by a new version, like a rollback of that one
// version, and only while no later version touched what it changed; the delta then waits for review
// again. A rejection changed nothing in the playbook, so its undo only reopens the delta.
import { randomUUID } from "node:crypto";
import type { VersionChange } from "@/server/ace/history";
import { redoChanges, undoChanges } from "@/server/ace/replay";
import { recordAudit, whoOf, type Who, type WhoOrName } from "@/server/audit/record";
import type { Db } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import * as historyRepo from "@/server/history/repository";
import { rollbackChanges } from "@/server/history/service";
import { commitPersonChange, raceError, RETRY, withVersionRetry, WRITE_TRANSACTION } from "./commit";
import { freshSnapshot } from "./engine-state";
import { requireDelta } from "./queries";
import * as repo from "./repository";
import { rejectedOnItsOwn } from "./review";
import type { DeltaStatus, UndoResult } from "./schemas";

function alreadyChanged(): AppError {
  return new AppError("CONFLICT", "This decision was undone or changed by someone else a moment ago. Reload the queue.");
}

/**
 * The operations a decision settled, which its undo sets back to pending: the approved ones, and the
 * rejected ones except those rejected on their own before (a partial rejection notes its reason on
 * the operation, review.ts).
 */
function decidedTogether(delta: repo.DeltaRecord): string[] {
  return delta.operations
    .filter((op) => op.status === "approved" || (op.status === "rejected" && !rejectedOnItsOwn(op.rationale)))
    .map((op) => op.id);
}

/**
 * Who asked is written to the audit log in the undo's own transaction (for an undone rejection, which
 * writes no version, it is the only record besides the delta's note).
 */
export async function undoDecision(db: Db, author: WhoOrName, deltaId: string): Promise<UndoResult> {
  const who = whoOf(author);
  const delta = await requireDelta(db, deltaId);
  const status = delta.status as DeltaStatus;
  if (status === "pending") {
    throw new AppError("CONFLICT", "This delta waits for review: there is no decision to undo.");
  }
  if (status === "rejected") return undoRejection(db, who, delta);
  if (delta.appliedVersion === null) throw new AppError("CONFLICT", "This delta was never applied, so there is nothing to undo.");
  return undoApplied(db, who, delta, delta.appliedVersion);
}

function auditUndo(delta: repo.DeltaRecord, what: string, after: { status: DeltaStatus; version: number | null }) {
  return {
    action: "delta.undo" as const,
    target: { type: "delta", id: delta.id, label: `${what} of the ${delta.origin} delta by ${delta.author}` },
    playbookId: delta.playbookId,
    before: { status: delta.status, appliedVersion: delta.appliedVersion, decidedBy: delta.decidedBy },
    after,
  };
}

async function undoRejection(db: Db, { actor, audit }: Who, delta: repo.DeltaRecord): Promise<UndoResult> {
  const reopened = decidedTogether(delta);
  const head = await repo.currentVersion(db, delta.playbookId);
  if (!head) throw notFound("The playbook");
  await db.$transaction(async (tx) => {
    // The base version stays: whatever changed since the proposal still makes it stale.
    const note = `Rejection by ${delta.decidedBy ?? "a reviewer"} undone by ${actor}${delta.reviewNote ? ` (it said: ${delta.reviewNote})` : ""}.`;
    const count = await repo.reopenDelta(
      tx,
      delta.id,
      { status: "rejected", appliedVersion: null },
      { baseVersion: delta.baseVersion, reviewNote: note.slice(0, 2_000) },
    );
    if (count !== 1) throw alreadyChanged();
    await repo.setOperationStatus(tx, delta.id, reopened, "pending");
    await recordAudit(tx, audit, auditUndo(delta, "rejection", { status: "pending", version: null }));
  }, WRITE_TRANSACTION);
  return {
    deltaId: delta.id,
    playbookId: delta.playbookId,
    status: "pending",
    version: null,
    undoneVersion: null,
    message: "Rejection undone: the delta waits for review again.",
  };
}

function changedIds(changes: readonly VersionChange[]) {
  return {
    bulletIds: changes.filter((change) => change.entity === "bullet").map((change) => change.id),
    sectionIds: changes.filter((change) => change.entity === "section").map((change) => change.id),
  };
}

async function undoApplied(db: Db, who: Who, delta: repo.DeltaRecord, undone: number): Promise<UndoResult> {
  const isRollback = delta.origin === "rollback";
  const what = isRollback ? "rollback" : delta.status === "auto_applied" ? "auto-apply" : "approval";
  const recorded = await historyRepo.findVersionChanges(db, delta.playbookId, undone);
  if (!recorded) throw notFound(`Version ${undone}`);
  const touched = changedIds(recorded.operations);
  return withVersionRetry({ exhausted: () => raceError("undo") }, async () => {
    const snapshot = await freshSnapshot(db, delta.playbookId);
    const current = snapshot.head.version;
    const later = await historyRepo.firstVersionTouching(db, delta.playbookId, undone, touched.bulletIds, touched.sectionIds);
    if (later) {
      const label =
        later.entity === "bullet"
          ? `[${later.id}]`
          : `section "${snapshot.entry.state.sections.find((section) => section.id === later.id)?.name ?? later.id}"`;
      throw new AppError(
        "CONFLICT",
        `This ${what} cannot be undone: version ${later.number} by ${later.author} changed ${label} after it, and an undo would overwrite that. ` +
          "Roll back in the history or edit the bullets instead.",
      );
    }
    if (snapshot.entry.retired) return RETRY;
    // Nothing later touched what the version changed, so undoing it alone gives the state it left.
    const target = undoChanges(snapshot.entry.state, recorded.operations);
    const reason = isRollback
      ? `Undid version ${undone} (${delta.rationale})`
      : `Undid the ${what} of the ${delta.origin} delta by ${delta.author} (version ${undone})`;
    const { changes } = rollbackChanges(snapshot.entry.state, target, `${reason.slice(0, 200)}`);
    if (changes.length === 0) throw new AppError("CONFLICT", `Version ${undone} changed nothing that is still there to undo.`);
    const next = redoChanges(snapshot.entry.state, changes);
    const version = await commitPersonChange(db, {
      playbookId: delta.playbookId,
      snapshot,
      next,
      changes,
      who,
      reason: reason.slice(0, 4_000),
      delta: { id: randomUUID(), origin: "rollback", rationale: reason.slice(0, 10_000), baseVersion: current },
      alsoInTransaction: async (tx, version) => {
        if (isRollback) return;
        const note = `${what.charAt(0).toUpperCase()}${what.slice(1)}${delta.decidedBy ? ` by ${delta.decidedBy}` : ""} undone by ${who.actor} (version ${version}).`;
        const count = await repo.reopenDelta(
          tx,
          delta.id,
          { status: delta.status as DeltaStatus, appliedVersion: undone },
          // Based on the undo's version: the playbook is as it was, so the delta is not stale.
          { baseVersion: version, reviewNote: note },
        );
        if (count !== 1) throw alreadyChanged();
        await repo.setOperationStatus(tx, delta.id, decidedTogether(delta), "pending");
      },
      provenance: () => ({ origin: "manual", justification: reason.slice(0, 2_000), sourceTraceId: null, sourceRunId: null }),
      audit: (version) => auditUndo(delta, what, { status: isRollback ? "applied" : "pending", version }),
    });
    return {
      deltaId: delta.id,
      playbookId: delta.playbookId,
      status: isRollback ? "applied" : "pending",
      version,
      undoneVersion: undone,
      message: isRollback
        ? `Rollback undone as version ${version}: the playbook is as it was before version ${undone}.`
        : `${what.charAt(0).toUpperCase()}${what.slice(1)} undone as version ${version}: the delta waits for review again.`,
    };
  });
}
