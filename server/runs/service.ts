// Reflector and curator runs: queueing them (on ingest, after N reflections, or on demand), running
// them from the job queue, and what the UI reads (runs, a run, the provider's and budgets' status).
import type { PlaybookScope } from "@/server/access/restriction";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { recordAudit, whoOf, type Who, type WhoOrName } from "@/server/audit/record";
import type { Db, Tx } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import * as queue from "@/server/jobs/queue";
import type { ClaimedJob } from "@/server/jobs/queue";
import type { JobHandler, JobOutcome } from "@/server/jobs/worker";
import { readSettings } from "@/server/playbooks/manage";
import type { PlaybookSettings } from "@/server/playbooks/schemas";
import { budgetUsage } from "./budget";
import { curatePlaybook } from "./curate";
import { executeRun } from "./execution";
import { runProviderFor, type RunProvider } from "./providers";
import { reflectTrace } from "./reflect";
import * as repo from "./repository";
import type {
  EnqueueResult,
  listRunsInput,
  reflectNowInput,
  RunDetail,
  RunPage,
  RunRole,
  QueueCounts,
  RunsStatus,
  RunTrigger,
} from "./schemas";

export const REFLECT_JOB = "reflect";
export const CURATE_JOB = "curate";
/** How long a curator run waits for the one under way on its playbook before looking again. */
const CURATOR_WAIT_MS = 1_000;
/** Attempts per run before it fails for good (provider faults are retried with backoff). */
export const RUN_ATTEMPTS = 5;

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

// ---- Queueing ---------------------------------------------------------------------------------

/** Queueing waits its turn behind other writers in a burst of agents instead of failing after Prisma's 2 s and 5 s. */
const QUEUE_TRANSACTION = { maxWait: 10_000, timeout: 60_000 } as const;

/**
 * One queued reflector run and job per trace, written together in one transaction; with the audit
 * entry when a person asked for them (`who`), not when traces queued them. A trace that already has
 * a reflector run gets none: the ingest, the sweep of unqueued traces and "Reflect now", on any
 * instance, may meet over the same traces, and a trace reflected twice would count its tags twice.
 * Returns the runs queued.
 */
export async function enqueueReflections(db: Db, playbookId: string, traceIds: readonly string[], trigger: RunTrigger, who?: Who) {
  if (traceIds.length === 0) return [];
  const runIds = await db.$transaction((tx) => queueReflections(db, tx, playbookId, traceIds, trigger, who), QUEUE_TRANSACTION);
  if (runIds.length > 0) queue.wakeWorkers();
  return runIds;
}

/**
 * What enqueueReflections writes, inside the caller's transaction (`db` names the provider). The
 * jobs are seen once it commits: the caller wakes the workers then (queue.wakeWorkers).
 */
async function queueReflections(db: Db, tx: Tx, playbookId: string, traceIds: readonly string[], trigger: RunTrigger, who?: Who) {
  const provider = runProviderFor(db);
  const model = provider.modelFor("reflector");
  const wanted = [...new Set(traceIds)].map((traceId) => ({
    id: randomUUID(),
    playbookId,
    role: "reflector" as const,
    provider: provider.name,
    model,
    trigger,
    traceIds: [traceId],
  }));
  const queued = await repo.queueReflectorRuns(tx, wanted);
  const runs = wanted.filter((run) => queued.has(run.id));
  if (runs.length === 0) return [];
  await queue.enqueueMany(
    tx,
    runs.map((run) => ({ kind: REFLECT_JOB, playbookId, payload: { runId: run.id }, maxAttempts: RUN_ATTEMPTS })),
  );
  if (who) {
    await recordAudit(tx, who.audit, {
      action: "run.reflect",
      target: { type: "playbook", id: playbookId, label: null },
      playbookId,
      after: { runs: runs.length, traces: runs.length, provider: provider.name, model },
    });
  }
  return runs.map((run) => run.id);
}

