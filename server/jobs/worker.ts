// Runs queued jobs in this process: claims due jobs of the kinds it has handlers for, never more
// than `concurrency` at once, keeps long jobs' leases alive, and records each handler's outcome.
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Db } from "@/server/db/client";
import type { BackoffOptions } from "./backoff";
import * as queue from "./queue";
import type { ClaimedJob } from "./queue";

export type JobOutcome =
  | { type: "done" }
  /** Try again later (the backoff, or retryAfterMs), unless the attempts are used up. */
  | { type: "retry"; error: string; retryAfterMs?: number }
  /** Fail for good: another attempt would fail the same way. */
  | { type: "fail"; error: string }
  /** Not run now (breaker open, budget spent): back to the queue until `untilMs` (epoch ms), the attempt given back. */
  | { type: "defer"; untilMs: number; reason: string };

export type JobContext = {
  db: Db;
  workerId: string;
  /** Aborted when the lease is lost (job cancelled or taken over) or the worker stops past its timeout. */
  signal: AbortSignal;
  /** Extends the lease now; the worker's heartbeat also does this on its own every heartbeatMs. */
  extendLease(): Promise<boolean>;
};

export type JobHandler = (job: ClaimedJob, ctx: JobContext) => Promise<JobOutcome>;

export type JobLogger = {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
};

export type JobWorkerOptions = {
  workerId?: string;
  handlers: Record<string, JobHandler>;
  /** Handlers running at once (default 2). */
  concurrency?: number;
  /** How often to look for due jobs when nothing wakes the worker (default 1 s). */
  pollIntervalMs?: number;
  /**
   * How long a claimed job stays ours without a heartbeat (default 20 s): the longest a job held by
   * a killed worker waits before another worker (this server restarted, or another instance) takes it.
   */
  leaseMs?: number;
  /** How often a running job's lease is renewed (default leaseMs / 4: three heartbeats may fail in a row); keep it well below leaseMs. */
  heartbeatMs?: number;
  backoff?: BackoffOptions;
  logger?: JobLogger;
  /**
   * Foreground first: while `busy()` says the process is answering requests, at most `perSecond`
   * jobs start a second (the others wait in the queue); otherwise jobs start as slots free up.
   */
  yieldTo?: { busy(): boolean; perSecond: number };
};

const consoleLogger: JobLogger = {
  info: (message, meta) => console.info(`[jobs] ${message}`, meta ?? ""),
  warn: (message, meta) => console.warn(`[jobs] ${message}`, meta ?? ""),
  error: (message, meta) => console.error(`[jobs] ${message}`, meta ?? ""),
};

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error)) || "Unknown error";

function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms));
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

type Running = { job: ClaimedJob; controller: AbortController; done: Promise<void> };

/**
 * A token bucket for job starts while the process is busy: `perSecond` tokens a second, at most one
 * second's worth saved up, so a burst of requests never waits behind more than that many starts.
 */
class StartGate {
  private tokens: number;
  private at = performance.now();

  constructor(
    private readonly busy: () => boolean,
    private readonly perSecond: number,
  ) {
    this.tokens = perSecond;
  }

  /** Jobs that may start now (Infinity while not busy); when none may, how long until one can. */
  allowance(): { starts: number; waitMs: number } {
    const now = performance.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (!this.busy()) return { starts: Number.POSITIVE_INFINITY, waitMs: 0 };
    const starts = Math.floor(this.tokens);
    return { starts, waitMs: starts > 0 ? 0 : Math.ceil(((1 - this.tokens) / this.perSecond) * 1000) };
  }

  spend(starts: number): void {
    this.tokens = Math.max(0, this.tokens - starts);
  }
}

/**
 * A short lease renewed by a heartbeat: a worker that dies (killed, crashed, its machine gone)
 * stops renewing, and its jobs are claimable again 20 s later at most, plus one poll.
 */
export const DEFAULT_LEASE_MS = 20_000;
export const HEARTBEATS_PER_LEASE = 4;

