// Erasure and retention reach every copy, on embedded PGlite and PostgreSQL: a marker put in a
// trace's task, output, reasoning and a metadata value spreads, through the reflector and the
// curator (offline rules, and a model behind the mock OpenAI server), into runs, deltas and their
// evidence. Erased by unit id, or expired by retention, the marker is left in no text, varchar,
// json/jsonb or text[] column of any table; the run rows stay, emptied and marked.
import { beforeEach, describe, expect, it } from "vitest";
import { loadEnv } from "@/server/config/env";
import type { Db } from "@/server/db/client";
import { JobWorker } from "@/server/jobs/worker";
import { CircuitBreaker } from "@/server/llm/circuit-breaker";
import { runRetention } from "@/server/retention/service";
import { breakerStore, offlineProvider, openAiRunProvider, useRunProvider } from "@/server/runs/providers";
import { runHandlers } from "@/server/runs/service";
import { testEngines } from "@/server/testing/db";
import { aceAnswer, type MockStepFunction } from "@/server/testing/mock-openai";
import { mockOpenAiSuite, playbookSuite } from "@/server/testing/playbook-suite";
import { MARKER, markedTrace, otherTrace, UNIT } from "@/server/testing/marked-trace";
import { columnsHolding, type RunQuery } from "@/server/testing/text-scan";

const { DELETE } = await import("@/app/api/v1/traces/route");

const DAY_MS = 86_400_000;

/** A curation that quotes nothing of the traces: what a model adds is playbook content once approved, not a copy. */
const CURATION = {
  reasoning: "One check is missing from the playbook.",
  operations: [
    {
      type: "ADD",
      section: "strategies_and_insights",
      content: "Check the refund window before refunding.",
      bulletIds: [],
      rationale: "From the reflections.",
      confidence: 0.5,
    },
  ],
};

/**
 * The model quotes the task it was sent: the reflector in its reasoning and key insight, the curator
 * in its reasoning (the delta's rationale); the lesson the curator adds quotes nothing.
 */
const modelAnswers: MockStepFunction = async (body, request) => {
  const quoted = /Refund the order of [^\s.]+/.exec(JSON.stringify(body.messages ?? []))?.[0];
  if (body.response_format?.json_schema?.name === "curation")
    return { content: quoted ? { ...CURATION, reasoning: `The reflections on "${quoted}" call for a check.` } : CURATION };
  const answer = (await aceAnswer(body, request)) as { content: Record<string, unknown> };
  if (!quoted) return answer;
  return {
    content: { ...answer.content, reasoning: `The agent was asked to "${quoted}".`, keyInsight: `Before "${quoted}", check the window.` },
  };
};

const queryOf =
  (db: Db): RunQuery =>
  (sql, params) =>
    db.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params);