/**
 * At most one queued curator run per playbook: asking again while one waits returns that one (it
 * will read every reflection waiting when it starts). A run already under way does not count: the
 * reflections that finish while it runs need the next one.
 */
export async function enqueueCuration(
  db: Db,
  playbookId: string,
  trigger: RunTrigger,
  who?: Who,
): Promise<{ runId: string; created: boolean }> {
  const provider = runProviderFor(db);
  const queued = await db.$transaction(async (tx) => {
    await repo.lockCuration(tx, playbookId);
    const waiting = await repo.queuedRunIds(tx, playbookId, "curator");
    if (waiting[0]) return { runId: waiting[0].id, created: false };
    const runId = randomUUID();
    await repo.insertQueuedRuns(tx, [
      { id: runId, playbookId, role: "curator", provider: provider.name, model: provider.modelFor("curator"), trigger, traceIds: [] },
    ]);
    await queue.enqueue(tx, { kind: CURATE_JOB, playbookId, payload: { runId }, maxAttempts: RUN_ATTEMPTS });
    if (who) {
      await recordAudit(tx, who.audit, {
        action: "run.curate",
        target: { type: "run", id: runId, label: "curator run" },
        playbookId,
        after: { runId, provider: provider.name, model: provider.modelFor("curator") },
      });
    }
    return { runId, created: true };
  });
  if (queued.created) queue.wakeWorkers();
  return queued;
}

/**
 * Traces just stored for one playbook, with the playbook's stored settings as ingestion read them
 * (under its lock, in the transaction that stored the traces): whether they are reflected follows
 * the settings they were stored under, without reading the playbook again.
 */
export interface StoredTraces {
  playbookId: string;
  traceIds: string[];
  settings: unknown;
}

/**
 * Inside the ingest's transaction: queues the reflections of the new traces of playbooks that
 * reflect automatically, so traces and their runs are stored together or not at all (no trace is
 * left unqueued by a stop in between). Returns how many were queued: the caller wakes the workers
 * once the transaction commits.
 */
export async function scheduleReflections(db: Db, tx: Tx, batches: readonly StoredTraces[]): Promise<number> {
  let queued = 0;
  for (const { playbookId, traceIds, settings } of batches) {
    if (traceIds.length === 0 || readSettings(settings).reflectorMode !== "auto") continue;
    queued += (await queueReflections(db, tx, playbookId, traceIds, "auto")).length;
  }
  return queued;
}

/**
 * After a reflection or a curation: curate once curatorFrequency reflections wait, when the playbook
 * curates automatically. `settings` are the ones the run started with (read again when it had none);
 * while a curator run is queued, it will take the waiting reflections and nothing is queued.
 */
async function maybeCurate(db: Db, playbookId: string, started: PlaybookSettings | null): Promise<void> {
  const settings = started ?? (await settingsOf(db, playbookId));
  if (settings?.curatorMode !== "auto") return;
  const { uncurated, curatorQueued } = await repo.curationBacklog(db, playbookId);
  if (!curatorQueued && uncurated >= settings.curatorFrequency) await enqueueCuration(db, playbookId, "auto");
}

async function settingsOf(db: Db, playbookId: string): Promise<PlaybookSettings | null> {
  const playbook = await repo.findPlaybookSettings(db, playbookId);
  return playbook ? readSettings(playbook.settings) : null;
}

/** Runs whose job is gone are failed with the reason (start-up), so none stays "running" forever. */
export function failAbandonedRuns(db: Db): Promise<number> {
  return repo.failRunsWithoutJob(db);
}

/** Traces stored but never queued (the process stopped in between) are queued on start. */
export async function sweepOrphanTraces(db: Db): Promise<number> {
  let queued = 0;
  for (;;) {
    const orphans = await repo.orphanTraces(db, 1_000);
    if (orphans.length === 0) return queued;
    const byPlaybook = new Map<string, string[]>();
    for (const { id, playbookId } of orphans) byPlaybook.set(playbookId, [...(byPlaybook.get(playbookId) ?? []), id]);
    for (const [playbookId, traceIds] of byPlaybook) await enqueueReflections(db, playbookId, traceIds, "auto");
    queued += orphans.length;
  }
}

