// The compiled context of the 10,000-bullet playbook, as GET /api/v1/playbooks/{name}/context serves
// it minus HTTP: resolve the playbook and options to an ETag, answer 304 when the agent's copy is
// current, else compile the context (server/context/service.ts) from the playbook state the delta
// engine keeps in memory, or take the copy compiled for that ETag before. The compile is timed with
// that copy forgotten before every call, and after a counter update made a new version.
import { getEnv } from "@/server/config/env";
import { setContextClock } from "@/server/context/publication";
import { parseContextQuery } from "@/server/context/schemas";
import { compileTarget, forgetCompiledContexts, resolveContextTarget } from "@/server/context/service";
import { editDeltaInput } from "@/server/deltas/schemas";
import { editPlaybook } from "@/server/deltas/edit";
import { forgetEngineStates } from "@/server/deltas/engine-state";
import { matchesIfNoneMatch } from "@/server/http/etag";
import { getPlaybook } from "@/server/playbooks/browse";
import { ACTOR, CALL_TIMEOUT_MS, check, guarded, recordSamples, type SyntheticBenchmark } from "./database";
import type { BenchEngine } from "./engines";
import { measure, measurePrepared, timeOnce, type RunPlan } from "./measure";
import { formatMs, type Target } from "./report";

export const CONTEXT_TARGET: Target = { maxMs: 50 };

/** What the route does with a query string and an If-None-Match header. */
async function serveContext(engine: BenchEngine, name: string, query: string, ifNoneMatch: string | null) {
  const options = parseContextQuery(new URLSearchParams(query));
  const target = await resolveContextTarget(
    engine.db,
    { name },
    {
      budget: options.budget,
      includeCounters: options.counters,
      format: options.format,
    },
  );
  if (matchesIfNoneMatch(ifNoneMatch, target.etag)) return { status: 304 as const, etag: target.etag };
  const { result, etag } = await compileTarget(engine.db, target);
  return { status: 200 as const, etag, result };
}

export const contextBenchmarks: SyntheticBenchmark = async (engine, synthetic, playbookId, plan, record) => {
  let name = "";
  let budget = 0;
  const count = synthetic.bulletCount.toLocaleString("en");
  const cold = `Compiled context, ${count} bullets: first call, once`;
  const ready = await guarded(record, cold, engine.name, async () => {
    const playbook = await getPlaybook(engine.db, playbookId);
    name = playbook.name;
    budget = playbook.settings.tokenBudget;
    forgetCompiledContexts();
    forgetEngineStates(engine.db);
    const ms = await timeOnce(() => serveContext(engine, name, "", null), CALL_TIMEOUT_MS, cold);
    recordSamples(record, cold, engine.name, [ms]);
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
      check(
        result.bulletCount === synthetic.bulletCount,
        `expected ${synthetic.bulletCount} active bullets, the context counts ${result.bulletCount}`,
      );
      check(
        result.includedBullets > 0 && result.tokens <= budget,
        `${result.includedBullets} bullets in ${result.tokens} tokens, budget ${budget}`,
      );
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
      recordSamples(record, benchmark, engine.name, samples, {
        target: CONTEXT_TARGET,
        note:
          `${result.includedBullets.toLocaleString("en")} bullets in ${result.tokens.toLocaleString("en")} tokens ` +
          `(${(Buffer.byteLength(result.context) / 1024).toFixed(0)} KB of text); ${result.omittedBullets.toLocaleString("en")} ` +
          `lower-ranked bullets left out by the budget.`,
      });
    });
  }

  // What an agent waits for after each reflection: the reflector's counter update (a tag delta on
  // three bullets, applied untimed) makes a new version, and the fetch that publishes it compiles it.
  // Counter-only versions are published once ACE_CONTEXT_COUNTER_REFRESH_S has passed
  // (server/context/publication.ts): the context's clock is moved past it before each fetch.
  const afterTags = `Compiled context, ${count} bullets: compile after a counter update`;
  await guarded(record, afterTags, engine.name, async () => {
    const { result } = await compileTarget(
      engine.db,
      await resolveContextTarget(engine.db, { name }, { includeCounters: true, format: "json" }),
    );
    const ids = [...result.context.matchAll(/^\[([^\]]+)\]/gm)].map((match) => match[1] as string).slice(0, 30);
    check(ids.length === 30, `expected 30 bullet ids in the context, found ${ids.length}`);
    let expectedVersion = result.version;
    let ahead = 0;
    try {
      const samples = await measurePrepared(
        async (call) => {
          const operations = [0, 1, 2].map((k) => ({
            type: "tag" as const,
            bulletId: ids[(call * 3 + k) % ids.length] as string,
            helpful: 1,
          }));
          const outcome = await editPlaybook(
            engine.db,
            ACTOR,
            editDeltaInput.parse({ playbookId, reason: `Benchmark tags ${call}`, operations }),
          );
          check(outcome.status === "applied", `the counter update was ${outcome.status}`);
          expectedVersion += 1;
          ahead += getEnv().contextCounterRefreshMs + 1;
          setContextClock(() => Date.now() + ahead);
        },
        async () => {
          const answer = await serveContext(engine, name, "", null);
          check(answer.status === 200 && answer.result.version === expectedVersion, "the context is not of the new version");
        },
        plan,
        CALL_TIMEOUT_MS,
        afterTags,
      );
      recordSamples(record, afterTags, engine.name, samples, {
        target: CONTEXT_TARGET,
        note:
          "Default options. Before each call, untimed: a tag delta adds 1 helpful to three bullets (as a reflection does), a new " +
          "version, and the counter refresh interval passes; the call publishes and compiles that version.",
      });
    } finally {
      setContextClock(undefined);
    }
  });

  const cached = `Compiled context, ${count} bullets: compiled copy of the same version and options`;
  await guarded(record, cached, engine.name, async () => {
    await serveContext(engine, name, "", null);
    const samples = await measure(() => serveContext(engine, name, "", null), plan, CALL_TIMEOUT_MS, cached);
    recordSamples(record, cached, engine.name, samples, {
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
    recordSamples(record, notModified, engine.name, samples, {
      target: CONTEXT_TARGET,
      note: "resolveContextTarget alone: the playbook's name, version and settings, and the ETag; no bullet is read.",
    });
  });
  // The curation benchmarks time the first apply after opening, which loads this state.
  forgetEngineStates(engine.db);
};

/** Lines for "How these were measured". */
export function contextNotes(plan: RunPlan): string[] {
  return [
    `Compiled context (target p95 ≤ ${formatMs(CONTEXT_TARGET.maxMs)}): GET /api/v1/playbooks/{name}/context minus HTTP, on the ` +
      `synthetic playbook after the page and export benchmarks and before curation changes it: the query parsed by ` +
      `parseContextQuery, resolveContextTarget by name, then compileTarget (ranked bullets cut to the budget, JSON answer), or a ` +
      `304 when If-None-Match carries the current ETag. The compile reads the playbook state the delta engine keeps per version ` +
      `(every write moves it forward; versions written by another process are replayed), with token counts kept per bullet. ` +
      `The first call after opening loads that state and the stored token counts, and is timed once apart. The service also ` +
      `keeps compiled contexts per ETag; "compile" rows call forgetCompiledContexts (untimed) before every call, the "after a ` +
      `counter update" row applies a three-bullet tag delta (untimed) before every call, and the "compiled copy" row is what ` +
      `later requests for the same version and options cost. ${plan.warmup} warm-ups + ${plan.runs} timed calls per variant.`,
  ];
}
