// Traces that name an experiment: the variant checked against the experiment and assigned by the
// server when the agent sent a unitId but no variant, inside the ingest's transaction. The trace's
// phase is set here; triggers on "Trace" then record the unit's exposure (or mark it a crossover) and
// add the trace to the results' rollups. An `experiment` no experiment has is a label, stored as sent.
import { assignVariant } from "@/server/ace/experiments";
import type { Tx } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import * as repo from "./repository";
import { currentPhase } from "./views";

/** The experiment fields of a trace as sent. */
export interface TraceExperimentFields {
  experiment?: string | null;
  variant?: string | null;
  unitId?: string | null;
}

/** What the trace is stored with: its variant (sent or assigned) and the phase it belongs to. */
export interface TraceExperimentPlan {
  variant: string | null;
  experimentPhase: number | null;
}

function where(index: number, count: number): string {
  return count > 1 ? `traces.${index}.` : "";
}

/**
 * Checks and completes the experiment fields of a batch. Throws (and the ingest stores nothing) for a variant its experiment does not have, or for a unit
 * to assign in an experiment that does not exist.
 */
export async function planTraceExperiments(
  tx: Tx,
  items: readonly TraceExperimentFields[],
  /** Personal unit ids and the keyed hash the trace stores them as (server/traces/redaction.ts). */
  storedUnitIds: ReadonlyMap<string, string> = new Map(),
): Promise<TraceExperimentPlan[]> {
  const keys = [...new Set(items.flatMap((item) => (item.experiment ? [item.experiment] : [])))];
  if (keys.length === 0) return items.map((item) => ({ variant: item.variant ?? null, experimentPhase: null }));
  const experiments = new Map((await repo.findExperimentsByKeys(tx, keys)).map((row) => [row.key, row]));

  // Every check first, so a bad trace anywhere in the batch refuses it before anything is written.
  items.forEach((item, index) => {
    if (!item.experiment) return;
    const experiment = experiments.get(item.experiment);
    if (!experiment) {
      if (!item.variant && item.unitId) {
        throw new AppError(
          "NOT_FOUND",
          `${where(index, items.length)}experiment: no experiment has the key "${item.experiment}", so unit "${item.unitId}" cannot be assigned a variant. ` +
            "Create the experiment first, or send the variant the agent ran. Nothing was stored.",
          { details: { field: `${where(index, items.length)}experiment`, experiment: item.experiment } },
        );
      }
      return;
    }
    if (item.variant && !experiment.variants.some((variant) => variant.key === item.variant)) {
      const field = `${where(index, items.length)}variant`;
      const known = experiment.variants.map((variant) => variant.key).join(", ");
      throw new AppError(
        "INVALID_INPUT",
        `${field}: "${item.variant}" is not a variant of experiment "${experiment.key}" (its variants: ${known}). Nothing was stored.`,
        { details: { field, experiment: experiment.key, variant: item.variant } },
      );
    }
  });

  // Units to assign that were exposed before in their experiment's current phase keep that variant (sticky).
  const known = new Map<string, string>();
  for (const experiment of experiments.values()) {
    const phase = currentPhase(experiment);
    if (!phase) continue;
    const unitIds = [
      ...new Set(items.flatMap((item) => (item.experiment === experiment.key && item.unitId && !item.variant ? [item.unitId] : []))),
    ];
    // A personal unit id's exposure is recorded under its hash (the trace's trigger writes it).
    const sentOf = new Map(unitIds.map((id) => [storedUnitIds.get(id) ?? id, id]));
    for (const row of await repo.findExposures(tx, experiment.id, phase.number, [...new Set([...unitIds, ...sentOf.keys()])]))
      known.set(`${experiment.key}\u0000${sentOf.get(row.unitId) ?? row.unitId}`, row.variant);
  }

  return items.map((item): TraceExperimentPlan => {
    const experiment = item.experiment ? experiments.get(item.experiment) : undefined;
    const phase = experiment ? currentPhase(experiment) : null;
    if (!experiment || !phase) return { variant: item.variant ?? null, experimentPhase: null };
    let variant = item.variant ?? null;
    if (variant === null && item.unitId) {
      variant = known.get(`${experiment.key}\u0000${item.unitId}`) ?? null;
      if (variant === null && experiment.status === "running") {
        const assigned = assignVariant({
          key: experiment.key,
          seed: phase.seed,
          unitId: item.unitId,
          weights: phase.weights,
          coverage: phase.coverage,
          phase: String(phase.number),
        });
        variant = assigned.variantIndex === null ? null : (experiment.variants[assigned.variantIndex]?.key ?? null);
      }
    }
    return { variant, experimentPhase: phase.number };
  });
}
