// Assigning units to variants: GrowthBook hashing (version 2) under the current phase's seed and
// weights, sticky through the unit's first exposure, which is recorded (under the keyed hash an
// email or phone-number unit id is stored as).
import { assignVariant } from "@/server/ace/experiments";
import type { Db, DbOrTx } from "@/server/db/client";
import { storedUnitIds } from "@/server/traces/redaction";
import { keptDefinitions } from "./definitions";
import * as repo from "./repository";
import type { AssignmentReason, AssignmentResult } from "./schemas";
import { loadExperiment, playbookNamesOf, type AccessOptions } from "./service";
import { currentPhase, targetOf } from "./views";

export interface ServedTarget {
  playbook: string | null;
  playbookVersion: number | null;
}

/** What a variant serves right now: the pinned version, the current one for latest, nothing for noPlaybook. */
export function servedBy(row: repo.ExperimentRow, variantKey: string): ServedTarget {
  const variant = row.variants.find((v) => v.key === variantKey);
  if (!variant) return { playbook: null, playbookVersion: null };
  switch (variant.targetKind) {
    case "version":
      return { playbook: row.playbook.name, playbookVersion: variant.playbookVersion };
    case "noPlaybook":
      return { playbook: null, playbookVersion: null };
    case "playbook":
      return { playbook: variant.targetPlaybook?.name ?? null, playbookVersion: variant.targetPlaybook?.version ?? null };
    default:
      return { playbook: row.playbook.name, playbookVersion: row.playbook.version };
  }
}

/** The hash of a unit under a phase's definition (or the experiment's, before it starts). */
function hashOf(row: repo.ExperimentRow, phase: repo.ExperimentRow["phases"][number] | null, unitId: string) {
  const weights = phase?.weights ?? row.variants.map((variant) => variant.weight);
  return assignVariant({
    key: row.key,
    seed: phase?.seed ?? row.seed,
    unitId,
    weights,
    coverage: phase?.coverage ?? row.coverage,
    ...(phase ? { phase: String(phase.number) } : {}),
  });
}

/**
 * The variant of a unit: its first exposure in the current phase when it has one (sticky), else
 * the hash; a unit placed in a variant gets its first exposure recorded.
 */
export async function assignLoaded(db: DbOrTx, row: repo.ExperimentRow, unitId: string): Promise<AssignmentResult> {
  const phase = currentPhase(row);
  const hashed = hashOf(row, phase, unitId);
  const base = { experiment: row.key, unitId, hashValue: hashed.hashValue, phase: phase?.number ?? null };
  const outside = (reason: AssignmentReason): AssignmentResult => ({
    ...base,
    inExperiment: false,
    variant: null,
    reason,
    playbook: null,
    playbookVersion: null,
    target: null,
    firstExposure: false,
  });
  if (row.status === "draft" || !phase) return outside("draft");
  if (row.status === "stopped") return outside("stopped");

  // An email or phone number is recorded as the keyed hash its traces store (server/traces/redaction.ts);
  // the assignment above hashed the id as sent.
  const storedId = (await storedUnitIds(db, [unitId])).get(unitId) ?? unitId;
  let exposure: repo.ExposureRow | null;
  if (hashed.inExperiment && hashed.variantIndex !== null) {
    const variant = row.variants[hashed.variantIndex];
    if (!variant) throw new Error(`Variant ${hashed.variantIndex} of experiment "${row.key}" does not exist.`);
    const served = servedBy(row, variant.key);
    exposure = await repo.recordExposure(db, {
      experimentId: row.id,
      phase: phase.number,
      unitId: storedId,
      variant: variant.key,
      playbookVersion: served.playbookVersion,
    });
  } else {
    // Outside the coverage by the hash, but a trace may have put the unit in a variant already.
    exposure = await repo.findExposure(db, row.id, phase.number, storedId);
  }
  if (!exposure) return outside("outside_coverage");
  const variant = row.variants.find((v) => v.key === exposure.variant);
  const served = servedBy(row, exposure.variant);
  return {
    ...base,
    inExperiment: true,
    variant: exposure.variant,
    reason: null,
    playbook: served.playbook,
    playbookVersion: served.playbookVersion,
    target: variant ? targetOf(variant) : null,
    firstExposure: exposure.created,
  };
}

export async function assignUnit(
  db: Db,
  key: string,
  unitId: string,
  options: AccessOptions & { reuseDefinition?: boolean } = {},
): Promise<AssignmentResult> {
  if (!options.reuseDefinition) return assignLoaded(db, await loadExperiment(db, key, options), unitId);
  const cache = keptDefinitions(db);
  const kept = cache.get(key);
  // Only a unit the hash places in a variant is answered from a kept definition: its exposure insert
  // fails if the experiment is gone. Anything else (outside the coverage) reads the experiment afresh.
  if (kept && (kept.status !== "running" || hashOf(kept, currentPhase(kept), unitId).inExperiment)) {
    await options.allowPlaybooks?.(playbookNamesOf(kept));
    try {
      return await assignLoaded(db, kept, unitId);
    } catch {
      // The experiment may be gone since (its playbook deleted): read it again, which answers 404 then.
      cache.delete(key);
    }
  }
  const row = await loadExperiment(db, key, options);
  cache.set(key, row);
  return assignLoaded(db, row, unitId);
}
