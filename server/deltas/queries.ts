// Reading the approval queue: the list, one delta with its operations checked against the current
// playbook (findings, staleness, overlaps with other pending deltas), and each operation's preview.
import type { PlaybookScope } from "@/server/access/restriction";
import type { z } from "zod";
import { resolveSection, type DeltaOperation } from "@/server/ace/delta";
import { diffText } from "@/server/ace/diff";
import type { BulletState, SectionState } from "@/server/ace/history";
import { injectionFindings } from "@/server/ace/safety";
import type { Db, Tx } from "@/server/db/client";
import { notFound } from "@/server/errors/app-error";
import * as historyRepo from "@/server/history/repository";
import { revalidate, staleTargets } from "./checks";
import { freshSnapshot } from "./engine-state";
import { mergeTargets, operationTargets, payloadOf, readEvidence, storedFindings, type Targets } from "./findings";
import * as repo from "./repository";
import { EVIDENCE_TASK_LENGTH } from "./schemas";
import { readStoredOperation } from "./stored";
import type {
  BulletSnapshot,
  Counters,
  DeltaListItem,
  DeltaPage,
  DeltaStatus,
  DeltaView,
  EvidenceRun,
  EvidenceTrace,
  listDeltasInput,
  OperationConflict,
  OperationPreview,
  OperationView,
} from "./schemas";

export async function requireDelta(db: Db | Tx, deltaId: string): Promise<repo.DeltaRecord> {
  const delta = await repo.findDelta(db, deltaId);
  if (!delta) throw notFound("The delta");
  return delta;
}

// ---- The queue: list and get ------------------------------------------------------------

/** A value that changes whenever the queue (or one playbook's) or a playbook in it does: for polling. */
export async function watchQueue(db: Db, playbookId: string | undefined): Promise<{ signature: string }> {
  if (playbookId && !(await repo.currentVersion(db, playbookId))) throw notFound("The playbook");
  return { signature: await repo.queueSignature(db, playbookId ?? null) };
}

/** `scope`: the playbooks a restricted caller may see; the total counts those only. */
export async function listDeltas(db: Db, query: z.output<typeof listDeltasInput>, scope: PlaybookScope = "all"): Promise<DeltaPage> {
  if (query.playbookId && !(await repo.currentVersion(db, query.playbookId))) throw notFound("The playbook");
  const [rows, total] = await Promise.all([repo.listDeltas(db, query, scope), repo.countDeltas(db, query, scope)]);
  const items = rows.map(listItem);
  const nextCursor = query.cursor + rows.length < total ? query.cursor + rows.length : null;
  return { items, total, nextCursor };
}

function listItem(row: repo.DeltaListRow): DeltaListItem {
  return {
    id: row.id,
    playbookId: row.playbookId,
    playbookName: row.playbookName,
    status: row.status,
    origin: row.origin,
    author: row.author,
    rationale: row.rationale,
    confidence: row.confidence,
    baseVersion: row.baseVersion,
    appliedVersion: row.appliedVersion,
    currentVersion: row.currentVersion,
    reviewNote: row.reviewNote,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    createdAt: row.createdAt,
    counts: { total: row.total, pending: row.pending, approved: row.approved, rejected: row.rejected },
    types: row.types ?? {},
    flags: { stale: row.stale, hasDuplicates: row.hasDuplicates, hasErrors: row.hasErrors, hasWarnings: row.hasWarnings },
  };
}

