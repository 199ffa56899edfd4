// Review decisions on a pending delta: approve (all or some operations, optionally edited), reject,
// edit one operation, re-base onto the current version, and the same decision for many at once.
import type { z } from "zod";
import type { DeltaOperation, Finding } from "@/server/ace/delta";
import { asSentence } from "@/server/ace/delta/messages";
import { plural } from "@/server/ace/text/format";
import { recordAudit, whoOf, type Who, type WhoOrName } from "@/server/audit/record";
import type { Db, DbOrTx, Tx } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import { applyOrExplain, revalidate, staleTargets } from "./checks";
import { commitChanges, COMMUTING_RETRY, onlyCounterIncrements, raceError, RETRY, withVersionRetry, WRITE_TRANSACTION } from "./commit";
import { freshSnapshot, type Snapshot } from "./engine-state";
import {
  deltaProvenance,
  mergeTargets,
  operationTargets,
  payloadOf,
  readEvidence,
  renumber,
  staleError,
  targetColumns,
  type StaleTarget,
} from "./findings";
import { quotesTraces } from "./audit";
import { requireDelta } from "./queries";
import * as repo from "./repository";
import type {
  approveDeltaInput,
  BulkResult,
  bulkDeltaInput,
  DeltaOrigin,
  DeltaOutcome,
  rejectDeltaInput,
  updateOperationInput,
} from "./schemas";

type Decision = { status: string; decidedBy: string | null };

/** "approved by Ada", "rejected by Ada", "auto-applied". */
function decisionWords({ status, decidedBy }: Decision): string {
  const what = status === "rejected" ? "rejected" : status === "auto_applied" ? "auto-applied" : "approved";
  return decidedBy && status !== "auto_applied" ? `${what} by ${decidedBy}` : what;
}

/** `raced`: this call lost a race for the delta a moment ago, so the decision is news to the person. */
function requirePending(delta: repo.DeltaRecord, raced = false): void {
  if (delta.status === "pending") return;
  if (raced) throw justDecided(delta);
  throw new AppError("CONFLICT", `This delta was already ${decisionWords(delta)}; there is nothing left to decide. Reload the queue.`, {
    details: { status: delta.status, decidedBy: delta.decidedBy },
  });
}

function justDecided(decision: Decision): AppError {
  return new AppError(
    "CONFLICT",
    `This delta was just decided (${decisionWords(decision)}) while you were deciding; yours was not applied. Reload the queue.`,
    { details: { status: decision.status, decidedBy: decision.decidedBy } },
  );
}

/**
 * Someone else decided or changed the delta after it was read (on PostgreSQL a delta's row and its
 * operations may even be read on either side of their decision): a conflict naming that decision.
 */
async function decidedMeanwhile(db: DbOrTx, deltaId: string): Promise<AppError> {
  const decision = await repo.findDecision(db, deltaId);
  if (decision && decision.status !== "pending") return justDecided(decision);
  return new AppError("CONFLICT", "This delta was changed by someone else a moment ago; nothing was applied. Reload the queue.");
}

/**
 * The delta's targets changed after it was read pending: maybe by someone approving this very delta
 * meanwhile (read in one statement, its row and its operations are both still pending), which is the
 * conflict to name; else it is stale.
 */
async function staleOrDecided(db: DbOrTx, deltaId: string, stale: readonly StaleTarget[]): Promise<AppError> {
  const decision = await repo.findDecision(db, deltaId);
  return decision && decision.status !== "pending" ? justDecided(decision) : staleError(stale);
}

function checkEditType(record: repo.OperationRecord, op: DeltaOperation): void {
  if (record.type !== op.type) {
    throw new AppError(
      "INVALID_INPUT",
      `Operation ${record.position + 1} is a ${record.type} operation; an edit keeps its type (got ${op.type}). ` +
        "Reject it and propose a new one instead.",
    );
  }
}

