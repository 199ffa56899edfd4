// Retention (issue 16): the daily run removing 100,000 expired traces from one playbook on
// PostgreSQL, while an agent keeps posting traces to the same playbook; the longest ingestion call
// during the run is its stall. Target: the run ≤ 10 s, no ingestion call held more than 100 ms.
import { performance } from "node:perf_hooks";
import { runRetention } from "@/server/retention/service";
import { parseTraceBody } from "@/server/traces/schemas";
import { ingestTraces } from "@/server/traces/service";
import { check, guarded, importAppWorld, type RecordResult } from "./database";
import type { BenchEngine } from "./engines";
import { metricsTraceColumns } from "./metrics-data";
import * as seedRepo from "./repository";
import { formatMs } from "./report";
import { summarize } from "./stats";

const DAY_MS = 86_400_000;
const RETENTION_SCALE = { traces: 100_000 } as const;
const RETENTION_TARGET = { runMs: 10_000, stallMs: 100 } as const;

/** One small batch as an agent posts it, timed. */
async function ingestOnce(engine: BenchEngine, name: string, n: number): Promise<number> {
  const traces = Array.from({ length: 10 }, (_, i) => ({ playbook: name, task: `live ${n}-${i}`, outcome: "success" }));
  const start = performance.now();
  await ingestTraces(engine.db, parseTraceBody({ traces }), { source: "api" });
  return performance.now() - start;
}

export async function retentionBenchmarks(engine: BenchEngine, record: RecordResult): Promise<void> {
  const benchmark = `Retention: ${(RETENTION_SCALE.traces / 1000).toFixed(0)}k expired traces removed while ingesting`;
  if (engine.name !== "PostgreSQL") {
    record({ kind: "skipped", benchmark, engine: engine.name, reason: "the issue's target is for PostgreSQL" });
    return;
  }
  await guarded(record, benchmark, engine.name, async () => {
    const { db } = engine;
    const name = `Retention ${Date.now()}`;
    const { playbookId } = await importAppWorld(engine, name);
    const now = Date.now();
    const columns = metricsTraceColumns({
      count: RETENTION_SCALE.traces,
      from: new Date(now - 100 * DAY_MS),
      to: new Date(now - 40 * DAY_MS),
      versions: [{ number: 1, createdAt: new Date(now - 101 * DAY_MS) }],
      bulletIds: ["str-00001", "str-00002"],
    });
    // No experiment label: another row's experiment of the same key would keep them.
    columns.experiment = [];
    columns.variant = [];
    const inserted = await seedRepo.insertTraces(db, playbookId, "retention", columns);
    check(inserted === RETENTION_SCALE.traces, `expected ${RETENTION_SCALE.traces} traces, inserted ${inserted}`);

    const baseline: number[] = [];
    for (let n = 0; n < 20; n += 1) baseline.push(await ingestOnce(engine, name, n));

    const during: number[] = [];
    let running = true;
    const agent = (async () => {
      for (let n = 100; running; n += 1) during.push(await ingestOnce(engine, name, n));
    })();
    const start = performance.now();
    const run = await runRetention(db, "bench", "manual", { playbookIds: [playbookId] });
    const runMs = performance.now() - start;
    running = false;
    await agent;
    const removed = run.byPlaybook.find((row) => row.playbookId === playbookId)?.traces ?? 0;
    check(removed === RETENTION_SCALE.traces, `the run removed ${removed} of the ${RETENTION_SCALE.traces} expired traces`);

    const base = summarize(baseline);
    const live = summarize(during);
    // The stall: how much longer the slowest call during the run took than the usual call.
    const stallMs = Math.max(0, live.max - base.p50);
    record({
      kind: "measured",
      benchmark,
      engine: engine.name,
      summary: { runs: 1, p50: runMs, p95: runMs, max: runMs },
      target: { maxMs: RETENTION_TARGET.runMs },
      throughput: { perSecond: (removed / runMs) * 1000, unit: "traces/s" },
      extra: [
        {
          text: `longest ingestion stall ${formatMs(stallMs)} ≤ ${formatMs(RETENTION_TARGET.stallMs)}`,
          met: stallMs <= RETENTION_TARGET.stallMs,
        },
      ],
      note:
        `${live.runs} batches of 10 traces posted during the run: p50 ${formatMs(live.p50)}, max ${formatMs(live.max)} ` +
        `(before it: p50 ${formatMs(base.p50)}, max ${formatMs(base.max)}).`,
    });
  });
}

export function retentionNotes(): string[] {
  return [
    `Retention (issue 16; target ≤ ${formatMs(RETENTION_TARGET.runMs)} for ${RETENTION_SCALE.traces.toLocaleString("en")} expired traces on ` +
      `PostgreSQL, no ingestion call held more than ${formatMs(RETENTION_TARGET.stallMs)}): AppWorld imported, ` +
      `${RETENTION_SCALE.traces.toLocaleString("en")} reflected traces inserted 40–100 days back, then runRetention (server/retention/service.ts) ` +
      `timed once while one agent posts batches of 10 traces to the same playbook one after another. The stall is the slowest ` +
      `post during the run minus the median post before it.`,
  ];
}
