// The "done when", on embedded PGlite and PostgreSQL: an agent posts 100 traces for the demo
// playbook over HTTP and, with no step but approval, the counters move and deltas wait in the queue,
// with no LLM (offline) and through the OpenAI SDK (the mock server). Also: queued work survives a
// restart, and traces stored without a run are found and queued. The route's getDb() serves the test database.
import { beforeEach, describe, expect, it } from "vitest";
import { JobWorker } from "@/server/jobs/worker";
import { loadEnv } from "@/server/config/env";
import { seedDemoPlaybooks } from "@/server/playbooks/seed";
import { testEngines } from "@/server/testing/db";
import { databaseSuite, mockOpenAiSuite } from "@/server/testing/playbook-suite";
import { offlineProvider, openAiRunProvider, useRunProvider } from "./providers";
import { failAbandonedRuns, runHandlers, sweepOrphanTraces } from "./service";

const { POST } = await import("@/app/api/v1/traces/route");

const DEMO = "Customer service (demo)";
const ERRORS = ["HTTP 429 Too Many Requests from the orders API", "KeyError: 'customer_id'", "Timeout after 30 s"];

/** What an agent sends: 100 tasks, two cited bullets each, 30 % failures with a tool error. */
function agentTraces(ids: string[], count = 100) {
  return Array.from({ length: count }, (_, index) => {
    const cited = [ids[index % ids.length]!, ids[(index * 7 + 3) % ids.length]!];
    const failed = index % 10 < 3;
    return {
      playbook: DEMO,
      externalId: `agent-${index}`,
      task: `Customer request #${index}`,
      reasoning: `Following [${cited[0]}] and [${cited[1]}].`,
      output: failed ? "I could not finish." : "Done.",
      outcome: failed ? "failure" : "success",
      feedback: failed ? { errors: [ERRORS[index % ERRORS.length]!] } : {},
    };
  });
}