export async function approveDelta(db: Db, author: WhoOrName, input: z.output<typeof approveDeltaInput>): Promise<DeltaOutcome> {
  const who = whoOf(author);
  const { actor } = who;
  let read: repo.DeltaRecord | null = await requireDelta(db, input.deltaId);
  // Counter increments commute: approving them never conflicts with other writers (see COMMUTING_RETRY).
  const commuting = onlyCounterIncrements(
    read.operations.filter((op) => op.status === "pending" && (!input.operationIds || input.operationIds.includes(op.id))),
  );
  const retry = commuting ? COMMUTING_RETRY : {};
  return withVersionRetry({ ...retry, exhausted: () => raceError("approval") }, async ({ raced }) => {
    const delta = read ?? (await requireDelta(db, input.deltaId));
    read = null;
    requirePending(delta, raced);
    const byId = new Map(delta.operations.map((op) => [op.id, op]));
    const pending = delta.operations.filter((op) => op.status === "pending");
    // A pending delta always has a pending operation: none means its operations were read after a decision.
    if (pending.length === 0) throw await decidedMeanwhile(db, delta.id);
    for (const id of [...(input.operationIds ?? []), ...input.edits.map((e) => e.operationId)]) {
      const record = byId.get(id);
      if (!record) throw new AppError("INVALID_INPUT", `Operation ${id} is not part of this delta.`);
      if (record.status !== "pending") {
        const decision = await repo.findDecision(db, delta.id);
        if (decision && decision.status !== "pending") throw justDecided(decision);
        throw new AppError("INVALID_INPUT", `Operation ${record.position + 1} was already ${record.status}.`);
      }
    }
    const edits = new Map(input.edits.map((edit) => [edit.operationId, edit.operation as DeltaOperation]));
    for (const [id, op] of edits) checkEditType(byId.get(id) as repo.OperationRecord, op);
    const chosen = new Set(input.operationIds ?? pending.map((op) => op.id));
    const selected = pending.filter((op) => chosen.has(op.id));
    if (selected.length === 0) throw new AppError("INVALID_INPUT", "This delta has no pending operation to approve. Reject it instead.");
    const ops = selected.map((record) => edits.get(record.id) ?? payloadOf(record));
    const positions = selected.map((record) => record.position);

    const snapshot = await freshSnapshot(db, delta.playbookId);
    const { head, entry } = snapshot;
    const targets = mergeTargets(ops.map((op) => operationTargets(op, entry.state.sections)));
    const stale = commuting ? [] : await staleTargets(db, delta.playbookId, delta.baseVersion, head.version, targets);
    if (stale.length > 0) throw raced ? raceError("approval") : await staleOrDecided(db, delta.id, stale);
    if (entry.retired) return RETRY;
    const result = applyOrExplain(snapshot, ops, positions, { nearDuplicates: false });
    const rejectedIds = pending.filter((op) => !chosen.has(op.id)).map((op) => op.id);
    const origin = delta.origin as DeltaOrigin;
    const note = input.note ?? null;
    const version = await commitChanges(db, {
      playbookId: delta.playbookId,
      snapshot,
      next: result.state,
      changes: result.changes,
      author: actor,
      reason: approvalReason(delta, selected.length, pending.length, note),
      recordDelta: async (tx, version) => {
        const decided = await repo.decideDelta(
          tx,
          delta.id,
          { status: "applied", appliedVersion: version, reviewNote: note, decidedBy: actor, decidedAt: new Date() },
          { approved: selected.map((op) => op.id), rejected: rejectedIds },
        );
        if (decided !== 1) throw await decidedMeanwhile(tx, delta.id);
        for (const [id, op] of edits) {
          const record = byId.get(id) as repo.OperationRecord;
          await repo.updateOperation(tx, id, {
            payload: op,
            originalPayload: record.originalPayload ?? record.payload,
            editedBy: actor,
            ...targetColumns(operationTargets(op, entry.state.sections)),
          });
        }
        return delta.id;
      },
      provenance: deltaProvenance(
        origin,
        readEvidence(delta.evidence),
        delta.rationale,
        selected.map((record, index) => ({ op: ops[index] as DeltaOperation, rationale: record.rationale })),
        result.addedIds,
      ),
      audit: {
        source: who.audit,
        record: (version, changed) => ({
          action: "delta.approve",
          target: deltaTarget(delta),
          playbookId: delta.playbookId,
          before: { status: "pending", version: head.version, ...changed.before },
          after: {
            status: "applied",
            version,
            approved: selected.length,
            rejected: rejectedIds.length,
            edited: edits.size,
            note,
            ...changed.after,
          },
        }),
      },
    });
    const partial = rejectedIds.length > 0 ? ` (${plural(selected.length, "operation")} approved, ${rejectedIds.length} rejected)` : "";
    return {
      deltaId: delta.id,
      playbookId: delta.playbookId,
      status: "applied",
      playbookVersion: version,
      appliedVersion: version,
      addedIds: result.addedIds,
      findings: result.warnings.length ? renumber(result.warnings, ops, positions) : [],
      stale: false,
      autoApplied: false,
      message: `Delta approved and applied as version ${version}${partial}.`,
    };
  });
}

