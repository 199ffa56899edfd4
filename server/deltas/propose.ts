// Proposals: a delta from a person, the reflector, the curator or the pruning policy waits for
// review, or is applied at once when the playbook's auto-apply rules allow it and the engine flags
// nothing. Pruning proposes archiving the bullets the playbook's policy selects.
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { validateDelta, type DeltaOperation, type DeltaValidation, type Finding, type PlaybookState } from "@/server/ace/delta";
import { proposePruning as pruningCandidates } from "@/server/ace/pruning";
import type { SimilarityIndex } from "@/server/ace/similarity";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import { staleTargets, tryApply } from "./checks";
import { commitChanges, raceError, RETRY, withVersionRetry, WRITE_TRANSACTION } from "./commit";
import { engineOptions, freshSnapshot, loadSnapshot } from "./engine-state";
import { addedRationales, hasReviewFlags, mergeTargets, operationTargets, plural, provenanceFor } from "./findings";
import * as repo from "./repository";
import { evidenceSchema, type DeltaOutcome, type DeltaStatus, type proposeDeltaInput, type PruningResult } from "./schemas";

/** What only server code may ask of a proposal (the reflector and curator runs). */
export interface ProposalOptions {
  /**
   * Apply at once whatever the playbook's auto-apply setting, unless the engine flags the delta for
   * review: the reflector's counter tags are observations, not opinions.
   */
  applyUnlessFlagged?: boolean;
  /** Findings the caller made (e.g. prompt-injection checks), per operation; they send the delta to review. */
  extraFindings?: readonly (readonly Finding[])[];
  /**
   * Scores near-duplicates instead of the local index (a provider's embeddings). It must index the
   * snapshot's active bullets; the caller builds it from the state it proposes against.
   */
  similarity?: (state: PlaybookState) => SimilarityIndex;
}

function withExtraFindings(validation: DeltaValidation, extra: ProposalOptions["extraFindings"]): DeltaValidation {
  if (!extra?.some((list) => list.length > 0)) return validation;
  const byOperation = validation.byOperation.map((list, index) => [...list, ...(extra[index] ?? [])]);
  return { ...validation, findings: byOperation.flat(), byOperation };
}

