// Direct edits: a person's change in the browser, applied at once as a delta by that person. An
// edit made on a version whose targets someone else has changed since is refused, not merged,
// except counter increments, which commute and are applied on whatever version is current.
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { DeltaOperation } from "@/server/ace/delta";
import { whoOf, type WhoOrName } from "@/server/audit/record";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import { applyOrExplain, staleTargets } from "./checks";
import { editAction, editTarget } from "./audit";
import { commitPersonChange, COMMUTING_RETRY, onlyCounterIncrements, raceError, RETRY, withVersionRetry } from "./commit";
import { freshSnapshot } from "./engine-state";
import { mergeTargets, operationTargets, provenanceFor, targetColumns, type StaleTarget } from "./findings";
import { evidenceSchema, type DeltaOutcome, type editDeltaInput } from "./schemas";

export async function editPlaybook(db: Db, author: WhoOrName, input: z.output<typeof editDeltaInput>): Promise<DeltaOutcome> {
  const who = whoOf(author);
  const ops = input.operations as DeltaOperation[];
  const positions = ops.map((_, index) => index);
  const commuting = onlyCounterIncrements(ops);
  return withVersionRetry({ ...(commuting ? COMMUTING_RETRY : {}), exhausted: () => raceError("edit") }, async ({ raced }) => {
    const snapshot = await freshSnapshot(db, input.playbookId);
    const { head, entry } = snapshot;
    const baseVersion = input.expectedVersion ?? head.version;
    if (baseVersion > head.version) {
      throw new AppError("INVALID_INPUT", `The playbook is at version ${head.version}; reload it before editing.`);
    }
    const targets = mergeTargets(ops.map((op) => operationTargets(op, entry.state.sections)));
    const stale = commuting ? [] : await staleTargets(db, input.playbookId, baseVersion, head.version, targets);
    if (stale.length > 0) {
      if (raced) throw raceError("edit");
      const first = stale[0] as StaleTarget;
      throw new AppError(
        "CONFLICT",
        `${first.label} was changed in version ${first.version}, after version ${baseVersion} you were editing. ` +
          "Your edit was not applied; reload to see the newer change and edit again.",
        { details: { reasons: stale.map((s) => s.message) } },
      );
    }
    if (entry.retired) return RETRY;
    const result = applyOrExplain(snapshot, ops, positions);
    if (result.changes.length === 0) {
      return {
        deltaId: "",
        playbookId: input.playbookId,
        status: "applied",
        playbookVersion: head.version,
        appliedVersion: null,
        addedIds: [],
        findings: result.warnings,
        stale: false,
        autoApplied: false,
        message: "Nothing changed: the playbook already looks like that.",
      };
    }
    const deltaId = randomUUID();
    const version = await commitPersonChange(db, {
      playbookId: input.playbookId,
      snapshot,
      next: result.state,
      changes: result.changes,
      who,
      reason: input.reason,
      delta: {
        id: deltaId,
        origin: "person",
        rationale: input.reason,
        baseVersion,
        operations: ops.map((op, index) => ({
          id: randomUUID(),
          position: index,
          type: op.type,
          status: "approved",
          payload: op,
          flags: result.warnings.filter((f) => f.operationIndex === index),
          rationale: "",
          ...targetColumns(operationTargets(op, entry.state.sections)),
        })),
      },
      provenance: provenanceFor("person", evidenceSchema.parse({}), input.reason, new Map()),
      audit: (version, changed) => ({
        action: editAction(ops),
        target: editTarget(ops, input.playbookId, result.addedIds),
        playbookId: input.playbookId,
        before: { version: head.version, ...changed.before },
        after: { version, reason: input.reason, deltaId, ...changed.after },
      }),
    });
    return {
      deltaId,
      playbookId: input.playbookId,
      status: "applied",
      playbookVersion: version,
      appliedVersion: version,
      addedIds: result.addedIds,
      findings: result.warnings,
      stale: false,
      autoApplied: false,
      message: `Saved as version ${version}.`,
    };
  });
}
