// The job queue and its worker against embedded PGlite and PostgreSQL: the same guarantees on both.
import { performance } from "node:perf_hooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import {
  cancel,
  claim,
  complete,
  defer,
  enqueue,
  enqueueMany,
  extendLease,
  fail,
  getJob,
  listJobs,
  queueStats,
  wakeWorkers,
} from "./queue";
import { DEFAULT_LEASE_MS, HEARTBEATS_PER_LEASE, type JobHandler, type JobLogger, type JobOutcome, JobWorker } from "./worker";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LEASE = 60_000;
const FAST = { baseMs: 10, maxMs: 50 };

/** Collects what a worker logs instead of printing it. */
function quietLogger(): JobLogger & { lines: string[] } {
  const lines: string[] = [];
  const log = (message: string) => void lines.push(message);
  return { lines, info: log, warn: log, error: log };
}

/** A client whose every call hangs once frozen: what a killed process looks like from the database. */
function freezable(db: Db): { db: Db; freeze(): void } {
  let frozen = false;
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value === "function") {
          return (...args: unknown[]) =>
            frozen ? new Promise(() => undefined) : (value as (...a: unknown[]) => unknown).apply(object, args);
        }
        return value && typeof value === "object" && typeof property === "string" && !property.startsWith("_") ? wrap(value) : value;
      },
    });
  return { db: wrap(db), freeze: () => void (frozen = true) };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 3_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(5);
  }
}