export async function getDelta(db: Db, deltaId: string): Promise<DeltaView> {
  const delta = await requireDelta(db, deltaId);
  const snapshot = await freshSnapshot(db, delta.playbookId);
  const { entry, head } = snapshot;
  const isPending = delta.status === "pending";
  const pending = delta.operations.filter((op) => op.status === "pending");
  const live = isPending && pending.length > 0 ? revalidate(snapshot, pending, pending.map(payloadOf)) : null;

  const allTargets = delta.operations.map((op) => operationTargets(payloadOf(op), entry.state.sections));
  const merged = mergeTargets(allTargets);
  const pendingTargets = mergeTargets(pending.map((op) => operationTargets(payloadOf(op), entry.state.sections)));
  const evidence = readEvidence(delta.evidence);
  const [snapshots, stale, overlaps, appliedChanges, traceRows, runRows] = await Promise.all([
    repo.bulletSnapshots(db, delta.playbookId, merged.bulletIds),
    isPending ? staleTargets(db, delta.playbookId, delta.baseVersion, head.version, pendingTargets) : Promise.resolve([]),
    isPending ? repo.pendingOverlaps(db, delta.playbookId, delta.id, pendingTargets.bulletIds) : Promise.resolve([]),
    delta.appliedVersion === null ? Promise.resolve(null) : historyRepo.findVersionChanges(db, delta.playbookId, delta.appliedVersion),
    repo.evidenceTraces(db, evidence.traceIds),
    repo.evidenceRuns(db, evidence.runIds),
  ]);
  const tracesById = new Map(traceRows.map((trace) => [trace.id, trace]));
  const runsById = new Map(runRows.map((run) => [run.id, run]));
  const evidenceTraces = evidence.traceIds.flatMap((id): EvidenceTrace[] => {
    const trace = tracesById.get(id);
    return trace ? [{ ...trace, task: trace.task.slice(0, EVIDENCE_TASK_LENGTH) }] : [];
  });
  const evidenceRuns = evidence.runIds.flatMap((id): EvidenceRun[] => {
    const run = runsById.get(id);
    return run ? [run] : [];
  });
  const current = new Map(
    snapshots.map((b): [string, BulletSnapshot] => [
      b.externalId,
      {
        externalId: b.externalId,
        sectionId: b.sectionId,
        sectionName: b.section.name,
        content: b.content,
        helpful: b.helpful,
        harmful: b.harmful,
        neutral: b.neutral,
        countersKnown: b.countersKnown,
        status: b.status,
        changedInVersion: b.changedInVersion,
      },
    ]),
  );
  // An applied delta is shown against the bullets as they were just before it.
  const before = new Map<string, BulletState>();
  for (const change of appliedChanges?.operations ?? []) {
    if (change.entity === "bullet" && change.before) before.set(change.id, change.before);
  }
  const lookup = (id: string): BulletState | undefined => before.get(id) ?? entry.state.bullets.get(id);
  const sectionName = (id: string) => entry.state.sections.find((s) => s.id === id)?.name ?? null;

  const staleByTarget = new Map(stale.map((s) => [s.target, s]));
  // Proposed content is checked for prompt injection as it stands now (a reviewer may have edited it),
  // whoever proposed it: a person's proposal is as likely a paste from somewhere else.
  const injections = injectionFindings(delta.operations.map(payloadOf));
  const operations = delta.operations.map((record, index): OperationView => {
    const payload = payloadOf(record);
    const targets = allTargets[index] as Targets;
    const conflicts: OperationConflict[] = [];
    if (record.status === "pending") {
      for (const target of [...targets.bulletIds, ...targets.sectionIds]) {
        const changed = staleByTarget.get(target);
        if (changed) conflicts.push({ kind: "changed_since_proposal", target, version: changed.version, message: changed.message });
      }
      for (const other of overlaps) {
        for (const target of other.targetIds.filter((id) => targets.bulletIds.includes(id))) {
          conflicts.push({
            kind: "pending_elsewhere",
            target,
            deltaId: other.deltaId,
            message: `Another pending delta also changes [${target}]; approving one may make the other stale.`,
          });
        }
      }
    }
    return {
      id: record.id,
      position: record.position,
      type: record.type,
      status: record.status,
      payload,
      rationale: record.rationale,
      originalPayload:
        record.originalPayload === null ? null : readStoredOperation(record.originalPayload, { ...record, column: "originalPayload" }),
      editedBy: record.editedBy,
      findings: [
        ...(live?.byRecord.get(record.id) ?? storedFindings(record.flags).filter((finding) => finding.kind !== "prompt_injection")),
        ...(injections[index] ?? []),
      ],
      targets: targets.bulletIds.map((id) => current.get(id)).filter((b): b is BulletSnapshot => !!b),
      preview: previewOperation(payload, lookup, entry.state.sections, sectionName),
      conflicts,
    };
  });

  const flagsFrom = operations.filter((op) => op.status !== "rejected").flatMap((op) => op.findings);
  return {
    id: delta.id,
    playbookId: delta.playbookId,
    playbookName: delta.playbook.name,
    // The enum's "stale" is never written: staleness is computed from the targets (see staleTargets).
    status: delta.status as DeltaStatus,
    origin: delta.origin,
    author: delta.author,
    rationale: delta.rationale,
    confidence: delta.confidence,
    baseVersion: delta.baseVersion,
    appliedVersion: delta.appliedVersion,
    currentVersion: head.version,
    reviewNote: delta.reviewNote,
    decidedBy: delta.decidedBy,
    decidedAt: delta.decidedAt,
    createdAt: delta.createdAt,
    counts: {
      total: operations.length,
      pending: operations.filter((op) => op.status === "pending").length,
      approved: operations.filter((op) => op.status === "approved").length,
      rejected: operations.filter((op) => op.status === "rejected").length,
    },
    types: operations.reduce<DeltaView["types"]>((types, op) => ({ ...types, [op.type]: (types[op.type] ?? 0) + 1 }), {}),
    flags: {
      stale: stale.length > 0,
      hasDuplicates: flagsFrom.some((f) => f.kind === "near_duplicate"),
      hasErrors: flagsFrom.some((f) => f.severity === "error"),
      hasWarnings: flagsFrom.some((f) => f.severity === "warning"),
    },
    evidence,
    evidenceTraces,
    evidenceRuns,
    operations,
    staleReasons: stale.map((s) => s.message),
  };
}

// ---- Previews --------------------------------------------------------------------------