export class JobWorker {
  readonly workerId: string;
  private readonly handlers: Record<string, JobHandler>;
  private readonly kinds: string[];
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly backoff: BackoffOptions | undefined;
  private readonly logger: JobLogger;
  private readonly getDb: () => Promise<Db>;
  private readonly gate: StartGate | undefined;
  /** Set by a claim the gate held back: when to look again (sooner than the poll). */
  private gateWaitMs: number | undefined;

  private readonly running = new Map<string, Running>();
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private filling: Promise<number> | undefined;
  private fillAgain = false;
  private polls = 0;

  constructor(db: Db | (() => Promise<Db>), options: JobWorkerOptions) {
    this.getDb = typeof db === "function" ? db : () => Promise.resolve(db);
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.handlers = options.handlers;
    this.kinds = Object.keys(options.handlers);
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.heartbeatMs = Math.max(5, options.heartbeatMs ?? Math.floor(this.leaseMs / HEARTBEATS_PER_LEASE));
    this.backoff = options.backoff;
    this.logger = options.logger ?? consoleLogger;
    const yieldTo = options.yieldTo;
    this.gate = yieldTo && yieldTo.perSecond > 0 ? new StartGate(() => yieldTo.busy(), yieldTo.perSecond) : undefined;
  }

  /** Handlers running now. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Claims made so far (each poll or wake that asked the queue), whether they found jobs or not. */
  get completedPolls(): number {
    return this.polls;
  }

  /** Starts polling; jobs enqueued in this process wake it at once. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.unsubscribe = queue.onJobEnqueued(() => this.wake());
    this.schedule(0);
  }

  /** Looks for due jobs now instead of at the next poll. */
  wake(): void {
    if (this.started) this.schedule(0);
  }

  /**
   * Stops claiming and waits up to `timeoutMs` (default 30 s) for running handlers to finish.
   * Returns false when some did not: their signals are aborted, and their leases run out so
   * another worker takes the jobs again.
   */
  async stop({ timeoutMs = 30_000 }: { timeoutMs?: number } = {}): Promise<boolean> {
    this.started = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.filling?.catch(() => undefined); // a claim under way still launches what it took
    const all = Promise.all([...this.running.values()].map((r) => r.done));
    const timeout = delay(timeoutMs);
    const finished = await Promise.race([all.then(() => true), timeout.promise.then(() => false)]);
    timeout.cancel();
    if (!finished) {
      for (const { controller, job } of this.running.values()) {
        controller.abort(new Error("The worker stopped"));
        this.logger.warn("stopped before the job finished; its lease will expire and it will run again", { jobId: job.id, kind: job.kind });
      }
    }
    return finished;
  }