function deltaTarget(delta: repo.DeltaRecord) {
  return { type: "delta", id: delta.id, label: `${delta.origin} delta by ${delta.author}` };
}

function approvalReason(delta: repo.DeltaRecord, approved: number, pending: number, note: string | null): string {
  const part = approved < pending ? ` (${approved} of ${pending} operations)` : "";
  const why = delta.rationale ? `: ${delta.rationale}` : "";
  const noted = note ? ` — ${note}` : "";
  return `Approved ${delta.origin} delta by ${delta.author}${part}${why}${noted}`.slice(0, 4_000);
}

export async function rejectDelta(db: Db, author: WhoOrName, input: z.output<typeof rejectDeltaInput>): Promise<DeltaOutcome> {
  const who = whoOf(author);
  const { actor } = who;
  const delta = await requireDelta(db, input.deltaId);
  requirePending(delta);
  const pending = delta.operations.filter((op) => op.status === "pending");
  if (pending.length === 0) throw await decidedMeanwhile(db, delta.id);
  const ids = input.operationIds ?? pending.map((op) => op.id);
  for (const id of ids) {
    const record = delta.operations.find((op) => op.id === id);
    if (!record) throw new AppError("INVALID_INPUT", `Operation ${id} is not part of this delta.`);
    if (record.status !== "pending") {
      const decision = await repo.findDecision(db, delta.id);
      if (decision && decision.status !== "pending") throw justDecided(decision);
      throw new AppError("INVALID_INPUT", `Operation ${record.position + 1} was already ${record.status}.`);
    }
  }
  const remaining = pending.filter((op) => !ids.includes(op.id));
  const whole = remaining.length === 0;
  await db.$transaction(async (tx) => {
    if (whole) {
      const decision = { status: "rejected" as const, reviewNote: input.reason, decidedBy: actor, decidedAt: new Date() };
      const decided = await repo.decideDelta(tx, delta.id, decision, { rejected: ids });
      if (decided !== 1) throw await decidedMeanwhile(tx, delta.id);
    } else if (!(await repo.lockPendingDelta(tx, delta.id))) {
      throw await decidedMeanwhile(tx, delta.id);
    } else {
      await repo.setOperationStatus(tx, delta.id, ids, "rejected");
    }
    if (!whole) {
      // A partial rejection keeps its reason with the operations it concerns.
      for (const id of ids) {
        const rationale = delta.operations.find((op) => op.id === id)?.rationale ?? "";
        await repo.updateOperation(tx, id, { rationale: appendNote(rationale, `${OWN_REJECTION}${actor}: ${input.reason}`) });
      }
    }
    await recordAudit(tx, who.audit, {
      action: "delta.reject",
      target: deltaTarget(delta),
      playbookId: delta.playbookId,
      before: { status: "pending", pendingOperations: pending.length },
      after: { status: whole ? "rejected" : "pending", rejectedOperations: ids.length, reason: input.reason },
    });
  }, WRITE_TRANSACTION);
  return {
    deltaId: delta.id,
    playbookId: delta.playbookId,
    status: whole ? "rejected" : "pending",
    playbookVersion: delta.playbook.version,
    appliedVersion: null,
    addedIds: [],
    findings: [],
    stale: false,
    autoApplied: false,
    message: whole
      ? "Delta rejected. The playbook is unchanged."
      : `${plural(ids.length, "operation")} rejected; ${plural(remaining.length, "operation")} still wait for review.`,
  };
}