describe.each(testEngines())("erasure and retention reach every copy on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support", as: ["admin", "ada"] });
  const openAi = mockOpenAiSuite();

  beforeEach(async () => {
    useRunProvider(suite.database.db, offlineProvider());
    await suite.caller.playbook.updateSettings({
      playbookId: suite.playbookId,
      settings: { curatorFrequency: 2, retention: { traces: 30, rejectedDeltas: 365, failedRuns: 30 } },
    });
  });

  function useModel() {
    openAi.mock.setDefault(modelAnswers);
    const config = loadEnv({ OPENAI_BASE_URL: openAi.mock.url, OPENAI_API_KEY: "test-key", ACE_LLM_MAX_RETRIES: "0" }).llm;
    const breaker = new CircuitBreaker({ failureThreshold: 5, cooldownMs: 60_000, store: breakerStore(suite.database.db) });
    useRunProvider(suite.database.db, openAiRunProvider(suite.database.db, config, { breaker, sdk: { sleep: async () => undefined } }));
  }

  async function reflectAndCurate(traces: object[]) {
    await suite.caller.traces.ingest({ traces: traces as never });
    await new JobWorker(suite.database.db, {
      handlers: runHandlers(),
      concurrency: 2,
      backoff: { baseMs: 10, maxMs: 40, jitter: 0 },
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    }).drain();
    const runs = await suite.database.db.run.findMany({ select: { id: true, role: true, status: true, traceIds: true, error: true } });
    expect(runs.filter((run) => run.status !== "succeeded")).toEqual([]);
    expect(runs.map((run) => run.role).sort()).toEqual(["curator", "reflector", "reflector"]);
    return runs;
  }

  const holding = () => columnsHolding(queryOf(suite.database.db), MARKER);

  /** The copies the marker made before anything was removed: the scan must be able to find them. */
  function expectCopies(found: string[], copies: string[]) {
    const columns = found.map((entry) => entry.replace(/ \(.*$/, ""));
    expect(columns).toEqual(expect.arrayContaining(["Trace.task", "Trace.reasoning", "Trace.output", "Trace.metadata", ...copies]));
    expect(columns.filter((column) => column.startsWith("AuditEntry."))).toEqual([]);
  }

  async function erase(): Promise<Record<string, number>> {
    const response = await DELETE(new Request(`http://localhost/api/v1/traces?playbook=support&unitId=${UNIT}`, { method: "DELETE" }));
    expect(response.status).toBe(200);
    return ((await response.json()) as { deleted: Record<string, number> }).deleted;
  }

  async function runsOf(role: "reflector" | "curator") {
    return suite.database.db.run.findMany({
      where: { role },
      select: { id: true, traceIds: true, prompt: true, output: true, redactedAt: true, redactedReason: true, costUsd: true },
    });
  }

  it("erasing a unit with the offline rules empties the runs that read its trace and rewrites the deltas that cite it", async () => {
    await reflectAndCurate([markedTrace(), otherTrace]);
    expectCopies(await holding(), ["Run.prompt", "Run.rawResponse", "Run.output", "Delta.evidence", "DeltaOperation.rationale"]);
    const curatorDelta = await suite.database.db.delta.findFirstOrThrow({
      where: { origin: "curator" },
      select: { id: true, status: true },
    });
    expect(curatorDelta.status).toBe("pending");

    expect(await erase()).toEqual({ traces: 1, exposures: 0, runsEmptied: 2, deltasRewritten: 2 });
    expect(await holding()).toEqual([]);

    // The rows stay: the other trace's reflection untouched, the two that read the marked trace emptied and marked.
    const reflector = await runsOf("reflector");
    const [curator] = await runsOf("curator");
    expect(reflector).toHaveLength(2);
    const [emptied, kept] = reflector[0]!.redactedAt ? [reflector[0]!, reflector[1]!] : [reflector[1]!, reflector[0]!];
    expect(emptied).toMatchObject({ prompt: [], output: null, redactedReason: "erasure" });
    expect(kept).toMatchObject({ redactedAt: null, redactedReason: null });
    expect(JSON.stringify(kept.prompt)).toContain("Track parcel 77");
    expect(curator).toMatchObject({ prompt: [], output: null, redactedReason: "erasure" });
    const detail = await suite.caller.runs.get({ runId: curator!.id });
    expect(detail).toMatchObject({ redactedReason: "erasure", traceCount: 2, prompt: [], rawResponse: [] });

    // The pending delta waits for review as before, with ids and counts instead of the trace's words.
    const delta = await suite.caller.delta.get({ deltaId: curatorDelta.id });
    expect(delta.status).toBe("pending");
    expect(delta.rationale).toBe(
      "Rationale removed with the erasure of 1 of the traces it cites (its evidence: 2 traces, 3 runs; 2 operations).",
    );
    expect(delta.evidence).toMatchObject({ notes: "" });
    expect(delta.evidence.traceIds).toHaveLength(2);
    expect(delta.operations.map((operation) => operation.rationale)).toEqual([
      "Removed with the erasure of a trace it came from.",
      "Removed with the erasure of a trace it came from.",
    ]);

    // The audit entry counts what went.
    const entry = await suite.database.db.auditEntry.findFirstOrThrow({ where: { action: "trace.delete" }, select: { summary: true } });
    expect(entry.summary).toMatchObject({ after: { traces: 1, runsEmptied: 2, deltasRewritten: 2 } });
  });

  it("erasing a unit whose trace a model reflected on removes the prompts, answers and notes that quote it", async () => {
    useModel();
    await reflectAndCurate([markedTrace(), otherTrace]);
    expect(openAi.mock.count("chat")).toBe(3);
    expectCopies(await holding(), ["Run.prompt", "Run.rawResponse", "Run.output", "Delta.evidence", "Delta.rationale"]);

    const deleted = await erase();
    expect(deleted).toMatchObject({ traces: 1, runsEmptied: 2 });
    expect(deleted.deltasRewritten).toBeGreaterThanOrEqual(2);
    expect(await holding()).toEqual([]);
    expect((await runsOf("curator"))[0]).toMatchObject({ prompt: [], redactedReason: "erasure" });
  });

  it("a run under way when its trace is erased writes none of it back, and the delta it proposes meanwhile is rewritten", async () => {
    useModel();
    let erasedMidway: Record<string, number> | null = null;
    // The model answers only after the erasure has committed: the run read the trace before it.
    openAi.mock.setDefault(async (body, request) => {
      erasedMidway ??= await erase();
      return modelAnswers(body, request);
    });
    await suite.caller.traces.ingest({ traces: [markedTrace()] });
    await new JobWorker(suite.database.db, {
      handlers: runHandlers(),
      backoff: { baseMs: 10, maxMs: 40, jitter: 0 },
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    }).drain();

    expect(erasedMidway).toMatchObject({ traces: 1, runsEmptied: 1, deltasRewritten: 0 });
    const [run] = await runsOf("reflector");
    expect(run).toMatchObject({ prompt: [], output: null, redactedReason: "erasure" });
    expect(await suite.database.db.run.findFirstOrThrow({ select: { status: true, error: true } })).toEqual({
      status: "succeeded",
      error: null,
    });
    expect(await suite.database.db.run.findFirst({ where: { role: "curator" } })).toBeNull();
    const tags = await suite.database.db.delta.findFirstOrThrow({
      where: { origin: "reflector" },
      select: { rationale: true, evidence: true },
    });
    expect(tags.rationale).toMatch(/^Rationale removed with the erasure of 1 of the traces it cites/);
    expect(await holding()).toEqual([]);
  });

  it("retention expiring the trace empties its copies the same way, then succeeded runs expire once their traces are gone", async () => {
    const now = Date.now();
    await reflectAndCurate([markedTrace(new Date(now - 40 * DAY_MS)), otherTrace]);
    const curatorDelta = await suite.database.db.delta.findFirstOrThrow({ where: { origin: "curator" }, select: { id: true } });
    // A pending delta keeps the traces it cites: rejected, it keeps nothing.
    await suite.caller.delta.reject({ deltaId: curatorDelta.id, reason: "Not now." });
    expectCopies(await holding(), ["Run.prompt", "Run.output", "Delta.evidence", "DeltaOperation.rationale"]);
    const costs = await suite.database.db.runHourly.findMany({ orderBy: { role: "asc" } });

    const first = await runRetention(suite.database.db, "retention", "manual");
    expect(first).toMatchObject({ traces: 1, succeededRuns: 0 });
    expect(await holding()).toEqual([]);
    expect(await suite.database.db.trace.count()).toBe(1);
    const runs = [...(await runsOf("reflector")), ...(await runsOf("curator"))];
    expect(runs.map((run) => run.redactedReason ?? "kept").sort()).toEqual(["kept", "retention", "retention"]);
    const rejected = await suite.caller.delta.get({ deltaId: curatorDelta.id });
    expect(rejected.rationale).toMatch(/^Rationale removed when 1 of the traces it cites expired under retention/);

    // Forty-five days on, the other trace has expired too: no run has a trace left, and they go.
    const later = await runRetention(suite.database.db, "retention", "manual", { now: new Date(now + 45 * DAY_MS) });
    expect(later).toMatchObject({ traces: 1, succeededRuns: 3 });
    expect(await suite.database.db.run.count()).toBe(0);
    // The cost charts read the hourly rollups, which retention leaves as they were.
    expect(await suite.database.db.runHourly.findMany({ orderBy: { role: "asc" } })).toEqual(costs);
    expect(await holding()).toEqual([]);
  });
});