  /**
   * Runs jobs until none is left that could be claimed within `horizonMs` (default 1 s), waiting
   * for backoffs shorter than that. For tests and scripts; throws after `timeoutMs` (default 10 s).
   */
  async drain({ timeoutMs = 10_000, horizonMs = 1_000 }: { timeoutMs?: number; horizonMs?: number } = {}): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`JobWorker.drain: jobs still due after ${timeoutMs} ms`);
      const claimed = await this.fill();
      if (this.running.size > 0) {
        await Promise.race([...this.running.values()].map((r) => r.done));
        continue;
      }
      if (claimed > 0) continue;
      const waitMs = await queue.nextClaimableInMs(await this.getDb(), { kinds: this.kinds });
      if (waitMs === null || waitMs > horizonMs) return;
      await delay(Math.min(Math.max(waitMs, 5), deadline - Date.now())).promise;
    }
  }

  // ---- The loop ------------------------------------------------------------------------------

  private schedule(ms: number) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.(); // a polling worker alone does not keep the process alive
  }

  private async tick() {
    if (!this.started) return;
    try {
      await this.fill();
    } catch (error) {
      this.logger.error("could not claim jobs", { error: errorMessage(error) });
    } finally {
      const gateWaitMs = this.gateWaitMs;
      this.gateWaitMs = undefined;
      if (this.started) this.schedule(gateWaitMs === undefined ? this.pollIntervalMs : Math.min(gateWaitMs, this.pollIntervalMs));
    }
  }

  /** Claims jobs for the free slots and starts them; one claim at a time, so slots are never overbooked. */
  private fill(): Promise<number> {
    if (this.filling) {
      this.fillAgain = true;
      return this.filling;
    }
    const filling = (async () => {
      let claimed = 0;
      try {
        do {
          this.fillAgain = false;
          claimed += await this.claimAndStart();
        } while (this.fillAgain);
      } finally {
        this.filling = undefined;
      }
      return claimed;
    })();
    this.filling = filling;
    return filling;
  }

  private async claimAndStart(): Promise<number> {
    const free = this.concurrency - this.running.size;
    if (free <= 0 || this.kinds.length === 0) return 0;
    const allowed = this.gate?.allowance();
    if (allowed && allowed.starts === 0) {
      this.gateWaitMs = allowed.waitMs;
      return 0;
    }
    const db = await this.getDb();
    const limit = Math.min(free, allowed?.starts ?? free);
    const jobs = await queue.claim(db, { workerId: this.workerId, kinds: this.kinds, limit, leaseMs: this.leaseMs });
    this.gate?.spend(jobs.length);
    this.polls += 1;
    for (const job of jobs) {
      const running = this.running.get(job.id);
      if (running) {
        // Its lease ran out while this worker was held up (a busy database or event loop), and this
        // claim took it back: the handler under way goes on under the new lease; never a second one.
        running.job = job;
        continue;
      }
      this.startJob(db, job);
    }
    return jobs.length;
  }

  private startJob(db: Db, job: ClaimedJob) {
    const controller = new AbortController();
    const entry: Running = { job, controller, done: Promise.resolve() };
    entry.done = this.runJob(db, entry).finally(() => {
      this.running.delete(job.id);
      this.wake(); // a slot is free
    });
    this.running.set(job.id, entry);
  }

  /** `entry.job` is the current lease: a claim of the same job by this worker replaces it. */
  private async runJob(db: Db, entry: Running): Promise<void> {
    const { job, controller } = entry;
    const extendLease = async () => {
      const kept = await queue.extendLease(db, job.id, this.workerId, this.leaseMs);
      if (!kept && !controller.signal.aborted) {
        controller.abort(new Error("The job's lease was lost (cancelled or taken over by another worker)"));
      }
      return kept;
    };
    // The heartbeat: while the handler runs, the lease is renewed well before it runs out.
    const keepAlive = setInterval(() => {
      extendLease().catch((error: unknown) => this.logger.warn("could not extend a lease", { jobId: job.id, error: errorMessage(error) }));
    }, this.heartbeatMs);
    keepAlive.unref?.();

    let outcome: JobOutcome;
    try {
      const handler = this.handlers[job.kind];
      if (!handler) throw new Error(`No handler for jobs of kind "${job.kind}"`);
      outcome = await handler(job, { db, workerId: this.workerId, signal: controller.signal, extendLease });
    } catch (error) {
      outcome = { type: "retry", error: errorMessage(error) };
    } finally {
      clearInterval(keepAlive);
    }

    try {
      const recorded = await this.record(db, entry.job, outcome);
      if (!recorded)
        this.logger.warn("the job's outcome was not recorded: its lease was lost", {
          jobId: job.id,
          kind: job.kind,
          outcome: outcome.type,
        });
    } catch (error) {
      this.logger.error("could not record a job's outcome; it will run again when its lease expires", {
        jobId: job.id,
        kind: job.kind,
        error: errorMessage(error),
      });
    }
  }

  private async record(db: Db, job: ClaimedJob, outcome: JobOutcome): Promise<boolean> {
    switch (outcome.type) {
      case "done":
        return queue.complete(db, job.id, this.workerId);
      case "retry": {
        const result = await queue.fail(db, job, outcome.error, {
          retryable: true,
          retryAfterMs: outcome.retryAfterMs,
          backoff: this.backoff,
        });
        if (result && result.status === "failed")
          this.logger.warn("job failed after its last attempt", { jobId: job.id, kind: job.kind, error: outcome.error });
        return result !== false;
      }
      case "fail": {
        const result = await queue.fail(db, job, outcome.error, { retryable: false });
        if (result) this.logger.warn("job failed", { jobId: job.id, kind: job.kind, error: outcome.error });
        return result !== false;
      }
      case "defer":
        return queue.defer(db, job, outcome.untilMs, outcome.reason);
    }
  }
}
