// An A/B experiment's results (issue 10): GET /api/v1/experiments/{key}/results minus HTTP (the input
// parsed by resultsInput, then experimentResults, as the route does) for an experiment with 200,000
// traces from 20,000 agents. The experiment is created and started through the service; its traces
// are inserted in bulk (seedExperiment), and the rollup triggers keep its tallies as they do for
// ingested traces. The same seed serves the HTTP assignment and the results page (studio.ts).
import { editDeltaInput } from "@/server/deltas/schemas";
import { editPlaybook } from "@/server/deltas/edit";
import { systemWho } from "@/server/audit/record";
import type { Db } from "@/server/db/client";
import { createExperimentInput, resultsInput, type ExperimentResults } from "@/server/experiments/schemas";
import { createExperiment, experimentResults, loadExperiment } from "@/server/experiments/service";
import { currentPhase } from "@/server/experiments/views";
import { loadSnapshot } from "@/server/deltas/engine-state";
import { ACTOR, CALL_TIMEOUT_MS, check, guarded, importAppWorld, recordSamples, seedOnce, type RecordResult } from "./database";
import type { BenchEngine, EngineName } from "./engines";
import { experimentTraceColumns } from "./experiment-data";
import { measure, type RunPlan } from "./measure";
import * as seedRepo from "./repository";
import { formatMs, type Target } from "./report";

export const RESULTS_TARGETS: Record<EngineName, Target> = { PostgreSQL: { maxMs: 300 }, PGlite: { maxMs: 600 } };
export const EXPERIMENT_SCALE = { units: 20_000, tracesPerUnit: 10, tasks: 2_000, days: 14 } as const;
const TRACES = EXPERIMENT_SCALE.units * EXPERIMENT_SCALE.tracesPerUnit;
const DAY_MS = 86_400_000;
const SEED_TIMEOUT_MS = 600_000;

export interface ExperimentSeed {
  key: string;
  playbookId: string;
  playbook: string;
  traces: number;
}

/**
 * A running two-variant experiment on a fresh AppWorld playbook with a second version: the control
 * pinned to version 1, the treatment on the latest; started EXPERIMENT_SCALE.days days before `now`,
 * with EXPERIMENT_SCALE.units agents' traces since.
 */
export async function seedExperiment(db: Db, key: string, now: Date): Promise<ExperimentSeed> {
  const playbook = `Experiment ${key}`;
  const { playbookId } = await importAppWorld({ db }, playbook);
  const { entry } = await loadSnapshot(db, playbookId);
  const [bulletId] = entry.state.bullets.keys();
  if (!bulletId) throw new Error("The AppWorld playbook has no bullets.");
  const edit = await editPlaybook(
    db,
    ACTOR,
    editDeltaInput.parse({ playbookId, reason: "A reflection's tag", operations: [{ type: "tag", bulletId, helpful: 1 }] }),
  );
  check(edit.status === "applied", `the tag delta was ${edit.status}`);
  await createExperiment(
    db,
    systemWho(ACTOR),
    createExperimentInput.parse({
      key,
      name: "Refund wording",
      playbook,
      hypothesis: "The latest lessons raise the success rate without raising the cost.",
      status: "running",
      variants: [
        { key: "control", name: "Version 1", playbookVersion: 1 },
        { key: "treatment", name: "Latest" },
      ],
      minimumDetectableEffect: 0.03,
      plannedUnitsPerVariant: 10_000,
    }),
  );
  const from = new Date(now.getTime() - EXPERIMENT_SCALE.days * DAY_MS);
  const row = await loadExperiment(db, key);
  await seedRepo.backdateExperiment(db, row.id, from);
  const phase = currentPhase(row);
  if (!phase) throw new Error(`Experiment ${key} did not start.`);
  const columns = experimentTraceColumns({
    key,
    phase,
    variants: row.variants.map((variant) => ({
      key: variant.key,
      playbookVersion: variant.targetKind === "version" ? variant.playbookVersion : row.playbook.version,
    })),
    units: EXPERIMENT_SCALE.units,
    tracesPerUnit: EXPERIMENT_SCALE.tracesPerUnit,
    tasks: EXPERIMENT_SCALE.tasks,
    from,
    to: new Date(now.getTime() - 60_000),
  });
  const traces = await seedRepo.insertTraces(db, playbookId, `exp-${key}`, columns);
  check(traces === TRACES, `expected ${TRACES} experiment traces, inserted ${traces}`);
  return { key, playbookId, playbook, traces };
}

