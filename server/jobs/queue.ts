// The background job queue, kept in the "Job" table so queued work survives a restart. One
// implementation for embedded PGlite and PostgreSQL (pg-boss needs its own pool and schema).
import type { Db, DbOrTx, JobStatus, Prisma, Tx } from "@/server/db/client";
import { type BackoffOptions, backoffDelay } from "./backoff";
import * as repo from "./repository";

export type { BackoffOptions } from "./backoff";
export type Job = repo.JobRow;
/** A job as claim() hands it out: running, with this worker's lease. */
export type ClaimedJob = Job & { status: "running"; lockedBy: string; lockedUntil: Date };
export type JobLease = repo.JobLease;

// ---- Waking in-process workers -------------------------------------------------------------
// On globalThis, because Next.js may load this module more than once in one server.

const globalForJobs = globalThis as typeof globalThis & { __aceJobListeners?: Set<() => void> };
const enqueueListeners: Set<() => void> = (globalForJobs.__aceJobListeners ??= new Set());

/** Calls `listener` after every enqueue in this process (workers poll at once). Returns the unsubscribe. */
export function onJobEnqueued(listener: () => void): () => void {
  enqueueListeners.add(listener);
  return () => enqueueListeners.delete(listener);
}

/**
 * Wakes this process's workers to look for due jobs now. enqueue and enqueueMany call it themselves
 * outside a transaction; inside one they leave it to the caller, who calls it once the jobs are
 * committed: woken before, a worker on another connection would find nothing yet and wait for its
 * next poll.
 */
export function wakeWorkers(): void {
  for (const listener of enqueueListeners) {
    try {
      listener();
    } catch {
      // a listener's trouble is not the enqueuer's
    }
  }
}

// ---- Enqueueing ----------------------------------------------------------------------------

export type EnqueueInput = {
  kind: string;
  playbookId?: string | null;
  payload?: Prisma.InputJsonValue;
  /** At most one queued or running job per key: a second enqueue returns the first job. */
  singletonKey?: string | null;
  /** Not before this time (default: now). */
  runAt?: Date;
  /** Attempts before the job fails for good (default 5). */
  maxAttempts?: number;
};

// A transaction client lacks $connect (Prisma 7 tx clients do have $transaction: nested ones).
const isClient = (db: DbOrTx): db is Db => "$connect" in db;

/**
 * Adds a job. With a singletonKey the check and the insert run under a transaction-scoped advisory
 * lock on the key, so concurrent enqueues (other connections, other processes) make one job.
 * Inside a caller's transaction it joins it; the lock is then held until that transaction ends.
 */
export async function enqueue(db: DbOrTx, input: EnqueueInput): Promise<{ id: string; created: boolean }> {
  const maxAttempts = input.maxAttempts ?? 5;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  const job: repo.NewJob = {
    kind: input.kind,
    playbookId: input.playbookId ?? null,
    payload: input.payload ?? {},
    singletonKey: input.singletonKey ?? null,
    runAt: input.runAt,
    maxAttempts,
  };
  const { singletonKey } = job;

  let result: { id: string; created: boolean };
  if (singletonKey === null) {
    result = { id: (await repo.insertJob(db, job)).id, created: true };
  } else {
    const insertOnce = async (tx: Tx) => {
      await repo.lockSingletonKey(tx, singletonKey);
      const existing = await repo.findActiveJobByKey(tx, singletonKey);
      if (existing) return { id: existing.id, created: false };
      return { id: (await repo.insertJob(tx, job)).id, created: true };
    };
    result = isClient(db) ? await db.$transaction(insertOnce) : await insertOnce(db);
  }
  // Inside a caller's transaction the row is not visible to other connections yet: the caller wakes
  // the workers once it commits.
  if (result.created && isClient(db)) wakeWorkers();
  return result;
}

/**
 * Adds many jobs in one statement (a batch of ingested traces); singleton keys are not allowed here.
 * Inside a transaction, the caller wakes the workers once it commits (wakeWorkers).
 */
export async function enqueueMany(db: DbOrTx, inputs: readonly Omit<EnqueueInput, "singletonKey">[]): Promise<number> {
  if (inputs.length === 0) return 0;
  const jobs = inputs.map((input): repo.NewJob => {
    const maxAttempts = input.maxAttempts ?? 5;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
      throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
    return {
      kind: input.kind,
      playbookId: input.playbookId ?? null,
      payload: input.payload ?? {},
      singletonKey: null,
      runAt: input.runAt,
      maxAttempts,
    };
  });
  const count = await repo.insertJobs(db, jobs);
  if (isClient(db)) wakeWorkers();
  return count;
}

// ---- Claiming ------------------------------------------------------------------------------

export type ClaimInput = {
  workerId: string;
  /** Only jobs of these kinds (default: any kind). */
  kinds?: readonly string[];
  limit: number;
  /** How long the job stays ours without extendLease(); after that another worker may take it. */
  leaseMs: number;
  excludePlaybookIds?: readonly string[];
};

/**
 * Atomically takes up to `limit` due jobs, oldest runAt first: queued jobs whose runAt has come and
 * running jobs whose lease expired (their worker died), skipping paused playbooks
 * (settings.runsPaused). Each claim counts as an attempt.
 */
