// Tokens per reflection-and-curation cycle, on the real run path: traces ingested into the AppWorld
// playbook queue reflector runs, a JobWorker runs them against the project's mock OpenAI server
// ("ace" mode: a schema-valid answer to any request), and every curatorFrequency reflections queue
// a curator run. The figures are the Run rows' token counts, as the provider reported them.
import { performance } from "node:perf_hooks";
import { countTokens } from "@/server/ace/tokens";
import { JobWorker } from "@/server/jobs/worker";
import { loadEnv } from "@/server/config/env";
import { updateSettingsInput } from "@/server/playbooks/schemas";
import { updateSettings } from "@/server/playbooks/manage";
import { openAiRunProvider, useRunProvider } from "@/server/runs/providers";
import { listRunsInput, type RunListItem } from "@/server/runs/schemas";
import { getRun, listRuns, runHandlers } from "@/server/runs/service";
import { CURATOR_PLAYBOOK_TOKENS } from "@/server/runs/curate";
import { startMockOpenAi } from "@/server/testing/mock-openai";
import { parseTraceBody } from "@/server/traces/schemas";
import { ingestTraces } from "@/server/traces/service";
import { ACTOR, check, guarded, importAppWorld, recordSamples, type RecordResult } from "./database";
import type { BenchEngine } from "./engines";
import { formatTokens, type TokenTarget } from "./report";
import { summarize } from "./stats";
import { bulletIdsOf, traceSource } from "./trace-data";

/** The ACE design's budget for one reflection and its share of a curation. */
export const CYCLE_TARGET: TokenTarget = { maxTokens: 8_000 };

export interface CyclePlan {
  /** Rounds of `tracesPerRound` traces; each ends in one curator run. */
  rounds: number;
  /** Also the playbook's curatorFrequency. */
  tracesPerRound: number;
}

const DRAIN_TIMEOUT_MS = 300_000;
const total = (run: RunListItem) => run.inputTokens + run.outputTokens;
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

async function allRuns(engine: BenchEngine, playbookId: string): Promise<RunListItem[]> {
  const runs: RunListItem[] = [];
  let cursor: number | null = 0;
  while (cursor !== null) {
    const page = await listRuns(engine.db, listRunsInput.parse({ playbookId, cursor, limit: 200 }));
    runs.push(...page.items);
    cursor = page.nextCursor;
  }
  return runs;
}