/** How a partial rejection notes its reason on the operation it rejects (rejectDelta). */
const OWN_REJECTION = "Rejected by ";

/** The operation was rejected on its own, before the delta's decision (undo leaves it rejected). */
export function rejectedOnItsOwn(rationale: string): boolean {
  return rationale.split("\n").some((line) => line.startsWith(OWN_REJECTION));
}

function appendNote(rationale: string, note: string): string {
  return (rationale ? `${rationale}\n${note}` : note).slice(0, 4_000);
}

export async function updateOperation(db: Db, author: WhoOrName, input: z.output<typeof updateOperationInput>): Promise<DeltaOutcome> {
  const who = whoOf(author);
  const { actor } = who;
  const delta = await requireDelta(db, input.deltaId);
  requirePending(delta);
  const record = delta.operations.find((op) => op.id === input.operationId);
  if (!record) throw new AppError("INVALID_INPUT", "That operation is not part of this delta.");
  if (record.status !== "pending") throw new AppError("INVALID_INPUT", `Operation ${record.position + 1} was already ${record.status}.`);
  const op = input.operation as DeltaOperation;
  checkEditType(record, op);
  const snapshot = await freshSnapshot(db, delta.playbookId);
  const pending = delta.operations.filter((o) => o.status === "pending");
  const ops = pending.map((o) => (o.id === record.id ? op : payloadOf(o)));
  const validation = revalidate(snapshot, pending, ops);
  await db.$transaction(async (tx) => {
    if (!(await repo.lockPendingDelta(tx, delta.id))) throw await decidedMeanwhile(tx, delta.id);
    await repo.updateOperation(tx, record.id, {
      payload: op,
      originalPayload: record.originalPayload ?? record.payload,
      editedBy: actor,
      ...(input.rationale === undefined ? {} : { rationale: input.rationale }),
    });
    await storeFindings(tx, pending, ops, validation.byRecord, snapshot);
    await recordAudit(tx, who.audit, {
      action: "delta.edit",
      target: deltaTarget(delta),
      playbookId: delta.playbookId,
      // The proposal as it was, when drawn from traces, is not kept: the log cannot forget an erased trace.
      before: quotesTraces(delta.origin, delta.evidence)
        ? { operation: record.position + 1, type: record.type, rationaleChars: record.rationale.length }
        : { operation: record.position + 1, payload: record.payload, rationale: record.rationale },
      after: {
        operation: record.position + 1,
        payload: op,
        ...(input.rationale !== undefined || !quotesTraces(delta.origin, delta.evidence)
          ? { rationale: input.rationale ?? record.rationale }
          : {}),
      },
    });
  }, WRITE_TRANSACTION);
  const targets = mergeTargets(ops.map((o) => operationTargets(o, snapshot.entry.state.sections)));
  const stale = await staleTargets(db, delta.playbookId, delta.baseVersion, snapshot.head.version, targets);
  return {
    deltaId: delta.id,
    playbookId: delta.playbookId,
    status: "pending",
    playbookVersion: snapshot.head.version,
    appliedVersion: null,
    addedIds: [],
    findings: validation.findings,
    stale: stale.length > 0,
    autoApplied: false,
    message: `Operation ${record.position + 1} updated${validation.ok ? "." : "; the delta still has problems to fix."}`,
  };
}