function countersOf(bullet: BulletState): Counters {
  return { helpful: bullet.helpful, harmful: bullet.harmful, neutral: bullet.neutral };
}

function contentDiff(before: string | null, after: string | null): OperationPreview["content"] {
  return { before, after, segments: diffText(before ?? "", after ?? "") };
}

const ZERO: Counters = { helpful: 0, harmful: 0, neutral: 0 };

function addCounters(a: Counters, b: Partial<Counters>): Counters {
  return { helpful: a.helpful + (b.helpful ?? 0), harmful: a.harmful + (b.harmful ?? 0), neutral: a.neutral + (b.neutral ?? 0) };
}

/** What an operation does to the bullets as `lookup` sees them, for the side-by-side view. */
export function previewOperation(
  op: DeltaOperation,
  lookup: (id: string) => BulletState | undefined,
  sections: readonly SectionState[],
  sectionName: (id: string) => string | null,
): OperationPreview {
  const preview = (summary: string, parts: Partial<OperationPreview> = {}): OperationPreview => ({
    summary,
    content: null,
    counters: null,
    section: null,
    archives: [],
    restores: [],
    ...parts,
  });
  const label = (ref: string) => resolveSection(sections, ref)?.name ?? ref;
  switch (op.type) {
    case "add": {
      const to = label(op.section);
      return preview(`Add a bullet to "${to}"`, { content: contentDiff(null, op.content.trim()), section: { from: null, to } });
    }
    case "update": {
      const bullet = lookup(op.bulletId);
      const from = bullet ? sectionName(bullet.sectionId) : null;
      const to = op.section === undefined ? from : label(op.section);
      const edits = op.content !== undefined && op.content.trim() !== bullet?.content;
      const moves = op.section !== undefined && to !== from;
      const reorders = op.position !== undefined && !moves;
      const what = [
        edits ? "edit" : null,
        moves ? `move to "${to}"` : null,
        reorders ? `reorder to place ${(op.position ?? 0) + 1}` : null,
      ];
      const summary = `${what.filter(Boolean).join(", ") || "update"} [${op.bulletId}]`;
      return preview(summary.charAt(0).toUpperCase() + summary.slice(1), {
        content: edits ? contentDiff(bullet?.content ?? null, op.content?.trim() ?? null) : null,
        section: moves ? { from, to } : null,
      });
    }
    case "remove":
      return preview(`Archive [${op.bulletId}]: ${op.reason}`, {
        content: contentDiff(lookup(op.bulletId)?.content ?? null, null),
        archives: [op.bulletId],
      });
    case "restore": {
      const bullet = lookup(op.bulletId);
      const content = bullet ? { before: null, after: bullet.content, segments: [{ kind: "same" as const, text: bullet.content }] } : null;
      return preview(`Restore [${op.bulletId}]`, { content, restores: [op.bulletId] });
    }
    case "merge": {
      const kept = lookup(op.into);
      const sources = [...new Set(op.bulletIds)].filter((id) => id !== op.into);
      const all = [kept, ...sources.map(lookup)].filter((b): b is BulletState => b !== undefined);
      return preview(`Merge ${sources.map((id) => `[${id}]`).join(", ")} into [${op.into}]`, {
        content: contentDiff(kept?.content ?? null, op.content.trim()),
        counters: kept ? { before: countersOf(kept), after: all.reduce(addCounters, ZERO) } : null,
        archives: sources,
      });
    }
    case "tag": {
      const bullet = lookup(op.bulletId);
      const before = bullet ? countersOf(bullet) : ZERO;
      const changed = (["helpful", "harmful", "neutral"] as const).filter((key) => (op[key] ?? 0) !== 0);
      const described = changed.map((key) => `${key} ${(op[key] ?? 0) > 0 ? "+" : ""}${op[key]}`).join(", ");
      return preview(`Counters of [${op.bulletId}]: ${described || "no change"}`, { counters: { before, after: addCounters(before, op) } });
    }
    case "pin":
    case "unpin": {
      const bullet = lookup(op.bulletId);
      const content = bullet
        ? { before: bullet.content, after: bullet.content, segments: [{ kind: "same" as const, text: bullet.content }] }
        : null;
      const summary =
        op.type === "pin" ? `Pin [${op.bulletId}]: ranked first in the context` : `Unpin [${op.bulletId}]: ranked by its counters again`;
      return preview(summary, { content });
    }
    case "add_section":
      return preview(`Add section "${op.name}"`, { section: { from: null, to: op.name } });
    case "rename_section":
      return preview(`Rename section "${label(op.section)}" to "${op.name}"`, { section: { from: label(op.section), to: op.name } });
    case "move_section":
      return preview(`Move section "${label(op.section)}" to place ${op.position + 1}`, {
        section: { from: label(op.section), to: label(op.section) },
      });
    case "remove_section":
      return preview(`Delete the empty section "${label(op.section)}"`, { section: { from: label(op.section), to: null } });
  }
}
