// Proposals: a delta from a person, the reflector, the curator or the pruning policy waits for
// review, or is applied at once when the auto-apply rule (auto-apply.ts) allows it and the engine flags
// nothing. Pruning proposes archiving the bullets the playbook's policy selects. A file an external
// ACE loop evolved is proposed as the changes it made since the version that loop started from.
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { validateDelta, type DeltaOperation, type DeltaValidation, type Finding, type PlaybookState } from "@/server/ace/delta";
import type { PlaybookDocument, PlaybookFormat } from "@/server/ace/document";
import { countersOfFormat, diffProposal, type ProposalCounts } from "@/server/ace/proposal-diff";
import { proposePruning as pruningCandidates } from "@/server/ace/pruning";
import { injectionFindings } from "@/server/ace/safety";
import type { SimilarityIndex } from "@/server/ace/similarity";
import { countsInWords, plural } from "@/server/ace/text/format";
import { recordAudit, whoOf, type Who, type WhoOrName } from "@/server/audit/record";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import { statesAt } from "@/server/history/service";
import type { ImportProposal } from "@/server/playbooks/schemas";
import { auditedRationale, versionRationale } from "./audit";
import { autoApplyAllowed } from "./auto-apply";
import { staleTargets, tryApply } from "./checks";
import { commitChanges, COMMUTING_RETRY, onlyCounterIncrements, raceError, RETRY, withVersionRetry, WRITE_TRANSACTION } from "./commit";
import { engineOptions, freshSnapshot, loadSnapshot } from "./engine-state";
import { deltaProvenance, hasReviewFlags, mergeTargets, operationTargets } from "./findings";
import * as repo from "./repository";
import {
  evidenceSchema,
  MAX_OPERATIONS,
  type DeltaOutcome,
  type DeltaStatus,
  type ProposableOrigin,
  type proposeDeltaInput,
  type PruningResult,
} from "./schemas";

/** What only server code may ask of a proposal (the reflector and curator runs, pruning, file proposals). */
export interface ProposalOptions {
  /**
   * Where the delta comes from, when server code proposes it (a reflector or curator run, pruning, a
   * file). Never taken from a request: otherwise the caller decides (originOf).
   */
  origin?: ProposableOrigin;
  /**
   * Scores near-duplicates instead of the local index (a provider's embeddings). It must index the
   * snapshot's active bullets; the caller builds it from the state it proposes against.
   */
  similarity?: (state: PlaybookState) => SimilarityIndex;
}

/**
 * The origin of a proposal from who sends it: a person (signed in, or the local operator) proposes
 * as a person, an API key as an agent (never applied without review), the server's own code as the
 * curator unless it names another.
 */
export function originOf(who: Who): ProposableOrigin {
  switch (who.audit.actor.kind) {
    case "user":
    case "local":
      return "person";
    case "apikey":
      return "agent";
    case "system":
      return "curator";
  }
}

function withExtraFindings(validation: DeltaValidation, extra: readonly (readonly Finding[])[]): DeltaValidation {
  if (!extra.some((list) => list.length > 0)) return validation;
  const byOperation = validation.byOperation.map((list, index) => [...list, ...(extra[index] ?? [])]);
  return { ...validation, findings: byOperation.flat(), byOperation };
}

