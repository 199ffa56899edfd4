// Checking operations against the playbook as it is now: the engine run on a snapshot, with its
// findings numbered as the reviewer sees the delta, and the targets changed since a base version.
// Nothing here writes.
import {
  applyDelta,
  DeltaValidationError,
  validateDelta,
  type DeltaOperation,
  type DeltaResult,
  type DeltaValidation,
  type EngineOptions,
  type Finding,
} from "@/server/ace/delta";
import type { Db } from "@/server/db/client";
import { engineOptions, type Snapshot } from "./engine-state";
import { describeStaleTargets, invalidDelta, renumber, type StaleTarget, type Targets } from "./findings";
import * as repo from "./repository";

/** Applies, or throws INVALID_INPUT naming the operation; nothing is written either way. */
export function applyOrExplain(
  snapshot: Snapshot,
  ops: readonly DeltaOperation[],
  positions: readonly number[],
  options: { nearDuplicates?: boolean } = {},
): DeltaResult {
  try {
    return applyDelta(snapshot.entry.state, ops, engineOptions(snapshot, ops, options));
  } catch (error) {
    if (error instanceof DeltaValidationError) throw invalidDelta(error, ops, positions);
    throw error;
  }
}

/** Applies when it can; otherwise the findings, as validateDelta reports them. */
export function tryApply(
  snapshot: Snapshot,
  ops: readonly DeltaOperation[],
  options: EngineOptions = engineOptions(snapshot, ops),
): { validation: DeltaValidation; result: DeltaResult | null } {
  try {
    const result = applyDelta(snapshot.entry.state, ops, options);
    const byOperation = ops.map((_, index) => result.warnings.filter((finding) => finding.operationIndex === index));
    return { validation: { ok: true, findings: result.warnings, byOperation }, result };
  } catch (error) {
    if (!(error instanceof DeltaValidationError)) throw error;
    return { validation: { ok: false, findings: error.findings, byOperation: error.byOperation }, result: null };
  }
}

/** Validates the pending operations against the current version, findings numbered as the delta's. */
export function revalidate(snapshot: Snapshot, records: readonly repo.OperationRecord[], ops: readonly DeltaOperation[]) {
  const positions = records.map((r) => r.position);
  const validation = validateDelta(snapshot.entry.state, ops, engineOptions(snapshot, ops));
  const byRecord = new Map<string, Finding[]>();
  records.forEach((record, index) => byRecord.set(record.id, renumber(validation.byOperation[index] ?? [], ops, positions)));
  return { ok: validation.ok, findings: renumber(validation.findings, ops, positions), byRecord };
}

/** Targets changed after `baseVersion`; nothing to check when the playbook has not moved since. */
export async function staleTargets(
  db: Db,
  playbookId: string,
  baseVersion: number,
  currentVersion: number,
  targets: Targets,
): Promise<StaleTarget[]> {
  if (currentVersion <= baseVersion) return [];
  const changed = await repo.changedTargets(db, playbookId, baseVersion, targets.bulletIds, targets.sectionIds);
  return describeStaleTargets(changed, baseVersion);
}