function callResults(db: Db, key: string): Promise<ExperimentResults> {
  const input = resultsInput.parse({ key });
  return experimentResults(db, input.key, input.phase);
}

/** The seed timed once (a row without a target), then the results; null when seeding failed. */
export async function experimentBenchmarks(engine: BenchEngine, plan: RunPlan, record: RecordResult): Promise<ExperimentSeed | null> {
  const { db } = engine;
  const scale = `${(TRACES / 1000).toFixed(0)}k traces, ${(EXPERIMENT_SCALE.units / 1000).toFixed(0)}k units`;
  const seeding = `Experiment: seed ${scale}, once`;
  const seeded = await seedOnce(
    record,
    seeding,
    engine.name,
    {
      timeoutMs: SEED_TIMEOUT_MS,
      note: "AppWorld imported and tagged once (version 2), the experiment created and started through the service, its traces inserted 25,000 per statement (the tally triggers fire).",
    },
    () => seedExperiment(db, `bench-${Date.now()}`, new Date()),
  );
  if (!seeded) return null;

  const benchmark = `Experiment results: ${scale}`;
  await guarded(record, benchmark, engine.name, async () => {
    const first = await callResults(db, seeded.key);
    const units = first.variants.reduce((sum, variant) => sum + variant.units, 0);
    const traces = first.variants.reduce((sum, variant) => sum + variant.traces, 0);
    check(traces === TRACES && units === EXPERIMENT_SCALE.units, `the results count ${traces} traces of ${units} units`);
    check(!first.srm.flagged, "the seeded split was flagged as a sample ratio mismatch");
    const samples = await measure(() => callResults(db, seeded.key), plan, CALL_TIMEOUT_MS, benchmark);
    const comparison = first.comparisons[0];
    recordSamples(record, benchmark, engine.name, samples, {
      target: RESULTS_TARGETS[engine.name],
      note:
        `The answer: ${first.analysis} analysis, ${first.timeline.length} timeline days, ` +
        `${comparison?.absoluteDiff != null ? `difference ${(comparison.absoluteDiff * 100).toFixed(1)} points (p ${comparison.pValue?.toPrecision(2) ?? "—"})` : "no comparison"}, ` +
        `paired over ${first.paired?.tasks ?? 0} tasks.`,
    });
  });
  return seeded;
}

/** Lines for "How these were measured". */
export function experimentNotes(plan: RunPlan): string[] {
  return [
    `Experiment results (issue 10; target p95 ≤ ${formatMs(RESULTS_TARGETS.PostgreSQL.maxMs)} on PostgreSQL, ≤ ` +
      `${formatMs(RESULTS_TARGETS.PGlite.maxMs)} on PGlite): GET /api/v1/experiments/{key}/results minus HTTP: resultsInput, then ` +
      `experimentResults (server/experiments/service.ts), as the route does. The experiment: two variants (the control pinned to ` +
      `version 1 of an AppWorld playbook, the treatment on its latest version), created and started through the service and ` +
      `back-dated ${EXPERIMENT_SCALE.days} days; ${EXPERIMENT_SCALE.units.toLocaleString("en")} agents, each in the variant ` +
      `GrowthBook's hashing gives it, each with ${EXPERIMENT_SCALE.tracesPerUnit} traces over the days after its first ` +
      `exposure (${TRACES.toLocaleString("en")} traces, 25,000 per INSERT so the experiment rollup triggers fire), on ` +
      `${EXPERIMENT_SCALE.tasks.toLocaleString("en")} task ids; success 60 % in the control, 64 % in the treatment, 4 % unknown. ` +
      `${plan.warmup} warm-ups + ${plan.runs} timed calls.`,
  ];
}