export async function proposeDelta(
  db: Db,
  author: WhoOrName,
  input: z.output<typeof proposeDeltaInput>,
  options: ProposalOptions = {},
): Promise<DeltaOutcome> {
  const who = whoOf(author);
  const { actor } = who;
  const origin = options.origin ?? originOf(who);
  const ops = input.operations.map((entry) => entry.operation as DeltaOperation);
  // Content that reads like prompt injection sends the delta to a person, whoever proposes it.
  const injections = injectionFindings(ops);
  const retry = onlyCounterIncrements(ops) ? COMMUTING_RETRY : {};
  return withVersionRetry({ ...retry, exhausted: () => raceError("proposal") }, async () => {
    const snapshot = await freshSnapshot(db, input.playbookId);
    const { head, settings, entry } = snapshot;
    const baseVersion = input.baseVersion ?? head.version;
    if (baseVersion > head.version) {
      throw new AppError("INVALID_INPUT", `The playbook is at version ${head.version}; a delta cannot be based on version ${baseVersion}.`);
    }
    // Duplicates, limit breaches and stale targets wait for a reviewer whatever the rule allows.
    const rule = autoApplyAllowed({ origin, proposer: who.audit.actor.kind, operations: ops, confidence: input.confidence, settings });
    const mayAutoApply = rule !== "never";
    const byTags = rule === "counter_tags";
    // When it may apply at once, one engine run both validates and applies.
    const similarity = options.similarity?.(entry.state);
    const engine = engineOptions(snapshot, ops, { similarity });
    const checked = mayAutoApply ? tryApply(snapshot, ops, engine) : { validation: validateDelta(entry.state, ops, engine), result: null };
    const validation = withExtraFindings(checked.validation, injections);
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
      origin,
      author: actor,
      rationale: input.rationale,
      confidence: input.confidence,
      baseVersion,
      appliedVersion,
      evidence: input.evidence,
      reviewNote:
        status !== "auto_applied"
          ? null
          : byTags
            ? "Auto-applied: counter tags are observations; the playbook does not send them to review."
            : `Auto-applied: confidence ${input.confidence} ≥ ${settings.autoApplyConfidence}`,
      decidedBy: status === "auto_applied" ? "auto-apply" : null,
      decided: status === "auto_applied",
    });

    const auditSummary = (status: DeltaStatus) => ({
      origin,
      status,
      operations: ops.map((op) => op.type),
      ...auditedRationale(origin, input.rationale, input.evidence),
      confidence: input.confidence,
      baseVersion,
      flagged: validation.findings.filter((f) => f.severity === "error" || f.kind === "prompt_injection").length,
    });
    const deltaTarget = { type: "delta", id: deltaId, label: `${origin} delta by ${actor}` };

    if (!autoApply) {
      await db.$transaction(async (tx) => {
        await repo.insertDelta(tx, deltaRow("pending", null), operationRows("pending"));
        await recordAudit(tx, who.audit, {
          action: "delta.propose",
          target: deltaTarget,
          playbookId: input.playbookId,
          after: auditSummary("pending"),
        });
      }, WRITE_TRANSACTION);
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
      reason: `Auto-applied ${origin} delta${byTags ? "" : ` (confidence ${input.confidence})`}${versionRationale(
        origin,
        input.rationale,
        input.evidence,
      )}`,
      recordDelta: async (tx, version) => {
        await repo.insertDelta(tx, deltaRow("auto_applied", version), operationRows("approved"));
        return deltaId;
      },
      provenance: deltaProvenance(
        origin,
        input.evidence,
        input.rationale,
        input.operations.map((o) => ({ op: o.operation, rationale: o.rationale })),
        result.addedIds,
      ),
      audit: {
        source: who.audit,
        record: (version, changed) => ({
          action: "delta.auto_apply",
          target: deltaTarget,
          playbookId: input.playbookId,
          before: { version: head.version, ...changed.before },
          after: { ...auditSummary("auto_applied"), version, addedIds: result.addedIds, ...changed.after },
        }),
      },
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
      message: byTags
        ? `Delta auto-applied as version ${version}.`
        : `Delta auto-applied as version ${version}: its confidence ${input.confidence} reaches ` +
          `the playbook's threshold ${settings.autoApplyConfidence}.`,
    };
  });
}

// ---- Pruning -------------------------------------------------------------------------------

export async function proposePruningDelta(db: Db, who: WhoOrName, playbookId: string): Promise<PruningResult> {
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
  const delta = await proposeDelta(
    db,
    who,
    {
      playbookId,
      operations: fresh.map((op) => ({ operation: op, rationale: op.reason })),
      rationale: `Pruning by the playbook's policy: ${plural(fresh.length, "bullet")} to archive.`,
      confidence: null,
      evidence: evidenceSchema.parse({}),
    },
    { origin: "pruning" },
  );
  return { delta, reason: null, candidates: proposed.length };
}

// ---- Proposals from an external ACE loop ------------------------------------------------------

export interface FileProposalInput {
  playbookId: string;
  document: PlaybookDocument;
  format: PlaybookFormat;
  /** The version the external loop started from; default the current one. */
  baseVersion?: number;
  /** Why, for the reviewer; default a summary of the changes. */
  rationale?: string;
  /** How the reviewer sees the file named: "skillbook.json", "pasted text". */
  source: string;
}

