// The compiled context of the 10,000-bullet playbook, as GET /api/v1/playbooks/{name}/context serves
// it minus HTTP: resolve the playbook and options to an ETag, answer 304 when the agent's copy is
// current, else compile the context (server/context/service.ts), or take the copy compiled for
// that ETag before. The compile is timed with that copy forgotten before every call.
import { parseContextQuery } from "@/server/context/schemas";
import { compileTarget, forgetCompiledContexts, resolveContextTarget } from "@/server/context/service";
import { matchesIfNoneMatch } from "@/server/http/etag";
import { getPlaybook } from "@/server/playbooks/service";
import { CALL_TIMEOUT_MS, check, guarded, type RecordResult } from "./database";
import type { BenchEngine } from "./engines";
import { measure, measurePrepared, timeOnce, type RunPlan } from "./measure";
import { formatMs, type Target } from "./report";
import { summarize } from "./stats";
import type { SyntheticPlaybook } from "./synthetic";

export const CONTEXT_TARGET: Target = { maxMs: 50 };

/** What the route does with a query string and an If-None-Match header. */
async function serveContext(engine: BenchEngine, name: string, query: string, ifNoneMatch: string | null) {
  const options = parseContextQuery(new URLSearchParams(query));
  const target = await resolveContextTarget(engine.db, { name }, {
    budget: options.budget,
    includeCounters: options.counters,
    format: options.format,
  });
  if (matchesIfNoneMatch(ifNoneMatch, target.etag)) return { status: 304 as const, etag: target.etag };
  const { result, etag } = await compileTarget(engine.db, target);
  return { status: 200 as const, etag, result };
}

export async function contextBenchmarks(
  engine: BenchEngine,
  synthetic: SyntheticPlaybook,
  playbookId: string,
  plan: RunPlan,
  record: RecordResult,
): Promise<void> {
  let name = "";
  let budget = 0;
  const count = synthetic.bulletCount.toLocaleString("en");
  const cold = `Compiled context, ${count} bullets: first call, once`;
  const ready = await guarded(record, cold, engine.name, async () => {
    const playbook = await getPlaybook(engine.db, playbookId);
    name = playbook.name;
    budget = playbook.settings.tokenBudget;
    forgetCompiledContexts();
    const ms = await timeOnce(() => serveContext(engine, name, "", null), CALL_TIMEOUT_MS, cold);
    record({ kind: "measured", benchmark: cold, engine: engine.name, summary: summarize([ms]) });
  });
  if (!ready) return;

  for (const { label, query } of [
    { label: `default budget (${budget.toLocaleString("en")} tokens)`, query: "" },
    { label: "default budget, counters=false", query: "counters=false" },
  ]) {
    const benchmark = `Compiled context, ${count} bullets: compile, ${label}`;
    await guarded(record, benchmark, engine.name, async () => {
      forgetCompiledContexts();
      const first = await serveContext(engine, name, query, null);
      check(first.status === 200, "expected the context, got a 304");
      const { result } = first;
      check(result.bulletCount === synthetic.bulletCount, `expected ${synthetic.bulletCount} active bullets, the context counts ${result.bulletCount}`);
      check(result.includedBullets > 0 && result.tokens <= budget, `${result.includedBullets} bullets in ${result.tokens} tokens, budget ${budget}`);
      check(
        query === "" ? /helpful=\d+ harmful=\d+/.test(result.context) : !/helpful=\d/.test(result.context),
        `the context ${query === "" ? "lacks" : "has"} counters`,
      );
      const samples = await measurePrepared(
        async () => forgetCompiledContexts(),
        () => serveContext(engine, name, query, null),
        plan,
        CALL_TIMEOUT_MS,
        benchmark,
      );
      record({
        kind: "measured",
        benchmark,
        engine: engine.name,
        summary: summarize(samples),
        target: CONTEXT_TARGET,
        note:
          `${result.includedBullets.toLocaleString("en")} bullets in ${result.tokens.toLocaleString("en")} tokens ` +
          `(${(Buffer.byteLength(result.context) / 1024).toFixed(0)} KB of text); ${result.omittedBullets.toLocaleString("en")} ` +
          `lower-ranked bullets left out by the budget.`,
      });
    });
  }

  const cached = `Compiled context, ${count} bullets: compiled copy of the same version and options`;
  await guarded(record, cached, engine.name, async () => {
    await serveContext(engine, name, "", null);
    const samples = await measure(() => serveContext(engine, name, "", null), plan, CALL_TIMEOUT_MS, cached);
    record({
      kind: "measured",
      benchmark: cached,
      engine: engine.name,
      summary: summarize(samples),
      target: CONTEXT_TARGET,
      note: "Default options, 200 with the body: resolveContextTarget, then the context compiled for this ETag before (kept in the process).",
    });
  });

  const notModified = `Compiled context, ${count} bullets: If-None-Match current (304)`;
  await guarded(record, notModified, engine.name, async () => {
    const { etag } = await serveContext(engine, name, "", null);
    const first = await serveContext(engine, name, "", etag);
    check(first.status === 304, "an If-None-Match with the current ETag did not get a 304");
    const samples = await measure(() => serveContext(engine, name, "", etag), plan, CALL_TIMEOUT_MS, notModified);
    record({
      kind: "measured",
      benchmark: notModified,
      engine: engine.name,
      summary: summarize(samples),
      target: CONTEXT_TARGET,
      note: "resolveContextTarget alone: the playbook's name, version and settings, and the ETag; no bullet is read.",
    });
  });
}

/** Lines for "How these were measured". */
export function contextNotes(plan: RunPlan): string[] {
  return [
    `Compiled context (target p95 ≤ ${formatMs(CONTEXT_TARGET.maxMs)}): GET /api/v1/playbooks/{name}/context minus HTTP, on the ` +
      `synthetic playbook after the page and export benchmarks and before curation changes it: the query parsed by ` +
      `parseContextQuery, resolveContextTarget by name, then compileTarget (ranked bullets cut to the budget, JSON answer), or a ` +
      `304 when If-None-Match carries the current ETag. The service keeps compiled contexts per ETag; "compile" rows call ` +
      `forgetCompiledContexts (untimed) before every call so each one reads and compiles the bullets, the "compiled copy" row ` +
      `is what later requests for the same version and options cost. ${plan.warmup} warm-ups + ${plan.runs} timed calls per ` +
      `variant; the first context call on the playbook is timed once apart.`,
  ];
}