// ---- On demand ----------------------------------------------------------------------------------

async function requirePlaybook(db: Db, playbookId: string) {
  const playbook = await repo.findPlaybookSettings(db, playbookId);
  if (!playbook) throw notFound("The playbook");
  return { ...playbook, settings: readSettings(playbook.settings) };
}

export async function reflectNow(
  db: Db,
  who: WhoOrName,
  input: z.output<typeof reflectNowInput>,
  trigger: RunTrigger = "manual",
): Promise<EnqueueResult> {
  const playbook = await requirePlaybook(db, input.playbookId);
  if (playbook.settings.reflectorMode === "off") {
    throw new AppError("INVALID_INPUT", "The reflector is off for this playbook. Turn it on in the playbook's settings first.");
  }
  if (input.traceIds) {
    const found = await repo.findTraces(db, input.traceIds);
    if (found.length !== new Set(input.traceIds).size) {
      throw new AppError("NOT_FOUND", "Some of the traces were not found. Reload the trace list and try again.");
    }
  }
  // A trace is reflected once: its tags are observations, and counting one twice would skew the counters.
  const traceIds = await repo.traceIdsToReflect(db, playbook.id, 1_000, input.traceIds);
  if (traceIds.length === 0) {
    return {
      runIds: [],
      message: input.traceIds
        ? "Nothing to do: these traces are reflected already, or their reflector runs are queued."
        : "Nothing to do: every trace of this playbook is reflected or queued for reflection.",
    };
  }
  const runIds = await enqueueReflections(db, playbook.id, traceIds, trigger, whoOf(who));
  return {
    runIds,
    message: `${plural(runIds.length, "reflector run")} queued${playbook.settings.runsPaused ? " (runs are paused for this playbook)" : ""}.`,
  };
}

export async function curateNow(db: Db, who: WhoOrName, playbookId: string, trigger: RunTrigger = "manual"): Promise<EnqueueResult> {
  const playbook = await requirePlaybook(db, playbookId);
  if (playbook.settings.curatorMode === "off") {
    throw new AppError("INVALID_INPUT", "The curator is off for this playbook. Turn it on in the playbook's settings first.");
  }
  const { runId, created } = await enqueueCuration(db, playbookId, trigger, whoOf(who));
  return {
    runIds: [runId],
    message: created ? "Curator run queued." : "A curator run for this playbook is already queued; it will read every reflection waiting.",
  };
}

// ---- Running (the job handlers) ------------------------------------------------------------------

/** What reflect and curate jobs carry: the run they execute. */
const runJobPayload = z.object({ runId: z.uuid() });

function runIdOf(job: ClaimedJob): string | null {
  const parsed = runJobPayload.safeParse(job.payload);
  return parsed.success ? parsed.data.runId : null;
}

/** The reflect and curate handlers for a JobWorker; `providerOf` lets tests pass their own provider. */
export function runHandlers(providerOf: (db: Db) => RunProvider = runProviderFor): Record<string, JobHandler> {
  const handle =
    (role: RunRole): JobHandler =>
    async (job, { db, extendLease }): Promise<JobOutcome> => {
      const runId = runIdOf(job);
      if (!runId) return { type: "fail", error: "The job names no run (its payload has no runId)." };
      // Curator runs of one playbook go one after another: two at once would read the same reflections.
      if (role === "curator" && (await repo.otherRunningCurator(db, job.playbookId ?? "", runId))) {
        return { type: "defer", untilMs: Date.now() + CURATOR_WAIT_MS, reason: "Waiting for the curator run under way to finish." };
      }
      let settings: PlaybookSettings | null = null;
      const outcome = await executeRun(
        db,
        providerOf(db),
        { runId, attempt: job.attempts, maxAttempts: job.maxAttempts, holdsLease: extendLease },
        (context, exchange) => {
          settings = context.settings;
          if (role === "curator") return curatePlaybook(context, exchange);
          return reflectTrace(context, exchange, context.traceIds[0] ?? "");
        },
      );
      if (outcome.type === "done" && job.playbookId) await maybeCurate(db, job.playbookId, settings);
      return outcome;
    };
  return { [REFLECT_JOB]: handle("reflector"), [CURATE_JOB]: handle("curator") };
}