/**
 * The changes a file made since `baseVersion`, as one pending delta of origin import, based on that
 * version: ACE Studio's changes since are kept (the operations are computed on the playbook as it is
 * now), and a bullet changed on both sides makes the delta stale, as any delta whose targets changed
 * after its base version. A file that changed nothing the playbook lacks proposes nothing.
 */
export async function proposeFromFile(db: Db, who: WhoOrName, input: FileProposalInput): Promise<ImportProposal> {
  const snapshot = await loadSnapshot(db, input.playbookId);
  const { head } = snapshot;
  const baseVersion = input.baseVersion ?? head.version;
  if (baseVersion > head.version) {
    throw new AppError(
      "CONFLICT",
      `Version ${baseVersion} is in the future: "${head.name}" is at version ${head.version}. ` +
        "Send the version the external loop started from (the x-playbook-version of the context it fetched).",
      { details: { baseVersion, currentVersion: head.version } },
    );
  }
  if (baseVersion < 1) {
    throw new AppError(
      "CONFLICT",
      `Version ${baseVersion} does not exist: versions count from 1, and "${head.name}" is at version ${head.version}.`,
      {
        details: { baseVersion, currentVersion: head.version },
      },
    );
  }
  const base = (await statesAt(db, snapshot, [baseVersion])).get(baseVersion) as PlaybookState;
  const diff = diffProposal({
    base,
    current: snapshot.entry.state,
    file: input.document,
    counters: countersOfFormat(input.format),
    baseVersion,
    source: input.source,
  });
  const result = {
    baseVersion,
    counts: diff.counts,
    alreadyApplied: diff.alreadyApplied,
    conflicts: diff.conflicts,
    operations: diff.operations.length,
  };
  if (diff.operations.length === 0) {
    const message =
      diff.alreadyApplied > 0
        ? `Nothing to propose: the playbook already has every change ${input.source} made since version ${baseVersion}.`
        : `Nothing to propose: ${input.source} has no change since version ${baseVersion}.`;
    return { ...result, deltaId: null, stale: false, message };
  }
  if (diff.operations.length > MAX_OPERATIONS) {
    throw new AppError(
      "INVALID_INPUT",
      `${input.source} changed ${diff.operations.length} things since version ${baseVersion}; one proposal holds at most ` +
        `${MAX_OPERATIONS} operations. Propose more often (from a more recent base version), or import the file with merge.`,
      { details: { operations: diff.operations.length, maxOperations: MAX_OPERATIONS } },
    );
  }
  const summary = `Proposed from ${input.source} (${input.format}), evolved from version ${baseVersion}: ${describeProposalCounts(diff.counts)}.`;
  const conflictNote =
    diff.conflicts.length > 0
      ? ` ${plural(diff.conflicts.length, "conflict")} with ACE Studio's changes since: ${diff.conflicts.map((c) => c.label).join(", ")}.`
      : "";
  const outcome = await proposeDelta(
    db,
    who,
    {
      playbookId: input.playbookId,
      operations: diff.operations,
      rationale: (input.rationale || `${summary}${conflictNote}`).slice(0, 10_000),
      confidence: null,
      evidence: evidenceSchema.parse({ notes: [summary, ...diff.conflicts.map((c) => c.message)].join("\n").slice(0, 10_000) }),
      baseVersion,
    },
    { origin: "import" },
  );
  const conflicts =
    diff.conflicts.length > 0
      ? `; ${plural(diff.conflicts.length, "conflict")} with changes made in ACE Studio since: re-base it to approve those`
      : "";
  return {
    ...result,
    deltaId: outcome.deltaId,
    stale: outcome.stale,
    message: `Proposed ${plural(diff.operations.length, "operation")} from ${input.source} for review, based on version ${baseVersion} (${describeProposalCounts(diff.counts)})${conflicts}.`,
  };
}

export function describeProposalCounts(counts: ProposalCounts): string {
  return countsInWords([
    [counts.added, "bullet added", "bullets added"],
    [counts.updated, "bullet updated", "bullets updated"],
    [counts.removed, "bullet removed", "bullets removed"],
    [counts.restored, "bullet restored", "bullets restored"],
    [counts.tagged, "counter change", "counter changes"],
    [counts.sectionsAdded, "section added", "sections added"],
    [counts.sectionsRenamed, "section renamed", "sections renamed"],
  ]);
}