async function storeFindings(
  tx: Tx,
  records: readonly repo.OperationRecord[],
  ops: readonly DeltaOperation[],
  byRecord: ReadonlyMap<string, Finding[]>,
  snapshot: Snapshot,
): Promise<void> {
  for (const [index, record] of records.entries()) {
    const op = ops[index] as DeltaOperation;
    await repo.updateOperation(tx, record.id, {
      flags: byRecord.get(record.id) ?? [],
      ...targetColumns(operationTargets(op, snapshot.entry.state.sections)),
    });
  }
}

export async function rebaseDelta(db: Db, author: WhoOrName, deltaId: string): Promise<DeltaOutcome> {
  const who: Who = whoOf(author);
  const delta = await requireDelta(db, deltaId);
  requirePending(delta);
  const snapshot = await freshSnapshot(db, delta.playbookId);
  const pending = delta.operations.filter((o) => o.status === "pending");
  const ops = pending.map(payloadOf);
  const validation = revalidate(snapshot, pending, ops);
  const version = snapshot.head.version;
  await db.$transaction(async (tx) => {
    if (!(await repo.lockPendingDelta(tx, delta.id))) throw await decidedMeanwhile(tx, delta.id);
    await storeFindings(tx, pending, ops, validation.byRecord, snapshot);
    if (validation.ok) await repo.rebaseDelta(tx, delta.id, version);
    await recordAudit(tx, who.audit, {
      action: "delta.rebase",
      target: deltaTarget(delta),
      playbookId: delta.playbookId,
      before: { baseVersion: delta.baseVersion },
      after: { baseVersion: validation.ok ? version : delta.baseVersion, applies: validation.ok },
    });
  }, WRITE_TRANSACTION);
  const targets = mergeTargets(ops.map((o) => operationTargets(o, snapshot.entry.state.sections)));
  const stale = validation.ok ? [] : await staleTargets(db, delta.playbookId, delta.baseVersion, version, targets);
  return {
    deltaId: delta.id,
    playbookId: delta.playbookId,
    status: "pending",
    playbookVersion: version,
    appliedVersion: null,
    addedIds: [],
    findings: validation.findings,
    stale: stale.length > 0,
    autoApplied: false,
    message: validation.ok
      ? `Re-based on version ${version}: the operations still apply. ` +
        "Review the changes against the current bullets, then approve or reject."
      : `The delta no longer applies to version ${version}: ${asSentence(validation.findings.find((f) => f.severity === "error")?.message ?? "an operation has a problem")} ` +
        "Edit the operations or reject the delta.",
  };
}

export async function bulkDecide(db: Db, who: WhoOrName, input: z.output<typeof bulkDeltaInput>): Promise<BulkResult> {
  const results: BulkResult["results"] = [];
  // One by one, each in its own transaction: a failure stops only its own delta.
  for (const deltaId of [...new Set(input.deltaIds)]) {
    try {
      const outcome =
        input.action === "approve"
          ? await approveDelta(db, who, { deltaId, edits: [], ...(input.reason ? { note: input.reason } : {}) })
          : await rejectDelta(db, who, { deltaId, reason: input.reason ?? "" });
      results.push({ deltaId, ok: true, status: outcome.status, appliedVersion: outcome.appliedVersion, error: null });
    } catch (error) {
      if (!(error instanceof AppError)) console.error("[delta.bulk]", error);
      results.push({
        deltaId,
        ok: false,
        status: null,
        appliedVersion: null,
        error:
          error instanceof AppError
            ? { code: error.code, message: error.message }
            : { code: "INTERNAL", message: "Something went wrong on the server; this delta was not changed." },
      });
    }
  }
  const succeeded = results.filter((r) => r.ok).length;
  return { results, succeeded, failed: results.length - succeeded };
}
