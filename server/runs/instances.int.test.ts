// What several app instances on one database share in the runs domain (issue 15, item 6), on
// embedded PGlite and PostgreSQL. On PostgreSQL a second connection pool stands for the other
// instance: what one does reaches the other only through the database.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { CircuitBreaker, type BreakerPermit } from "@/server/llm/circuit-breaker";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";
import { breakerStore, offlineProvider, useRunProvider } from "./providers";
import { claim } from "@/server/jobs/queue";
import { enqueueReflections, REFLECT_JOB, runHandlers, sweepOrphanTraces } from "./service";

describe.each(testEngines())("several instances on one %s database", (engine) => {
  let database: TestDatabase;
  let other: TestDatabase | undefined;
  let db: Db;
  let db2: Db;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    if (engine === "postgres") other = await openTestDatabase(engine);
    db = database.db;
    db2 = other?.db ?? db;
  });
  afterAll(async () => {
    await other?.close();
    await database?.close();
  });
  beforeEach(async () => database.reset());

  describe("queueing reflections", () => {
    it("gives each trace one reflector run and job when instances queue the same traces at once (ingest, sweep, Reflect now)", async () => {
      for (const client of new Set([db, db2])) useRunProvider(client, offlineProvider());
      const { playbookId } = await callerAs(db, "admin", "tester").playbook.import({
        content: SMALL_PLAYBOOK,
        format: "ace",
        target: { kind: "new", name: "queued" },
      });
      const traces = await db.trace.createManyAndReturn({
        data: Array.from({ length: 30 }, (_, index) => ({
          playbookId,
          task: `Task ${index}`,
          outcome: "success" as const,
          citedBulletIds: [],
        })),
        select: { id: true },
      });
      const ids = traces.map((trace) => trace.id);
      // Two instances' ingest triggers (overlapping halves), both instances' sweeps, and a person's "Reflect now".
      const queued = await Promise.all([
        enqueueReflections(db, playbookId, ids.slice(0, 20), "auto"),
        enqueueReflections(db2, playbookId, ids.slice(10), "auto"),
        sweepOrphanTraces(db),
        sweepOrphanTraces(db2),
        enqueueReflections(db2, playbookId, ids, "manual"),
      ]);
      const runs = await db.run.findMany({ where: { playbookId, role: "reflector" }, select: { id: true, traceIds: true } });
      expect(runs.flatMap((run) => run.traceIds).sort()).toEqual([...ids].sort());
      const returned = [queued[0], queued[1], queued[4]].flat();
      expect(new Set(returned).size).toBe(returned.length);
      expect(returned.every((runId) => runs.some((run) => run.id === runId))).toBe(true);
      expect(await db.job.count({ where: { playbookId, kind: "reflect" } })).toBe(ids.length);
    });
  });

  describe("a reflector run held up past its lease", () => {
    it("writes no tags once another worker holds its job, so the trace's tags are counted once", async () => {
      useRunProvider(db, offlineProvider());
      const caller = callerAs(db, "admin", "tester");
      const { playbookId } = await caller.playbook.import({
        content: SMALL_PLAYBOOK,
        format: "ace",
        target: { kind: "new", name: "held up" },
      });
      const [trace] = await db.trace.createManyAndReturn({
        data: [{ playbookId, task: "Refund", outcome: "success" as const, citedBulletIds: ["str-00003"] }],
        select: { id: true },
      });
      await enqueueReflections(db, playbookId, [trace!.id], "auto");
      const [job] = await claim(db, { workerId: "held-up", limit: 1, leaseMs: 60_000 });
      const reflect = runHandlers()[REFLECT_JOB]!;
      const helpful = async () => (await db.bullet.findFirstOrThrow({ where: { playbookId, externalId: "str-00003" } })).helpful;
      const context = (kept: boolean) => ({ db, workerId: "held-up", signal: new AbortController().signal, extendLease: async () => kept });

      expect(await reflect(job!, context(false))).toMatchObject({
        type: "retry",
        error: expect.stringMatching(/lease went to another worker/),
      });
      expect(await helpful()).toBe(0);
      expect(await db.delta.count({ where: { playbookId, origin: "reflector" } })).toBe(0);
      // The worker that holds it now reflects the trace, once.
      expect(await reflect(job!, context(true))).toEqual({ type: "done" });
      expect(await helpful()).toBe(1);
    });
  });

  describe("the LLM circuit breaker", () => {
    let now = 1_000_000;
    const breakers = (options: { failureThreshold: number; cooldownMs?: number }) =>
      [db, db2, db2].map((client) => new CircuitBreaker({ ...options, syncMs: 1_000, now: () => now, store: breakerStore(client) }));
    const fail = async (breaker: CircuitBreaker) => {
      expect((await breaker.acquire()).allowed).toBe(true);
      await breaker.recordFailure("HTTP 503 from the provider");
    };
    beforeEach(() => {
      now = 1_000_000;
    });

    it("counts failures of every instance exactly: concurrent failures add up and open it once for all", async () => {
      const [one, two, three] = breakers({ failureThreshold: 6, cooldownMs: 60_000 });
      await Promise.all([fail(one!), fail(two!), fail(three!), fail(one!), fail(two!)]);
      now += 1_000;
      expect(await one!.snapshot()).toMatchObject({ state: "closed", consecutiveFailures: 5 });
      await fail(three!);
      now += 1_000; // each instance's copy is at most syncMs old
      for (const breaker of [one!, two!, three!]) {
        expect(await breaker.acquire()).toMatchObject({ allowed: false, retryAfterMs: 59_000 });
        expect(await breaker.snapshot()).toMatchObject({ state: "open", consecutiveFailures: 6, lastError: "HTTP 503 from the provider" });
      }
    });

    it("lets one probe through across instances after the cooldown; its success closes it for all", async () => {
      const [one, two, three] = breakers({ failureThreshold: 1, cooldownMs: 5_000 });
      await fail(one!);
      now += 5_000;
      const permits: BreakerPermit[] = await Promise.all([one!.acquire(), two!.acquire(), three!.acquire()]);
      expect(permits.filter((permit) => permit.allowed)).toEqual([{ allowed: true, probe: true }]);
      const prober = [one!, two!, three!][permits.findIndex((permit) => permit.allowed)]!;
      await prober.recordSuccess();
      now += 1_000;
      for (const breaker of [one!, two!, three!]) expect(await breaker.acquire()).toEqual({ allowed: true, probe: false });
    });
  });
});