describe.each(testEngines())("job queue on %s", (engine) => {
  let database: TestDatabase;
  let db: Db;
  /** A second connection pool on PostgreSQL (another process, in effect); the same client on PGlite. */
  let other: TestDatabase | undefined;
  let db2: Db;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    db = database.db;
    if (engine === "postgres") other = await openTestDatabase(engine);
    db2 = other?.db ?? db;
  });
  afterAll(async () => {
    await other?.close();
    await database?.close();
  });
  beforeEach(async () => database.reset());

  const job = async (id: string) => {
    const row = await getJob(db, id);
    if (!row) throw new Error(`no job ${id}`);
    return row;
  };

  describe("queue", () => {
    it("hands out due jobs oldest first and completes them for the worker holding the lease", async () => {
      const first = await enqueue(db, { kind: "reflect", payload: { traceId: "t1" } });
      const second = await enqueue(db, { kind: "reflect", payload: { traceId: "t2" } });
      expect(first.created && second.created).toBe(true);

      const [claimed, ...rest] = await claim(db, { workerId: "w1", limit: 1, leaseMs: LEASE });
      expect(rest).toEqual([]);
      expect(claimed).toMatchObject({
        id: first.id,
        kind: "reflect",
        status: "running",
        attempts: 1,
        lockedBy: "w1",
        payload: { traceId: "t1" },
      });
      expect(claimed!.lockedUntil.getTime()).toBeGreaterThan(Date.now() + LEASE - 5_000);

      expect(await complete(db, first.id, "w2")).toBe(false);
      expect(await complete(db, first.id, "w1")).toBe(true);
      expect(await complete(db, first.id, "w1")).toBe(false);
      const done = await job(first.id);
      expect(done).toMatchObject({ status: "succeeded", attempts: 1, lockedUntil: null });
      expect(done.finishedAt).toBeInstanceOf(Date);

      expect((await claim(db, { workerId: "w1", limit: 5, leaseMs: LEASE })).map((j) => j.id)).toEqual([second.id]);
      expect(await claim(db, { workerId: "w1", limit: 5, leaseMs: LEASE })).toEqual([]);
    });

    it("waits for runAt and claims only the kinds asked for", async () => {
      await enqueue(db, { kind: "curate", runAt: new Date(Date.now() + 60_000) });
      const reflect = await enqueue(db, { kind: "reflect" });
      const curate = await enqueue(db, { kind: "curate" });
      expect((await claim(db, { workerId: "w", kinds: ["curate"], limit: 5, leaseMs: LEASE })).map((j) => j.id)).toEqual([curate.id]);
      expect(await claim(db, { workerId: "w", kinds: [], limit: 5, leaseMs: LEASE })).toEqual([]);
      expect((await claim(db, { workerId: "w", limit: 5, leaseMs: LEASE })).map((j) => j.id)).toEqual([reflect.id]);
    });

    it("keeps one queued or running job per singleton key", async () => {
      const a = await enqueue(db, { kind: "curate", singletonKey: "curate:p1" });
      const b = await enqueue(db, { kind: "curate", singletonKey: "curate:p1" });
      expect(b).toEqual({ id: a.id, created: false });
      await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE });
      expect(await enqueue(db, { kind: "curate", singletonKey: "curate:p1" })).toEqual({ id: a.id, created: false });
      expect((await enqueue(db, { kind: "curate", singletonKey: "curate:p2" })).created).toBe(true);

      await complete(db, a.id, "w");
      const c = await enqueue(db, { kind: "curate", singletonKey: "curate:p1" });
      expect(c.created).toBe(true);
      expect(c.id).not.toBe(a.id);
    });

    it("makes one job of ten concurrent enqueues with the same key", async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => enqueue(i % 2 ? db2 : db, { kind: "curate", singletonKey: "curate:same", payload: { i } })),
      );
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(await db.job.count({ where: { singletonKey: "curate:same" } })).toBe(1);
    });

    it("joins the caller's transaction and rolls back with it", async () => {
      await expect(
        db.$transaction(async (tx) => {
          await enqueue(tx, { kind: "curate", singletonKey: "curate:tx" });
          throw new Error("rollback");
        }),
      ).rejects.toThrow("rollback");
      expect(await db.job.count()).toBe(0);
      const inTx = await db.$transaction((tx) => enqueue(tx, { kind: "curate", singletonKey: "curate:tx" }));
      expect(inTx.created).toBe(true);
      expect(await db.job.count()).toBe(1);
    });

    it("never gives one job to two concurrent claims", async () => {
      const ids = [];
      for (let i = 0; i < 30; i++) ids.push((await enqueue(db, { kind: "reflect", payload: { i } })).id);
      const batches = await Promise.all(
        ["a", "b", "c", "d", "e", "f"].map((workerId, i) => claim(i % 2 ? db2 : db, { workerId, limit: 4, leaseMs: LEASE })),
      );
      const claimed = batches.flat().map((j) => j.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(await db.job.count({ where: { status: "running" } })).toBe(claimed.length);

      const rest = await claim(db, { workerId: "z", limit: 100, leaseMs: LEASE });
      expect([...claimed, ...rest.map((j) => j.id)].sort()).toEqual([...ids].sort());
      const rows = await db.job.findMany({ select: { attempts: true } });
      expect(rows.every((r) => r.attempts === 1)).toBe(true);
    });

    it("retries with exponential backoff, then fails after maxAttempts keeping the last error", async () => {
      const { id } = await enqueue(db, { kind: "reflect", maxAttempts: 3 });

      const [first] = await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE });
      expect(await fail(db, { ...first!, lockedBy: "other" }, "nope", { retryable: true })).toBe(false);
      const retried = await fail(db, first!, "timeout 1", { retryable: true, backoff: { baseMs: 1_000 } });
      expect(retried).toMatchObject({ status: "queued" });
      let row = await job(id);
      expect(row).toMatchObject({ status: "queued", attempts: 1, lastError: "timeout 1", lockedBy: null, lockedUntil: null });
      const wait = row.runAt.getTime() - row.updatedAt.getTime();
      expect(wait).toBeGreaterThanOrEqual(800 - 1);
      expect(wait).toBeLessThanOrEqual(1_200 + 1);
      expect(await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE })).toEqual([]);

      // The second wait doubles.
      await db.job.update({ where: { id }, data: { runAt: new Date(Date.now() - 1_000) } });
      const [second] = await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE });
      expect(second?.attempts).toBe(2);
      await fail(db, second!, "timeout 2", { retryable: true, backoff: { baseMs: 1_000 } });
      row = await job(id);
      expect(row.runAt.getTime() - row.updatedAt.getTime()).toBeGreaterThanOrEqual(1_600 - 1);
      expect(row.runAt.getTime() - row.updatedAt.getTime()).toBeLessThanOrEqual(2_400 + 1);

      // A provider's Retry-After wins over the backoff.
      await db.job.update({ where: { id }, data: { runAt: new Date(Date.now() - 1_000) } });
      const [third] = await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE });
      expect(third?.attempts).toBe(3);
      expect(await fail(db, third!, "rate limited", { retryable: true, retryAfterMs: 30_000 })).toEqual({ status: "failed" });
      row = await job(id);
      expect(row).toMatchObject({ status: "failed", attempts: 3, lastError: "rate limited", lockedUntil: null });
      expect(row.finishedAt).toBeInstanceOf(Date);
    });

    it("waits retryAfterMs when given, and fails at once when not retryable", async () => {
      const a = await enqueue(db, { kind: "reflect" });
      const [claimedA] = await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE });
      await fail(db, claimedA!, "429", { retryable: true, retryAfterMs: 30_000 });
      const row = await job(a.id);
      expect(row.runAt.getTime() - row.updatedAt.getTime()).toBe(30_000);

      const b = await enqueue(db, { kind: "reflect" });
      const [claimedB] = await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE });
      expect(claimedB?.id).toBe(b.id);
      expect(await fail(db, claimedB!, "malformed input", { retryable: false })).toEqual({ status: "failed" });
      expect(await job(b.id)).toMatchObject({ status: "failed", attempts: 1, lastError: "malformed input" });
    });

    it("defers a job to a later time without using up an attempt", async () => {
      const { id } = await enqueue(db, { kind: "reflect", maxAttempts: 1 });
      const [claimed] = await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE });
      const until = Date.now() + 60_000;
      expect(await defer(db, claimed!, until, "circuit breaker open")).toBe(true);
      expect(await defer(db, claimed!, until, "twice")).toBe(false);
      const row = await job(id);
      expect(row).toMatchObject({ status: "queued", attempts: 0, lastError: "circuit breaker open", lockedBy: null });
      expect(row.runAt.getTime()).toBe(until);
      expect(await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE })).toEqual([]);

      await db.job.update({ where: { id }, data: { runAt: new Date(Date.now() - 1) } });
      const [again] = await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE });
      expect(again).toMatchObject({ id, attempts: 1 });
    });

    it("takes a job again when its worker died (lease expired), and refuses the dead worker's outcome", async () => {
      const { id } = await enqueue(db, { kind: "reflect" });
      const [dead] = await claim(db, { workerId: "dead", limit: 1, leaseMs: LEASE });
      expect(await claim(db2, { workerId: "alive", limit: 1, leaseMs: LEASE })).toEqual([]);

      expect(await extendLease(db, id, "dead", 1)).toBe(true); // the worker stops renewing…
      await sleep(15);
      const [taken] = await claim(db2, { workerId: "alive", limit: 1, leaseMs: LEASE });
      expect(taken).toMatchObject({ id, attempts: 2, lockedBy: "alive" });

      expect(await complete(db, id, "dead")).toBe(false);
      expect(await fail(db, dead!, "late", { retryable: true })).toBe(false);
      expect(await extendLease(db, id, "dead", LEASE)).toBe(false);
      expect(await complete(db2, id, "alive")).toBe(true);
    });

    it("fails a job whose worker died on its last attempt instead of taking it forever", async () => {
      const { id } = await enqueue(db, { kind: "reflect", maxAttempts: 1 });
      await claim(db, { workerId: "dead", limit: 1, leaseMs: 1 });
      await sleep(15);
      expect(await claim(db, { workerId: "alive", limit: 1, leaseMs: LEASE })).toEqual([]);
      const row = await job(id);
      expect(row).toMatchObject({ status: "failed", attempts: 1 });
      expect(row.lastError).toMatch(/lease expired/);
    });

    it("skips jobs of paused playbooks until they are resumed, and excluded playbooks", async () => {
      const paused = await db.playbook.create({ data: { name: "paused", settings: { runsPaused: true, other: 1 } }, select: { id: true } });
      const active = await db.playbook.create({ data: { name: "active", settings: { runsPaused: false } }, select: { id: true } });
      const ofPaused = await enqueue(db, { kind: "reflect", playbookId: paused.id });
      const ofActive = await enqueue(db, { kind: "reflect", playbookId: active.id });
      const loose = await enqueue(db, { kind: "reflect" });

      const excluded = await claim(db, { workerId: "w", limit: 10, leaseMs: LEASE, excludePlaybookIds: [active.id] });
      expect(excluded.map((j) => j.id)).toEqual([loose.id]);
      expect((await claim(db, { workerId: "w", limit: 10, leaseMs: LEASE })).map((j) => j.id)).toEqual([ofActive.id]);

      await db.playbook.update({ where: { id: paused.id }, data: { settings: { other: 1 } } });
      expect((await claim(db, { workerId: "w", limit: 10, leaseMs: LEASE })).map((j) => j.id)).toEqual([ofPaused.id]);
    });

    it("cancels queued and running jobs but not finished ones", async () => {
      const queued = await enqueue(db, { kind: "reflect", singletonKey: "k" });
      expect(await cancel(db, queued.id)).toBe(true);
      expect(await cancel(db, queued.id)).toBe(false);
      expect((await job(queued.id)).status).toBe("cancelled");
      expect((await enqueue(db, { kind: "reflect", singletonKey: "k" })).created).toBe(true);

      const [running] = await claim(db, { workerId: "w", limit: 1, leaseMs: LEASE });
      expect(await cancel(db, running!.id)).toBe(true);
      expect(await extendLease(db, running!.id, "w", LEASE)).toBe(false);
      expect(await complete(db, running!.id, "w")).toBe(false);
      expect((await job(running!.id)).status).toBe("cancelled");
    });

    it("refuses a maxAttempts that is not a positive whole number, and enqueues nothing", async () => {
      for (const maxAttempts of [0, -1, 2.5]) {
        await expect(enqueue(db, { kind: "reflect", maxAttempts })).rejects.toThrow(
          `maxAttempts must be a positive integer, got ${maxAttempts}`,
        );
        await expect(enqueueMany(db, [{ kind: "reflect" }, { kind: "reflect", maxAttempts }])).rejects.toThrow(RangeError);
      }
      expect(await listJobs(db)).toEqual([]);
    });

    it("counts jobs by status and kind and lists them for the UI", async () => {
      const playbook = await db.playbook.create({ data: { name: "p" }, select: { id: true } });
      const old = await enqueue(db, { kind: "reflect", playbookId: playbook.id });
      await db.job.update({ where: { id: old.id }, data: { createdAt: new Date(Date.now() - 5_000) } });
      await enqueue(db, { kind: "curate", playbookId: playbook.id, runAt: new Date(Date.now() + 60_000) });
      const other = await enqueue(db, { kind: "reflect" });
      const [running] = await claim(db, { workerId: "w", kinds: ["reflect"], limit: 1, leaseMs: LEASE });
      expect(running?.id).toBe(old.id);

      const all = await queueStats(db);
      expect(all).toMatchObject({
        total: 3,
        byStatus: { queued: 2, running: 1, succeeded: 0, failed: 0, cancelled: 0 },
        byKind: { reflect: { queued: 1, running: 1 }, curate: { queued: 1 } },
      });
      expect(all.oldestQueuedAgeMs).toBeGreaterThanOrEqual(0);
      expect(all.oldestQueuedAgeMs).toBeLessThan(5_000);
      expect(all.nextRunAt?.getTime()).toBe((await job(other.id)).runAt.getTime());

      const one = await queueStats(db, { playbookId: playbook.id });
      expect(one).toMatchObject({ total: 2, byStatus: { queued: 1, running: 1 } });
      expect(one.nextRunAt!.getTime()).toBeGreaterThan(Date.now() + 50_000);
      expect(await queueStats(db, { playbookId: "00000000-0000-0000-0000-000000000000" })).toMatchObject({
        total: 0,
        oldestQueuedAgeMs: null,
        nextRunAt: null,
      });

      expect((await listJobs(db, { playbookId: playbook.id })).map((j) => j.kind).sort()).toEqual(["curate", "reflect"]);
      expect((await listJobs(db, { status: "running" })).map((j) => j.id)).toEqual([old.id]);
      expect(await listJobs(db, { status: ["queued", "running"], limit: 2 })).toHaveLength(2);
    });
  });

  describe("worker", () => {
    const workers: JobWorker[] = [];
    const worker = (
      handlers: Record<string, JobHandler>,
      options: {
        concurrency?: number;
        leaseMs?: number;
        heartbeatMs?: number;
        pollIntervalMs?: number;
        yieldTo?: { busy(): boolean; perSecond: number };
      } = {},
    ) => {
      const w = new JobWorker(db, { handlers, backoff: FAST, logger: quietLogger(), ...options });
      workers.push(w);
      return w;
    };
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.stop({ timeoutMs: 1_000 })));
    });

    it("never runs more handlers at once than its concurrency", async () => {
      let inFlight = 0;
      let most = 0;
      const w = worker(
        {
          reflect: async () => {
            most = Math.max(most, ++inFlight);
            await sleep(25);
            inFlight--;
            return { type: "done" };
          },
        },
        { concurrency: 3 },
      );
      for (let i = 0; i < 10; i++) await enqueue(db, { kind: "reflect" });
      await w.drain();
      expect(most).toBe(3);
      expect(await db.job.count({ where: { status: "succeeded" } })).toBe(10);
    });

    it("starts jobs at its rate while the process serves requests, and at full speed once it stops", async () => {
      let busy = true;
      let started = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const w = worker(
        {
          reflect: async () => {
            started++;
            await released;
            return { type: "done" };
          },
        },
        { concurrency: 10, pollIntervalMs: 20, yieldTo: { busy: () => busy, perSecond: 2 } },
      );
      for (let i = 0; i < 10; i++) await enqueue(db, { kind: "reflect" });
      const since = performance.now();
      w.start();
      await until(() => started >= 2);
      // Two tokens to begin with, then two a second: never more, however slow this machine is.
      const allowed = (elapsedMs: number) => 2 + Math.floor((elapsedMs / 1000) * 2);
      await sleep(100); // a window to look in: without the gate all ten would have started by now
      expect(started).toBeLessThanOrEqual(allowed(performance.now() - since));
      expect(started).toBeLessThan(10);
      busy = false;
      await until(() => started === 10);
      release();
      await until(async () => (await db.job.count({ where: { status: "succeeded" } })) === 10);
    });

    it("retries a throwing handler with backoff until it succeeds", async () => {
      let calls = 0;
      const w = worker({
        reflect: async () => {
          if (++calls < 3) throw new Error(`provider down (${calls})`);
          return { type: "done" };
        },
      });
      const { id } = await enqueue(db, { kind: "reflect" });
      await w.drain();
      expect(calls).toBe(3);
      expect(await job(id)).toMatchObject({ status: "succeeded", attempts: 3, lastError: "provider down (2)" });
    });

    it("records retry, fail and defer outcomes, and fails after the last retry", async () => {
      const outcomes: Record<string, JobOutcome> = {
        retry: { type: "retry", error: "still timing out", retryAfterMs: 1 },
        fail: { type: "fail", error: "bad input" },
        defer: { type: "defer", untilMs: Date.now() + 60_000, reason: "budget spent" },
      };
      const handle: JobHandler = async (job) => outcomes[job.kind]!;
      const w = worker({ retry: handle, fail: handle, defer: handle });
      const retry = await enqueue(db, { kind: "retry", maxAttempts: 3 });
      const failing = await enqueue(db, { kind: "fail" });
      const deferred = await enqueue(db, { kind: "defer" });
      await w.drain();
      expect(await job(retry.id)).toMatchObject({ status: "failed", attempts: 3, lastError: "still timing out" });
      expect(await job(failing.id)).toMatchObject({ status: "failed", attempts: 1, lastError: "bad input" });
      expect(await job(deferred.id)).toMatchObject({ status: "queued", attempts: 0, lastError: "budget spent" });
    });

    /** A started worker that records the jobs it runs: its first poll found nothing; the next is a minute away. */
    async function idleWorker() {
      const ran: string[] = [];
      const reflect: JobHandler = async (job) => {
        ran.push(job.id);
        return { type: "done" };
      };
      const w = worker({ reflect }, { pollIntervalMs: 60_000 });
      w.start();
      await until(() => w.completedPolls === 1);
      return { w, ran };
    }

    it("runs a job enqueued in this process at once, without waiting for the poll", async () => {
      const { w, ran } = await idleWorker();
      const { id } = await enqueue(db, { kind: "reflect" });
      await until(() => ran.includes(id));
      await until(async () => (await job(id)).status === "succeeded");
      expect(w.completedPolls).toBeGreaterThan(1);
    });

    it("wakes no worker for jobs enqueued inside a transaction until the caller commits and wakes them", async () => {
      const { w, ran } = await idleWorker();
      const ids = await db.$transaction(async (tx) => {
        const one = await enqueue(tx, { kind: "reflect" });
        await enqueueMany(tx, [{ kind: "reflect" }]);
        return [one.id];
      });
      // Woken inside the transaction, a worker on another connection would have polled, found
      // nothing yet, and waited a minute for the next poll.
      await sleep(50);
      expect(w.completedPolls).toBe(1);
      wakeWorkers();
      await until(() => ran.length === 2 && ran.includes(ids[0]!));
    });

    it("waits for running handlers when stopped", async () => {
      let finished = false;
      let started = false;
      const w = worker({
        reflect: async () => {
          started = true;
          await sleep(150);
          finished = true;
          return { type: "done" };
        },
      });
      const { id } = await enqueue(db, { kind: "reflect" });
      w.start();
      await until(() => started);
      expect(await w.stop()).toBe(true);
      expect(finished).toBe(true);
      expect(w.inFlight).toBe(0);
      expect((await job(id)).status).toBe("succeeded");
    });

    it("gives up waiting after the stop timeout and aborts the handler; the job runs again later", async () => {
      let signal: AbortSignal | undefined;
      const w = worker({
        reflect: async (_job, ctx) => {
          signal = ctx.signal;
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
          return { type: "retry", error: "aborted" };
        },
      });
      const { id } = await enqueue(db, { kind: "reflect" });
      w.start();
      await until(() => signal !== undefined);
      expect(await w.stop({ timeoutMs: 30 })).toBe(false);
      expect(signal?.aborted).toBe(true);
      await until(async () => (await job(id)).status === "queued");
    });

    it("keeps the lease of a long handler alive so no other worker takes the job", async () => {
      let takenByOther = false;
      const w = worker(
        {
          reflect: async () => {
            for (let i = 0; i < 6; i++) {
              await sleep(50);
              if ((await claim(db, { workerId: "other", limit: 1, leaseMs: LEASE })).length > 0) takenByOther = true;
            }
            return { type: "done" };
          },
        },
        { leaseMs: 150 },
      );
      const { id } = await enqueue(db, { kind: "reflect" });
      await w.drain();
      expect(takenByOther).toBe(false);
      expect(await job(id)).toMatchObject({ status: "succeeded", attempts: 1 });
    });

    it("takes back the job of a worker that stopped heartbeating (killed) once its lease runs out, and runs it once", async () => {
      // The killed worker's process is gone: from the database's side its calls simply never come.
      // A client whose every call hangs after freeze() is that: the handler is stuck, no heartbeat arrives.
      const frozen = freezable(db);
      let startedOnKilled = false;
      const completions: string[] = [];
      const killed = new JobWorker(frozen.db, {
        workerId: "killed",
        handlers: {
          reflect: async (_job, ctx) => {
            startedOnKilled = true;
            await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
            completions.push("killed");
            return { type: "done" };
          },
        },
        leaseMs: 400,
        pollIntervalMs: 60_000,
        logger: quietLogger(),
      });
      const { id } = await enqueue(db, { kind: "reflect" });
      killed.start();
      await until(() => startedOnKilled);
      frozen.freeze();
      const killedAt = Date.now();

      const survivor = worker(
        {
          reflect: async () => {
            completions.push("survivor");
            return { type: "done" };
          },
        },
        { pollIntervalMs: 20 },
      );
      survivor.start();
      await until(async () => (await job(id)).status === "succeeded", 10_000);
      const takenAfterMs = Date.now() - killedAt;
      expect(await job(id)).toMatchObject({ status: "succeeded", attempts: 2, lockedBy: survivor.workerId });
      expect(completions).toEqual(["survivor"]);
      // Not before the killed worker's last lease ran out (it may have renewed once just before the kill).
      expect(takenAfterMs).toBeGreaterThanOrEqual(400 - 400 / 4 - 50);
      expect(await killed.stop({ timeoutMs: 10 })).toBe(false); // its handler never returns: the process is "gone"
    });

    it("never runs a job twice in one worker when its lease ran out while its handler was held up", async () => {
      let starts = 0;
      const w = worker(
        {
          reflect: async () => {
            starts += 1;
            await sleep(600); // no heartbeat in time: the lease (150 ms) runs out and the next poll claims the job again
            return { type: "done" };
          },
        },
        { leaseMs: 150, heartbeatMs: 60_000, pollIntervalMs: 20 },
      );
      const { id } = await enqueue(db, { kind: "reflect" });
      w.start();
      await until(async () => (await job(id)).attempts >= 2, 5_000);
      await until(async () => (await job(id)).status === "succeeded", 5_000);
      expect(starts).toBe(1);
      expect(await job(id)).toMatchObject({ status: "succeeded", lockedBy: w.workerId });
    });

    it("renews a running job's lease by a heartbeat well inside the lease: 20 s by default, so a killed server's jobs return within 30 s", () => {
      expect(DEFAULT_LEASE_MS + 1_000).toBeLessThanOrEqual(30_000); // the lease, plus one poll of the survivor
      expect(DEFAULT_LEASE_MS / HEARTBEATS_PER_LEASE).toBe(5_000);
    });

    it("aborts a handler whose job was cancelled and does not record its outcome", async () => {
      let aborted = false;
      const w = worker(
        {
          reflect: async (job, ctx) => {
            await cancel(db, job.id);
            await until(() => ctx.signal.aborted, 2_000);
            aborted = true;
            return { type: "done" };
          },
        },
        { leaseMs: 60 },
      );
      const { id } = await enqueue(db, { kind: "reflect" });
      await w.drain();
      expect(aborted).toBe(true);
      expect((await job(id)).status).toBe("cancelled");
    });

    it("logs a failing poll and keeps polling instead of crashing", async () => {
      const logger = quietLogger();
      let polls = 0;
      const w = new JobWorker(
        async () => {
          if (++polls < 3) throw new Error("database unreachable");
          return db;
        },
        { handlers: { reflect: async () => ({ type: "done" }) }, pollIntervalMs: 10, logger },
      );
      workers.push(w);
      const { id } = await enqueue(db, { kind: "reflect" });
      w.start();
      await until(async () => (await job(id)).status === "succeeded");
      expect(logger.lines.filter((line) => line === "could not claim jobs")).toHaveLength(2);
    });

    it("leaves jobs of kinds it has no handler for", async () => {
      const w = worker({ reflect: async () => ({ type: "done" }) });
      const other = await enqueue(db, { kind: "curate" });
      await enqueue(db, { kind: "reflect" });
      await w.drain();
      expect((await job(other.id)).status).toBe("queued");
    });
  });
});
