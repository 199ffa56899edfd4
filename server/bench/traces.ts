// Trace ingestion: one trace per call, and batches of 100 and 1,000, through the traces service with
// the body parsed as POST /api/v1/traces parses it. Each call also queues a reflector run and its
// job per new trace (onTracesStored, in the same transaction), as in production; no worker runs, so the jobs only queue.
import { queueStats } from "@/server/jobs/queue";
import { updateSettings } from "@/server/playbooks/manage";
import { updateSettingsInput } from "@/server/playbooks/schemas";
import { offlineProvider, useRunProvider } from "@/server/runs/providers";
import { listRunsInput } from "@/server/runs/schemas";
import { listRuns } from "@/server/runs/service";
import { parseTraceBody } from "@/server/traces/schemas";
import { ingestTraces } from "@/server/traces/service";
import { CALL_TIMEOUT_MS, check, guarded, importAppWorld, recordSamples, type RecordResult } from "./database";
import type { BenchEngine } from "./engines";
import { measurePrepared, type RunPlan } from "./measure";
import { formatRate, type RateTarget, type Throughput } from "./report";
import { percentile } from "./stats";
import { bulletIdsOf, traceSource, type TraceBody } from "./trace-data";

/** The target holds for batched ingestion on PostgreSQL, the production engine. */
export const TRACE_TARGET: RateTarget = { minPerSecond: 1_000 };
const UNIT = "traces/s";

export interface TracePlans {
  single: RunPlan;
  batch100: RunPlan;
  batch1000: RunPlan;
}

function throughputOf(samples: readonly number[], perCall: number, target: RateTarget | undefined): Throughput {
  const totalMs = samples.reduce((sum, ms) => sum + ms, 0);
  return { perSecond: (perCall * samples.length * 1000) / totalMs, unit: UNIT, ...(target ? { target } : {}) };
}

export async function traceBenchmarks(engine: BenchEngine, plans: TracePlans, record: RecordResult): Promise<void> {
  const { db } = engine;
  const stamp = Date.now();
  const name = `Trace ingestion ${stamp}`;
  let source: ReturnType<typeof traceSource> | undefined;
  let playbookId = "";
  const ready = await guarded(record, "Ingest traces: setup", engine.name, async () => {
    // Runs are queued under the provider's name and model; the provider itself is never called here.
    useRunProvider(db, offlineProvider());
    const imported = await importAppWorld(engine, name);
    playbookId = imported.playbookId;
    source = traceSource({ playbook: name, bulletIds: bulletIdsOf(imported.content), idPrefix: `bench-${stamp}` });
  });
  if (!ready || !source) return;
  const traces = source;

  let stored = 0;
  const variants: { label: string; size: number; plan: RunPlan }[] = [
    { label: "one trace per call", size: 1, plan: plans.single },
    { label: "batches of 100", size: 100, plan: plans.batch100 },
    { label: "batches of 1,000", size: 1_000, plan: plans.batch1000 },
  ];
  for (const { label, size, plan } of variants) {
    const benchmark = `Ingest traces, ${label}`;
    await guarded(record, benchmark, engine.name, async () => {
      let bytes = 0;
      const samples = await measurePrepared(
        async () => {
          const batch = traces.next(size);
          bytes += Buffer.byteLength(JSON.stringify(batch));
          // The HTTP body: one trace alone, or { traces: [...] }.
          return size === 1 ? (batch[0] as TraceBody) : { traces: batch };
        },
        async (body) => {
          const result = await ingestTraces(db, parseTraceBody(body), { source: "api" });
          check(result.created === size, `expected ${size} traces stored, ${result.created} were`);
          stored += size;
        },
        plan,
        CALL_TIMEOUT_MS,
        benchmark,
      );
      const calls = plan.warmup + plan.runs;
      const target = engine.name === "PostgreSQL" && size > 1 ? TRACE_TARGET : undefined;
      const throughput = throughputOf(samples, size, target);
      const medianRate = percentile(
        samples.map((ms) => (size * 1000) / ms),
        50,
      );
      recordSamples(record, benchmark, engine.name, samples, {
        throughput,
        note:
          `Throughput ${formatRate(throughput)} is traces stored / time of the timed calls; the median call's rate was ` +
          `${formatRate({ perSecond: medianRate, unit: UNIT })}. ${(bytes / calls / size / 1024).toFixed(1)} KB of JSON per trace. ` +
          `The playbook held ${(stored - size * calls).toLocaleString("en")} traces (and as many queued runs and jobs) before the first call.`,
      });
    });
  }

  stored += await redactionBenchmark(engine, playbookId, plans.batch1000, () => traces.next(1_000), record);

  // Every trace stored queued its reflection, and nothing ran it.
  await guarded(record, "Ingest traces: queued reflections", engine.name, async () => {
    const [runs, jobs] = await Promise.all([listRuns(db, listRunsInput.parse({ playbookId, limit: 1 })), queueStats(db, { playbookId })]);
    check(runs.total === stored, `expected ${stored} queued reflector runs, found ${runs.total}`);
    check(jobs.byStatus.queued === stored, `expected ${stored} queued jobs, found ${jobs.byStatus.queued}`);
    check(jobs.total === jobs.byStatus.queued, "a worker claimed jobs during the benchmark");
  });
}

