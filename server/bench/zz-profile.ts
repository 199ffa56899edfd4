import { performance } from "node:perf_hooks";
import { randomUUID } from "node:crypto";
import { openPgliteEngine, openPostgresEngine, DEFAULT_POSTGRES_URL, type BenchEngine } from "./engines";
import { importAppWorld, ACTOR } from "./database";
import { bulletIdsOf, traceSource } from "./trace-data";
import { parseTraceBody } from "@/server/traces/schemas";
import { ingestTraces } from "@/server/traces/service";
import { updateSettings } from "@/server/playbooks/service";
import { updateSettingsInput } from "@/server/playbooks/schemas";
import { offlineProvider, useRunProvider } from "@/server/runs/providers";
import * as runRepo from "@/server/runs/repository";
import * as queue from "@/server/jobs/queue";
import { enqueueReflections } from "@/server/runs/service";

async function time<T>(label: string, f: () => Promise<T>): Promise<T> {
  const s = performance.now();
  const r = await f();
  console.log(`${label}: ${(performance.now() - s).toFixed(1)} ms`);
  return r;
}

async function profile(engine: BenchEngine) {
  console.log("==", engine.version);
  const db = engine.db;
  useRunProvider(db, offlineProvider());
  const { playbookId, content } = await importAppWorld(engine, "P");
  const { playbookId: offId } = await importAppWorld(engine, "Off");
  await updateSettings(db, ACTOR, updateSettingsInput.parse({ playbookId: offId, settings: { reflectorMode: "off" } }));
  const src = traceSource({ playbook: "P", bulletIds: bulletIdsOf(content), idPrefix: "x" });
  const srcOff = traceSource({ playbook: "Off", bulletIds: bulletIdsOf(content), idPrefix: "y" });
  for (let round = 0; round < 4; round++) {
    console.log("-- round", round);
    const body = { traces: src.next(1000) };
    const items = await time("parse 1000", async () => parseTraceBody(body));
    await time("ingest 1000 (auto: traces + runs + jobs)", () => ingestTraces(db, items, { source: "api" }));
    const off = parseTraceBody({ traces: srcOff.next(1000) });
    await time("ingest 1000, reflector off (traces only)", () => ingestTraces(db, off, { source: "api" }));
    const ids = Array.from({ length: 1000 }, () => randomUUID());
    const runs = ids.map((traceId) => ({ id: randomUUID(), playbookId: offId, role: "reflector" as const, provider: "offline", model: "rules", trigger: "auto", traceIds: [traceId] }));
    await time("insertQueuedRuns 1000 (run.createMany)", () => runRepo.insertQueuedRuns(db, runs));
    await time("enqueueMany 1000 (job.createMany)", () => queue.enqueueMany(db, runs.map((run) => ({ kind: "zz", playbookId: offId, payload: { runId: run.id }, maxAttempts: 5 }))));
    await time("enqueueReflections 1000 (both)", () => enqueueReflections(db, offId, ids, "auto"));
  }
}

for (const open of [() => openPgliteEngine(), async () => { const o = await openPostgresEngine(DEFAULT_POSTGRES_URL); if ("unavailable" in o) throw new Error(o.unavailable); return o.engine; }]) {
  const engine = await open();
  try { await profile(engine); } finally { await engine.close(); }
}