async function post(body: unknown): Promise<Response> {
  return POST(
    new Request("http://studio.test/api/v1/traces", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

describe.each(testEngines())("the agent loop on %s", (engine) => {
  const suite = databaseSuite(engine, { as: ["admin", "alice"], serve: true });
  const openAi = mockOpenAiSuite({ mode: "ace" });

  beforeEach(() => {
    useRunProvider(suite.database.db, offlineProvider());
  });

  const worker = () =>
    new JobWorker(suite.database.db, {
      handlers: runHandlers(),
      concurrency: 2,
      backoff: { baseMs: 10, maxMs: 40, jitter: 0 },
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });

  async function demo() {
    await seedDemoPlaybooks(suite.database.db);
    const playbook = (await suite.caller.playbook.list()).find((item) => item.name === DEMO)!;
    const bullets = (await suite.caller.playbook.bullets({ playbookId: playbook.id, limit: 500 })).items;
    return { playbookId: playbook.id, bullets };
  }

  const observations = (bullets: { helpful: number; harmful: number; neutral: number }[]) =>
    bullets.reduce((sum, bullet) => sum + bullet.helpful + bullet.harmful + bullet.neutral, 0);

  async function loop(expectProvider: string) {
    const { playbookId, bullets } = await demo();
    const traces = agentTraces(bullets.map((bullet) => bullet.externalId));
    for (let start = 0; start < traces.length; start += 25) {
      const response = await post({ traces: traces.slice(start, start + 25) });
      expect(response.status).toBe(201);
    }
    await worker().drain({ timeoutMs: 120_000 });

    const status = await suite.caller.runs.status({ playbookId });
    expect(status).toMatchObject({ unreflected: 0, queue: { queued: 0, running: 0, failed: 0 } });
    // Curation follows every 10 reflections; reflections that finish while a curator run waits join it.
    expect(status.uncurated).toBeLessThan(10);
    const after = (await suite.caller.playbook.bullets({ playbookId, limit: 500 })).items;
    // Every trace cites two bullets, each tagged once (the offline rules and the mock tag every cited id).
    expect(observations(after) - observations(bullets)).toBe(200);

    const runs = await suite.caller.runs.list({ playbookId, limit: 200 });
    const reflector = runs.items.filter((run) => run.role === "reflector");
    const curator = runs.items.filter((run) => run.role === "curator");
    expect(reflector).toHaveLength(100);
    expect(curator.length).toBeGreaterThan(0);
    expect(curator.reduce((sum, run) => sum + run.traceCount, 0) + status.uncurated).toBe(100);
    expect(runs.items.every((run) => run.status === "succeeded" && run.provider === expectProvider)).toBe(true);
    const pending = await suite.caller.delta.list({ playbookId, origin: "curator", status: "pending", limit: 50 });
    expect(pending.items.length).toBeGreaterThan(0);

    // The one manual step: approving a proposal adds its bullets.
    const approved = await suite.caller.delta.approve({ deltaId: pending.items[0]!.id });
    expect(approved.addedIds.length).toBeGreaterThan(0);
    return playbookId;
  }

  it("with no API key: 100 traces over HTTP lead to updated counters and proposed deltas", async () => {
    await loop("offline");
  });

  it("with the mock server: the same happens through the OpenAI SDK", async () => {
    useRunProvider(
      suite.database.db,
      openAiRunProvider(suite.database.db, loadEnv({ OPENAI_BASE_URL: openAi.mock.url, OPENAI_API_KEY: "test" }).llm),
    );
    const playbookId = await loop("openai");
    expect(openAi.mock.count("chat")).toBe((await suite.caller.runs.list({ playbookId, limit: 1 })).total);
    const [curator] = (await suite.caller.runs.list({ playbookId, role: "curator", limit: 1 })).items;
    expect(curator!.inputTokens).toBeGreaterThan(0);
  });

  it("queued runs survive a restart: a new worker finishes what the old one never started", async () => {
    const { playbookId } = await demo();
    const ids = (await suite.caller.playbook.bullets({ playbookId, limit: 5 })).items.map((bullet) => bullet.externalId);
    expect((await post({ traces: agentTraces(ids, 5) })).status).toBe(201);
    expect((await suite.caller.runs.status({ playbookId })).queue).toMatchObject({
      queued: 5,
      reflector: { queued: 5, running: 0, failed: 0 },
      curator: { queued: 0, running: 0, failed: 0 },
    });
    // The server stops here; its successor's worker starts from the table.
    await worker().drain();
    expect((await suite.caller.runs.status({ playbookId })).unreflected).toBe(0);
  });

  it("a run whose job is gone is failed with the reason at start-up, and can be retried", async () => {
    const { playbookId } = await demo();
    const ids = (await suite.caller.playbook.bullets({ playbookId, limit: 2 })).items.map((bullet) => bullet.externalId);
    await post({ traces: agentTraces(ids, 2) });
    // The worker died on the job's last attempt: the queue failed the job, the run still says running.
    await suite.database.db.job.updateMany({ data: { status: "failed" } });
    await suite.database.db.run.updateMany({ data: { status: "running" } });
    expect(await failAbandonedRuns(suite.database.db)).toBe(2);
    const [run] = (await suite.caller.runs.list({ playbookId })).items;
    expect(run).toMatchObject({ status: "failed" });
    expect(run!.error).toMatch(/server stopped/);
    await suite.caller.runs.retry({ runId: run!.id });
    await worker().drain();
    expect((await suite.caller.runs.get({ runId: run!.id })).status).toBe("succeeded");
  });

  it("traces stored without a run (the process stopped in between) are queued by the start-up sweep", async () => {
    const { playbookId } = await demo();
    await suite.database.db.trace.createMany({
      data: [1, 2, 3].map((n) => ({ playbookId, task: `Orphan ${n}`, outcome: "success" as const, citedBulletIds: [] })),
    });
    expect(await sweepOrphanTraces(suite.database.db)).toBe(3);
    expect(await sweepOrphanTraces(suite.database.db)).toBe(0);
    await worker().drain();
    expect((await suite.caller.runs.status({ playbookId })).unreflected).toBe(0);
  });
});