export async function proposeDelta(
  db: Db,
  actor: string,
  input: z.output<typeof proposeDeltaInput>,
  options: ProposalOptions = {},
): Promise<DeltaOutcome> {
  const ops = input.operations.map((entry) => entry.operation as DeltaOperation);
  return withVersionRetry({ exhausted: () => raceError("proposal") }, async () => {
    const snapshot = await freshSnapshot(db, input.playbookId);
    const { head, settings, entry } = snapshot;
    const baseVersion = input.baseVersion ?? head.version;
    if (baseVersion > head.version) {
      throw new AppError("INVALID_INPUT", `The playbook is at version ${head.version}; a delta cannot be based on version ${baseVersion}.`);
    }
    const confident = input.confidence !== null && input.confidence >= settings.autoApplyConfidence;
    // Pruning is never applied without a person; duplicates and limit breaches wait for a reviewer.
    const mayAutoApply = (options.applyUnlessFlagged || (settings.autoApply && confident)) && input.origin !== "pruning";
    // When it may apply at once, one engine run both validates and applies.
    const similarity = options.similarity?.(entry.state);
    const engine = engineOptions(snapshot, ops, { similarity });
    const checked = mayAutoApply ? tryApply(snapshot, ops, engine) : { validation: validateDelta(entry.state, ops, engine), result: null };
    const validation = withExtraFindings(checked.validation, options.extraFindings);
    const { result } = checked;
    const targets = ops.map((op) => operationTargets(op, entry.state.sections));
    const stale = await staleTargets(db, input.playbookId, baseVersion, head.version, mergeTargets(targets));
    const autoApply = mayAutoApply && result !== null && stale.length === 0 && !hasReviewFlags(validation.findings);

    const deltaId = randomUUID();
    const operationRows = (status: "pending" | "approved"): repo.NewOperationRow[] =>
      input.operations.map((proposed, index) => ({
        id: randomUUID(),
        position: index,
        type: proposed.operation.type,
        status,
        payload: proposed.operation,
        flags: validation.byOperation[index] ?? [],
        rationale: proposed.rationale,
        targetIds: targets[index]?.bulletIds ?? [],
        targetSectionIds: targets[index]?.sectionIds ?? [],
      }));
    const deltaRow = (status: DeltaStatus, appliedVersion: number | null): repo.NewDeltaRow => ({
      id: deltaId,
      playbookId: input.playbookId,
      status,
      origin: input.origin,
      author: actor,
      rationale: input.rationale,
      confidence: input.confidence,
      baseVersion,
      appliedVersion,
      evidence: input.evidence,
      reviewNote:
        status !== "auto_applied"
          ? null
          : options.applyUnlessFlagged
            ? "Auto-applied: counter tags are observations; the playbook does not send them to review."
            : `Auto-applied: confidence ${input.confidence} ≥ ${settings.autoApplyConfidence}`,
      decidedBy: status === "auto_applied" ? "auto-apply" : null,
      decided: status === "auto_applied",
    });

    if (!autoApply) {
      await db.$transaction((tx) => repo.insertDelta(tx, deltaRow("pending", null), operationRows("pending")), WRITE_TRANSACTION);
      const errors = validation.findings.filter((f) => f.severity === "error").length;
      const duplicates = validation.findings.filter((f) => f.kind === "near_duplicate").length;
      const notes = [
        errors > 0 ? `${plural(errors, "problem")} to fix before it can be approved` : null,
        duplicates > 0 ? `${plural(duplicates, "near-duplicate")} flagged` : null,
        stale.length > 0 ? "stale: its targets changed since its base version" : null,
      ].filter(Boolean);
      return {
        deltaId,
        playbookId: input.playbookId,
        status: "pending",
        playbookVersion: head.version,
        appliedVersion: null,
        addedIds: [],
        findings: validation.findings,
        stale: stale.length > 0,
        autoApplied: false,
        message: `Delta proposed with ${plural(ops.length, "operation")}; it waits for review${
          notes.length ? ` (${notes.join("; ")})` : ""
        }.`,
      };
    }

    if (entry.retired || result === null) return RETRY;
    const version = await commitChanges(db, {
      playbookId: input.playbookId,
      snapshot,
      next: result.state,
      changes: result.changes,
      author: actor,
      reason: `Auto-applied ${input.origin} delta${options.applyUnlessFlagged ? "" : ` (confidence ${input.confidence})`}${
        input.rationale ? `: ${input.rationale}` : ""
      }`,
      recordDelta: async (tx, version) => {
        await repo.insertDelta(tx, deltaRow("auto_applied", version), operationRows("approved"));
        return deltaId;
      },
      provenance: provenanceFor(
        input.origin,
        input.evidence,
        input.rationale,
        addedRationales(input.operations.map((o) => ({ op: o.operation, rationale: o.rationale })), result.addedIds),
      ),
    });
    return {
      deltaId,
      playbookId: input.playbookId,
      status: "auto_applied",
      playbookVersion: version,
      appliedVersion: version,
      addedIds: result.addedIds,
      findings: result.warnings,
      stale: false,
      autoApplied: true,
      message: options.applyUnlessFlagged
        ? `Delta auto-applied as version ${version}.`
        : `Delta auto-applied as version ${version}: its confidence ${input.confidence} reaches ` +
          `the playbook's threshold ${settings.autoApplyConfidence}.`,
    };
  });
}

// ---- Pruning -------------------------------------------------------------------------------

export async function proposePruningDelta(db: Db, actor: string, playbookId: string): Promise<PruningResult> {
  const snapshot = await loadSnapshot(db, playbookId);
  const { pruning, maxBullets } = snapshot.settings;
  if (!pruning.enabled) {
    return { delta: null, reason: "Pruning is off for this playbook. Turn it on in the playbook's settings first.", candidates: 0 };
  }
  const proposed = pruningCandidates(snapshot.entry.state, { ...pruning, maxBullets });
  // Bullets an earlier pruning proposal still waits on are not proposed twice.
  const waiting = new Set((await repo.pendingPruningTargets(db, playbookId)).flatMap((op) => op.targetIds));
  const fresh = proposed.filter((op) => !waiting.has(op.bulletId));
  if (fresh.length === 0) {
    const reason =
      proposed.length === 0
        ? "No active bullet meets the pruning policy: nothing to remove."
        : `Every bullet the policy would remove (${proposed.length}) is already in a pending pruning delta.`;
    return { delta: null, reason, candidates: proposed.length };
  }
  const delta = await proposeDelta(db, actor, {
    playbookId,
    origin: "pruning",
    operations: fresh.map((op) => ({ operation: op, rationale: op.reason })),
    rationale: `Pruning by the playbook's policy: ${plural(fresh.length, "bullet")} to archive.`,
    confidence: null,
    evidence: evidenceSchema.parse({}),
  });
  return { delta, reason: null, candidates: proposed.length };
}