/** A failed run, queued again as a new attempt of the same run. */
export async function retryRun(db: Db, who: WhoOrName, runId: string): Promise<EnqueueResult> {
  const run = await repo.findRun(db, runId);
  if (!run) throw notFound("The run");
  if (run.status !== "failed") throw new AppError("INVALID_INPUT", `Only a failed run can be retried; this one is ${run.status}.`);
  await db.$transaction(async (tx) => {
    await repo.markRunQueued(tx, run.id, `Retried after: ${run.error ?? "an error"}`);
    await queue.enqueue(tx, {
      kind: run.role === "reflector" ? REFLECT_JOB : CURATE_JOB,
      playbookId: run.playbookId,
      payload: { runId: run.id },
      maxAttempts: RUN_ATTEMPTS,
    });
    await recordAudit(tx, whoOf(who).audit, {
      action: "run.retry",
      target: { type: "run", id: run.id, label: `${run.role} run` },
      playbookId: run.playbookId,
      before: { status: run.status, error: run.error?.slice(0, 500) ?? null },
      after: { status: "queued" },
    });
  });
  queue.wakeWorkers();
  return { runIds: [run.id], message: "The run is queued again." };
}

// ---- Reading -------------------------------------------------------------------------------------

/** `scope`: the playbooks a restricted caller may see; the total counts those only. */
export async function listRuns(db: Db, query: z.output<typeof listRunsInput>, scope: PlaybookScope = "all"): Promise<RunPage> {
  const { items, total } = await repo.listRuns(db, query, scope);
  const next = query.cursor + items.length;
  return { items, total, nextCursor: next < total ? next : null };
}

export async function getRun(db: Db, runId: string): Promise<RunDetail> {
  const run = await repo.findRun(db, runId);
  if (!run) throw notFound("The run");
  const { playbook, ...rest } = run;
  const [traces, delta] = await Promise.all([
    repo.findTraces(db, run.traceIds),
    run.deltaId ? repo.findDeltaSummary(db, run.deltaId) : null,
  ]);
  return {
    ...rest,
    playbookName: playbook.name,
    traceCount: run.traceIds.length,
    traces,
    delta: delta ? { id: delta.id, status: delta.status, operationCount: delta._count.operations } : null,
  };
}

function queueCounts(jobs: queue.QueueStats["byStatus"] | undefined): QueueCounts {
  return { queued: jobs?.queued ?? 0, running: jobs?.running ?? 0, failed: jobs?.failed ?? 0 };
}

export async function runsStatus(db: Db, playbookId: string): Promise<RunsStatus> {
  const playbook = await requirePlaybook(db, playbookId);
  const provider = runProviderFor(db);
  const [circuit, uncurated, unreflected, stats, budgets] = await Promise.all([
    provider.circuit(),
    repo.countUncurated(db, playbookId),
    repo.countUnreflected(db, playbookId),
    queue.queueStats(db, { playbookId }),
    budgetUsage(db, playbookId, playbook.settings),
  ]);
  return {
    provider: provider.describe(),
    circuit,
    paused: playbook.settings.runsPaused,
    reflectorMode: playbook.settings.reflectorMode,
    curatorMode: playbook.settings.curatorMode,
    curatorFrequency: playbook.settings.curatorFrequency,
    uncurated,
    unreflected,
    queue: {
      ...queueCounts(stats.byStatus),
      reflector: queueCounts(stats.byKind[REFLECT_JOB]),
      curator: queueCounts(stats.byKind[CURATE_JOB]),
    },
    budgets,
  };
}