export async function claim(db: DbOrTx, input: ClaimInput): Promise<ClaimedJob[]> {
  const limit = Math.floor(input.limit);
  if (limit < 1 || (input.kinds && input.kinds.length === 0)) return [];
  const filter = { kinds: input.kinds, excludePlaybookIds: input.excludePlaybookIds };
  const jobs = await repo.claimJobs(db, { ...filter, workerId: input.workerId, limit, leaseMs: input.leaseMs });
  return jobs as ClaimedJob[];
}

/** Milliseconds until a claim with this filter could take a job (≤ 0: now), or null when none is waiting. */
export function nextClaimableInMs(db: DbOrTx, filter: Pick<ClaimInput, "kinds" | "excludePlaybookIds"> = {}): Promise<number | null> {
  if (filter.kinds && filter.kinds.length === 0) return Promise.resolve(null);
  return repo.nextClaimableInMs(db, filter);
}

// ---- Finishing -----------------------------------------------------------------------------
// Only the worker holding the lease may finish a job: each call returns false when the job was
// cancelled, or its lease expired and another worker took it.

export function complete(db: DbOrTx, jobId: string, workerId: string): Promise<boolean> {
  return repo.markSucceeded(db, jobId, workerId);
}

export type FailOptions = {
  /** Worth another attempt (a timeout, a 429): back to the queue while attempts remain. */
  retryable: boolean;
  /** Wait exactly this long before the next attempt (a provider's Retry-After), instead of the backoff. */
  retryAfterMs?: number;
  backoff?: BackoffOptions;
};

export type FailResult = false | { status: "queued"; runAt: Date } | { status: "failed" };

/**
 * Records a failed attempt. Retryable with attempts left: queued again after an exponential,
 * jittered backoff (2 s × 2^(attempts−1), ±20 %, at most 10 min). Otherwise failed for good.
 * The error is kept in lastError either way.
 */
export async function fail(
  db: DbOrTx,
  job: JobLease & Pick<Job, "maxAttempts">,
  error: string,
  { retryable, retryAfterMs, backoff }: FailOptions,
): Promise<FailResult> {
  if (retryable && job.attempts < job.maxAttempts) {
    const delayMs = retryAfterMs ?? backoffDelay(job.attempts, backoff);
    const runAt = await repo.markQueued(db, job, { delayMs, lastError: error, refund: false });
    return runAt ? { status: "queued", runAt } : false;
  }
  return (await repo.markFailed(db, job, error)) ? { status: "failed" } : false;
}

/**
 * Puts a claimed job back until `untilMs` (epoch milliseconds) without using up an attempt: the
 * job did not run (the circuit breaker is open, a budget is spent). `reason` goes to lastError.
 */
export async function defer(db: DbOrTx, job: JobLease, untilMs: number, reason: string): Promise<boolean> {
  const runAt = await repo.markQueued(db, job, { runAt: new Date(untilMs), lastError: reason, refund: true });
  return runAt !== null;
}

/** Keeps a long job ours for another `leaseMs`; false when the lease was lost (cancelled, taken over). */
export function extendLease(db: DbOrTx, jobId: string, workerId: string, leaseMs: number): Promise<boolean> {
  return repo.extendJobLease(db, jobId, workerId, leaseMs);
}

/** Cancels a queued or running job; false when it had already finished. */
export function cancel(db: DbOrTx, jobId: string): Promise<boolean> {
  return repo.markCancelled(db, jobId);
}

// ---- For the UI ----------------------------------------------------------------------------

export type StatusCounts = Record<JobStatus, number>;

export type QueueStats = {
  total: number;
  byStatus: StatusCounts;
  byKind: Record<string, StatusCounts>;
  /** How long the oldest queued job has waited since it was enqueued; null when none is queued. */
  oldestQueuedAgeMs: number | null;
  /** The earliest runAt of the queued jobs (in the past when they are overdue); null when none. */
  nextRunAt: Date | null;
};

const noJobs = (): StatusCounts => ({ queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0 });

export async function queueStats(db: DbOrTx, { playbookId }: { playbookId?: string } = {}): Promise<QueueStats> {
  const [groups, times] = await Promise.all([repo.countJobsByStatusAndKind(db, playbookId), repo.queuedTimes(db, playbookId)]);
  const stats: QueueStats = { total: 0, byStatus: noJobs(), byKind: {}, oldestQueuedAgeMs: null, nextRunAt: times.nextRunAt };
  for (const group of groups) {
    const count = group._count._all;
    stats.total += count;
    stats.byStatus[group.status] += count;
    (stats.byKind[group.kind] ??= noJobs())[group.status] += count;
  }
  stats.oldestQueuedAgeMs = times.oldestAgeMs === null ? null : Math.max(0, Math.round(times.oldestAgeMs));
  return stats;
}

export type ListJobsInput = Partial<repo.ListJobsQuery>;
export type JobListItem = Awaited<ReturnType<typeof repo.findJobs>>[number];

/** Newest first; at most 200. */
export function listJobs(db: DbOrTx, input: ListJobsInput = {}): Promise<JobListItem[]> {
  return repo.findJobs(db, { ...input, limit: Math.min(Math.max(1, input.limit ?? 50), 200) });
}

export function getJob(db: DbOrTx, jobId: string): Promise<Job | null> {
  return repo.findJob(db, jobId);
}
