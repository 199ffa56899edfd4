// The Evolution charts' data (issue 9): GET /api/v1/playbooks/{name}/metrics for 90 days by day,
// minus HTTP (the query parsed by parseMetricsQuery, then playbookMetrics, as the route does), on a
// playbook with 1,000 versions and 100,000 traces over those 90 days; then again with 100,000
// reflector and curator runs added. The playbook is seeded in bulk (seedMetricsPlaybook), so the
// same seed serves the studio server's Evolution tab (studio.ts).
import { loadSnapshot } from "@/server/deltas/engine-state";
import { backfillVersionFigures } from "@/server/metrics/figures";
import { parseMetricsQuery, type MetricsResult } from "@/server/metrics/schemas";
import { playbookMetrics } from "@/server/metrics/service";
import type { Db } from "@/server/db/client";
import { CALL_TIMEOUT_MS, check, guarded, importAppWorld, recordSamples, seedOnce, type RecordResult } from "./database";
import type { BenchEngine, EngineName } from "./engines";
import { generateHistory } from "./history-data";
import { measure, type RunPlan } from "./measure";
import { metricsTraceColumns } from "./metrics-data";
import * as seedRepo from "./repository";
import { formatMs, type Target } from "./report";

export const METRICS_TARGETS: Record<EngineName, Target> = { PostgreSQL: { maxMs: 150 }, PGlite: { maxMs: 300 } };
export const METRICS_SCALE = { traces: 100_000, versions: 1_000, days: 90, reflections: 95_000, curations: 5_000 } as const;

const DAY_MS = 86_400_000;
const SEED_TIMEOUT_MS = 600_000;

export interface MetricsSeed {
  playbookId: string;
  name: string;
  from: Date;
  to: Date;
  versions: number;
  traces: number;
}

/**
 * A playbook with METRICS_SCALE.versions versions and METRICS_SCALE.traces traces over the
 * METRICS_SCALE.days days before `now`: the AppWorld playbook imported (version 1, back-dated to the
 * day before), a generated history after it, figures by the production backfill, then the traces.
 */
export async function seedMetricsPlaybook(db: Db, name: string, now: Date): Promise<MetricsSeed> {
  const to = new Date(now.getTime() - 60_000);
  const from = new Date(now.getTime() - METRICS_SCALE.days * DAY_MS);
  const { playbookId } = await importAppWorld({ db }, name);
  await seedRepo.backdatePlaybook(db, playbookId, new Date(from.getTime() - DAY_MS));
  const snapshot = await loadSnapshot(db, playbookId);
  const history = generateHistory({
    state: snapshot.entry.state,
    firstVersion: snapshot.head.version + 1,
    count: METRICS_SCALE.versions - snapshot.head.version,
    from,
    to: new Date(to.getTime() - 10 * 60_000),
  });
  await seedRepo.writeHistory(db, playbookId, history);
  await backfillVersionFigures(db);
  const versionTimes = [{ number: snapshot.head.version, createdAt: new Date(from.getTime() - DAY_MS) }, ...history.versions];
  const bulletIds = [...history.state.bullets.keys()];
  const traces = await seedRepo.insertTraces(
    db,
    playbookId,
    "metrics",
    metricsTraceColumns({ count: METRICS_SCALE.traces, from, to, versions: versionTimes, bulletIds }),
  );
  const counted = await seedRepo.countRows(db, playbookId);
  check(counted.versions === METRICS_SCALE.versions, `expected ${METRICS_SCALE.versions} versions, found ${counted.versions}`);
  check(counted.figures === METRICS_SCALE.versions, `expected figures for every version, found ${counted.figures}`);
  check(
    counted.traces === METRICS_SCALE.traces && traces === counted.traces,
    `expected ${METRICS_SCALE.traces} traces, found ${counted.traces}`,
  );
  check(counted.hourly === counted.traces, `the hourly rollup counts ${counted.hourly} traces of ${counted.traces}`);
  return { playbookId, name, from, to: now, versions: counted.versions, traces: counted.traces };
}

/** 95,000 reflector runs (one per trace, the earliest) and 5,000 curator runs over the seed's range. */
export async function seedMetricsRuns(db: Db, seed: MetricsSeed): Promise<number> {
  const runs = await seedRepo.insertRuns(db, seed.playbookId, {
    reflections: METRICS_SCALE.reflections,
    curations: METRICS_SCALE.curations,
    from: seed.from,
    to: seed.to,
  });
  const counted = await seedRepo.countRows(db, seed.playbookId);
  check(
    counted.runs === runs && runs === METRICS_SCALE.reflections + METRICS_SCALE.curations,
    `expected 100,000 runs, found ${counted.runs}`,
  );
  return runs;
}

/** The query string of "90 days by day" for the seed: what the Evolution tab's 90-day range asks for. */
export function ninetyDaysQuery(seed: MetricsSeed): URLSearchParams {
  return new URLSearchParams({ from: seed.from.toISOString(), to: seed.to.toISOString(), bucket: "day" });
}

function callMetrics(db: Db, seed: MetricsSeed): Promise<MetricsResult> {
  return playbookMetrics(db, { name: seed.name }, parseMetricsQuery(ninetyDaysQuery(seed)));
}