export async function cycleBenchmark(engine: BenchEngine, plan: CyclePlan, record: RecordResult): Promise<void> {
  const { db } = engine;
  const { rounds, tracesPerRound: n } = plan;
  const mock = await startMockOpenAi({ mode: "ace" });
  try {
    let runs: RunListItem[] = [];
    const curatorOf = new Map<string, string>();
    const drainMs: number[] = [];
    const setup = "Reflection-and-curation cycle: setup and runs";
    const ran = await guarded(record, setup, engine.name, async () => {
      const stamp = Date.now();
      const name = `Cycle ${stamp}`;
      // Before the traces arrive: their runs are queued under this provider's name and model.
      useRunProvider(db, openAiRunProvider(db, loadEnv({ OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: "bench" }).llm));
      const { playbookId, content } = await importAppWorld(engine, name);
      await updateSettings(db, ACTOR, updateSettingsInput.parse({ playbookId, settings: { curatorFrequency: n } }));
      const traces = traceSource({ playbook: name, bulletIds: bulletIdsOf(content), idPrefix: `cycle-${stamp}`, seed: 0xc7c1e });
      const worker = new JobWorker(db, {
        handlers: runHandlers(),
        concurrency: 2,
        logger: {
          info: () => undefined,
          warn: (message, meta) => console.warn(`[bench] jobs: ${message}`, meta ?? ""),
          error: (message, meta) => console.error(`[bench] jobs: ${message}`, meta ?? ""),
        },
      });
      for (let round = 0; round < rounds; round++) {
        const result = await ingestTraces(db, parseTraceBody({ traces: traces.next(n) }), { source: "api" });
        check(result.created === n, `expected ${n} traces stored, ${result.created} were`);
        const start = performance.now();
        await worker.drain({ timeoutMs: DRAIN_TIMEOUT_MS });
        drainMs.push(performance.now() - start);
      }
      runs = await allRuns(engine, playbookId);
      const failed = runs.filter((run) => run.status !== "succeeded");
      check(failed.length === 0, `${failed.length} runs did not succeed: ${failed[0]?.error ?? failed[0]?.status}`);
      const curators = runs.filter((run) => run.role === "curator");
      check(runs.length === rounds * (n + 1), `expected ${rounds * n} reflector and ${rounds} curator runs, found ${runs.length} runs`);
      check(curators.length === rounds, `expected ${rounds} curator runs, found ${curators.length}`);
      check(
        runs.every((run) => run.provider === "openai" && run.inputTokens > 0),
        "a run did not go through the mock provider",
      );
      for (const curator of curators) {
        const detail = await getRun(db, curator.id);
        check(detail.reflectionRunIds.length === n, `a curator run read ${detail.reflectionRunIds.length} reflections, not ${n}`);
        for (const reflection of detail.reflectionRunIds) curatorOf.set(reflection, curator.id);
      }
    });
    if (!ran) return;

    // OpenAI counts the response schema into the prompt; the mock counts the messages only.
    const schemaTokens = (schemaName: string) =>
      mean(
        mock.requests
          .map((request) => request.body.response_format?.json_schema)
          .filter((format) => format?.name === schemaName)
          .map((format) => countTokens(JSON.stringify(format?.schema ?? {}))),
      );
    const reflectors = runs.filter((run) => run.role === "reflector");
    const curators = new Map(runs.filter((run) => run.role === "curator").map((run) => [run.id, run]));
    const curatorShare = (reflector: RunListItem) => total(curators.get(curatorOf.get(reflector.id) ?? "") as RunListItem) / n;
    const inOut = (list: RunListItem[]) =>
      `mean ${formatTokens(mean(list.map((run) => run.inputTokens)))} in (prompt), ${formatTokens(mean(list.map((run) => run.outputTokens)))} out (answer)`;

    record({
      kind: "tokens",
      benchmark: "Reflector run, one trace citing 2–5 bullets: tokens in + out",
      engine: engine.name,
      summary: summarize(reflectors.map(total)),
      note: `${inOut(reflectors)}; its response schema, which OpenAI bills as prompt and the mock does not count, is ${formatTokens(schemaTokens("reflection"))}.`,
    });
    record({
      kind: "tokens",
      benchmark: `Curator run, ${n} reflections: tokens in + out`,
      engine: engine.name,
      summary: summarize([...curators.values()].map(total)),
      note:
        `${inOut([...curators.values()])}; the playbook in its prompt is cut to ${CURATOR_PLAYBOOK_TOKENS.toLocaleString("en")} ` +
        `tokens; its response schema (not counted, as above) is ${formatTokens(schemaTokens("curation"))}.`,
    });
    record({
      kind: "tokens",
      benchmark: `Cycle: one reflection + 1/${n} of its curator run`,
      engine: engine.name,
      summary: summarize(reflectors.map((run) => total(run) + curatorShare(run))),
      target: CYCLE_TARGET,
      note: `One figure per reflected trace: its reflector run's tokens plus an equal share of the curator run that read it.`,
    });
    const perRound = [...curators.values()].map((curator) => {
      const read = reflectors.filter((run) => curatorOf.get(run.id) === curator.id);
      return (read.reduce((sum, run) => sum + total(run), 0) + total(curator)) / n;
    });
    record({
      kind: "tokens",
      benchmark: `Cycle: (${n} reflections + 1 curation) ÷ ${n}`,
      engine: engine.name,
      summary: summarize(perRound),
      target: CYCLE_TARGET,
      note: `One figure per round of ${n} traces: all its runs' tokens divided by the traces reflected.`,
    });
    recordSamples(record, `· Round of ${n} reflector runs + 1 curator run, drained (mock answers at once)`, engine.name, drainMs, {
      note: "Wall time of JobWorker.drain (concurrency 2) for one round: the server's own work per cycle, with an LLM that takes no time.",
    });
  } finally {
    await mock.close();
  }
}

/** Lines for "How these were measured". */
export function cycleNotes(plan: CyclePlan): string[] {
  return [
    `Reflection-and-curation cycle (target p95 ≤ ${CYCLE_TARGET.maxTokens.toLocaleString("en")} tokens per cycle, the ACE design's ` +
      `budget): the AppWorld playbook (318 bullets) imported with curatorFrequency ${plan.tracesPerRound}; ${plan.rounds} ` +
      `round${plan.rounds === 1 ? "" : "s"} of ${plan.tracesPerRound} traces (as in trace ingestion: 1–2 KB of reasoning citing 2–5 ` +
      `bullets) ingested with ingestTraces, then a JobWorker with the production handlers (runHandlers) drained until the reflector ` +
      `runs and the curator run they trigger were done. The provider is openAiRunProvider (the OpenAI SDK, structured outputs) ` +
      `pointed at the mock server in "ace" mode (server/testing/mock-openai.ts), default models and one reflector round. Tokens are ` +
      `the Run rows' inputTokens + outputTokens as the mock reports them: prompt tokens counted with o200k_base over the messages the ` +
      `app built (4 per message + 3), so the prompt figures are what a real model would bill; answer tokens are the mock's ` +
      `minimal schema-valid answers (one short sentence per text field), so a real model's answers, and the cycle, would be larger.`,
  ];
}
