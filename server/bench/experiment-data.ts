// The traces of the experiment benchmarks, as columns for bulk insertion: `units` agents, each in
// the variant GrowthBook's hashing gives it (server/ace/experiments, as assignment does), each
// posting `tracesPerUnit` traces over the days after its first exposure, on a shared task set so
// the paired (McNemar) figures have pairs. The treatment succeeds a few points more often. Seeded.
import { assignVariant } from "@/server/ace/experiments";
import { emptyTraceColumns, type TraceColumns } from "./repository";
import { seededRandom } from "./synthetic";

export interface ExperimentPlan {
  key: string;
  /** The running phase's number, seed, weights and coverage. */
  phase: { number: number; seed: string; weights: number[]; coverage: number };
  /** Variant keys in order (the control first), and the playbook version each serves. */
  variants: { key: string; playbookVersion: number | null }[];
  units: number;
  tracesPerUnit: number;
  /** Distinct task ids the traces run. */
  tasks: number;
  from: Date;
  to: Date;
  seed?: number;
}

/** Success rates: the control's, and what every later variant adds to it. */
const CONTROL_RATE = 0.6;
const LIFT = 0.04;

export function unitId(index: number): string {
  return `agent-${index}`;
}

/** Columns ordered by unit, so a chunk of rows holds whole units (each unit's first exposure is in one statement). */
export function experimentTraceColumns(plan: ExperimentPlan): TraceColumns {
  const random = seededRandom(plan.seed ?? 0xab7e57);
  const span = plan.to.getTime() - plan.from.getTime();
  const columns = emptyTraceColumns();
  for (let unit = 0; unit < plan.units; unit++) {
    const id = unitId(unit);
    const assigned = assignVariant({
      key: plan.key,
      seed: plan.phase.seed,
      unitId: id,
      weights: plan.phase.weights,
      coverage: plan.phase.coverage,
      phase: String(plan.phase.number),
    });
    if (!assigned.inExperiment || assigned.variantIndex === null) continue;
    const variant = plan.variants[assigned.variantIndex];
    if (!variant) throw new Error(`Variant ${assigned.variantIndex} of ${plan.key} is not in the plan.`);
    // First exposure anywhere in the first 80 % of the range; its traces follow over the next days.
    const first = plan.from.getTime() + Math.floor(random() * span * 0.8);
    const rate = CONTROL_RATE + (assigned.variantIndex > 0 ? LIFT : 0);
    let at = first;
    for (let k = 0; k < plan.tracesPerUnit; k++) {
      at = Math.min(plan.to.getTime() - 1, at + Math.floor(random() * 6 * 3_600_000));
      const roll = random();
      const input = 3_000 + Math.floor(random() * 9_000) + (assigned.variantIndex > 0 ? 400 : 0);
      const output = 200 + Math.floor(random() * 1_000);
      columns.timestampMs.push(at);
      columns.outcome.push(roll < 0.04 ? "unknown" : random() < rate ? "success" : "failure");
      columns.playbookVersion.push(variant.playbookVersion);
      columns.durationMs.push(4_000 + Math.floor(40_000 * random() ** 2));
      columns.inputTokens.push(input);
      columns.outputTokens.push(output);
      columns.costUsd.push((input * 2 + output * 8) / 1e6);
      columns.experiment.push(plan.key);
      columns.variant.push(variant.key);
      columns.experimentPhase.push(plan.phase.number);
      columns.unitId.push(id);
      columns.taskId.push(`task-${Math.floor(random() * plan.tasks)}`);
    }
  }
  return columns;
}