function describeAnswer(result: MetricsResult): string {
  const runs = result.llm.byRole.filter((role) => role.role !== "agent").reduce((sum, role) => sum + role.runs, 0);
  return (
    `The answer: ${result.outcomes.length} daily buckets, ${result.totals.traces.toLocaleString("en")} traces, ` +
    `${result.versions.length} content versions listed, ${runs.toLocaleString("en")} runs, ` +
    `${(Buffer.byteLength(JSON.stringify(result)) / 1024).toFixed(0)} KB of JSON.`
  );
}

/** The seed timed once (a row without a target), then both rows; returns the seed with its runs, or null when seeding failed. */
export async function metricsBenchmarks(engine: BenchEngine, plan: RunPlan, record: RecordResult): Promise<MetricsSeed | null> {
  const { db } = engine;
  const scale = `${(METRICS_SCALE.traces / 1000).toFixed(0)}k traces, ${METRICS_SCALE.versions.toLocaleString("en")} versions`;
  const seeding = `Metrics: seed ${scale} over ${METRICS_SCALE.days} days, once`;
  const seeded = await seedOnce(
    record,
    seeding,
    engine.name,
    {
      timeoutMs: SEED_TIMEOUT_MS,
      note: "AppWorld imported, the history generated by the delta engine and written in bulk, figures backfilled, traces inserted 25,000 per statement (the rollup triggers fire).",
    },
    () => seedMetricsPlaybook(db, `Metrics ${Date.now()}`, new Date()),
  );
  if (!seeded) return null;

  const target = METRICS_TARGETS[engine.name];
  const benchmark = `Metrics, 90 days by day: ${scale}`;
  await guarded(record, benchmark, engine.name, async () => {
    const first = await callMetrics(db, seeded);
    check(first.totals.traces === METRICS_SCALE.traces, `the metrics count ${first.totals.traces} traces`);
    check(first.outcomes.length >= METRICS_SCALE.days, `expected ${METRICS_SCALE.days}+ daily buckets, got ${first.outcomes.length}`);
    const samples = await measure(() => callMetrics(db, seeded), plan, CALL_TIMEOUT_MS, benchmark);
    recordSamples(record, benchmark, engine.name, samples, { target, note: describeAnswer(first) });
  });

  const withRuns = `Metrics, 90 days by day: ${scale}, 100k runs`;
  const runsAdded = await guarded(record, withRuns, engine.name, async () => {
    await seedMetricsRuns(db, seeded);
    const first = await callMetrics(db, seeded);
    const runs = first.llm.byRole.filter((role) => role.role !== "agent").reduce((sum, role) => sum + role.runs, 0);
    check(runs === METRICS_SCALE.reflections + METRICS_SCALE.curations, `the metrics count ${runs} runs`);
    const samples = await measure(() => callMetrics(db, seeded), plan, CALL_TIMEOUT_MS, withRuns);
    recordSamples(record, withRuns, engine.name, samples, {
      target,
      note: `${describeAnswer(first)} Runs (95,000 reflector, one per trace; 5,000 curator) inserted untimed before the first call.`,
    });
  });
  return runsAdded ? seeded : null;
}

/** Lines for "How these were measured". */
export function metricsNotes(plan: RunPlan): string[] {
  return [
    `Metrics (issue 9; target p95 ≤ ${formatMs(METRICS_TARGETS.PostgreSQL.maxMs)} on PostgreSQL, ≤ ${formatMs(METRICS_TARGETS.PGlite.maxMs)} ` +
      `on PGlite): GET /api/v1/playbooks/{name}/metrics?from=<90 days ago>&to=<now>&bucket=day minus HTTP: the query parsed by ` +
      `parseMetricsQuery, then playbookMetrics (server/metrics/service.ts) by name, as the route does. The playbook: AppWorld (318 ` +
      `bullets) imported 91 days back, then ${METRICS_SCALE.versions - 1} versions spread over the 90 days, made by the delta engine ` +
      `(server/ace/delta) and written in bulk (server/bench/repository.ts): 88 % a reflection's 1–3 counter tags (auto-applied), 9 % ` +
      `1–2 curator additions a person approved 5 min–4 h after the proposal, 3 % a person's rewording, plus rejected and pending ` +
      `curator proposals; figures by the production backfill. ${METRICS_SCALE.traces.toLocaleString("en")} traces spread evenly over ` +
      `the 90 days (25,000 per INSERT, so the hourly rollup triggers fire as on any insert), each with the version current at its ` +
      `time, success rising from 55 % to 75 %, 5 % unknown, durations 5–60 s with a tail, usage and cost; 30 % of the last 30 days ` +
      `labelled variant A or B. Texts are short: the metrics never read them. The "100k runs" row adds, untimed, ` +
      `${METRICS_SCALE.reflections.toLocaleString("en")} reflector runs (one per trace) and ${METRICS_SCALE.curations.toLocaleString("en")} ` +
      `curator runs with tokens, cost, latencies and a few failures. ${plan.warmup} warm-ups + ${plan.runs} timed calls per row.`,
  ];
}