/** Issue 16: ingestion with redaction on keeps at least this share of the throughput with it off. */
export const REDACTION_MIN_SHARE = 0.8;

const REDACTION_MODES = [
  { label: "redaction off", redaction: { secrets: false, cards: false, emails: false, phones: false, ibans: false, ssns: false } },
  {
    label: "redaction on (every built-in kind)",
    redaction: { secrets: true, cards: true, emails: true, phones: true, ibans: true, ssns: true },
  },
] as const;

/**
 * Batches of 1,000 with redaction off and on, alternating call by call so both see the same table
 * size and machine load. Returns the traces stored.
 */
async function redactionBenchmark(
  engine: BenchEngine,
  playbookId: string,
  plan: RunPlan,
  nextBatch: () => TraceBody[],
  record: RecordResult,
): Promise<number> {
  const { db } = engine;
  const samples: number[][] = REDACTION_MODES.map(() => []);
  let stored = 0;
  const ok = await guarded(record, "Ingest traces, batches of 1,000, redaction on and off", engine.name, async () => {
    for (let call = 0; call < plan.warmup + plan.runs; call++) {
      for (const [mode, { redaction }] of REDACTION_MODES.entries()) {
        // Not timed: the playbook's settings are read by ingest inside its transaction.
        await updateSettings(db, "bench", updateSettingsInput.parse({ playbookId, settings: { redaction } }));
        const body = parseTraceBody({ traces: nextBatch() });
        const started = performance.now();
        const result = await ingestTraces(db, body, { source: "api" });
        const ms = performance.now() - started;
        check(result.created === 1_000, `expected 1000 traces stored, ${result.created} were`);
        stored += 1_000;
        if (call >= plan.warmup) samples[mode]!.push(ms);
      }
    }
  });
  if (!ok) return stored;
  const [off, on] = samples.map((times) => throughputOf(times, 1_000, undefined)) as [Throughput, Throughput];
  const share = on.perSecond / off.perSecond;
  REDACTION_MODES.forEach(({ label }, mode) => {
    const isOn = mode === 1;
    recordSamples(record, `Ingest traces, batches of 1,000, ${label}`, engine.name, samples[mode]!, {
      throughput: isOn ? on : off,
      ...(isOn
        ? {
            extra: [
              {
                text: `≥ ${REDACTION_MIN_SHARE * 100} % of the throughput with redaction off (${(share * 100).toFixed(0)} %)`,
                met: share >= REDACTION_MIN_SHARE,
              },
            ],
          }
        : {}),
      note: isOn
        ? `Email, phone, card, IBAN, SSN and secret detectors (encoded segments decoded) on every text field, metadata string and key; ${(share * 100).toFixed(1)} % of the throughput with redaction off.`
        : "The playbook's redaction settings turned off: no detector runs.",
    });
  });
  return stored;
}

/** Lines for "How these were measured". */
export function traceNotes(plans: TracePlans): string[] {
  const of = (plan: RunPlan) => `${plan.warmup} + ${plan.runs}`;
  return [
    `Trace ingestion (target ≥ ${TRACE_TARGET.minPerSecond.toLocaleString("en")} ${UNIT} batched, on PostgreSQL): ingestTraces ` +
      `(server/traces/service.ts) with the body parsed by parseTraceBody, as POST /api/v1/traces does (traceBatchSchema for a batch, ` +
      `the trace schema for one trace alone); JSON parsing and HTTP are not timed. Warm-up + timed calls: one trace per call ` +
      `${of(plans.single)}, batches of 100 ${of(plans.batch100)}, batches of 1,000 ${of(plans.batch1000)}, in that order, into one ` +
      `imported AppWorld playbook (318 bullets). Each call includes what ingestion costs in production: one transaction storing the ` +
      `traces and, in it, onTracesStored queueing one reflector run and one job per new trace. No job worker runs (none is started), ` +
      `so the jobs stay queued; this is checked afterwards. Throughput is total traces / total time of the timed calls; the median ` +
      `call's rate is in the note.`,
    `Redaction at ingestion (issue 16, target: on ≥ ${REDACTION_MIN_SHARE * 100} % of off): batches of 1,000 into the same playbook, ` +
      `${of(plans.batch1000)} calls each, alternating redaction off (every kind off) and on (every built-in kind on) call by call; ` +
      `the settings change between calls is not timed.`,
    `Traces (server/bench/trace-data.ts, seeded): AppWorld-style tasks; 1–2 KB of step-by-step reasoning citing 2–5 random bullet ` +
      `ids of the playbook as [id] (cited ids are extracted from the text, as for an agent that sends no citedBulletIds); the final ` +
      `code or answer; outcome success 65 %, failure 30 %, unknown 5 %; feedback with test results, errors and a ground truth for ` +
      `failed answers; usage, duration and metadata; an external id unique per trace (no duplicates).`,
  ];
}
