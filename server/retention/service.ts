// Retention: what each playbook keeps (its own days or the studio default), what has expired (the
// preview), and the run that deletes it in short batches and records what it removed. The daily job
// (kind "retention" in the job queue) runs it at 03:00 UTC and queues the next day's run.
import { retentionCutoffs, nextDailyRun, type RetentionSettings } from "@/server/ace/retention/settings";
import { recordAudit, whoOf, type WhoOrName } from "@/server/audit/record";
import type { Db, Tx } from "@/server/db/client";
import * as queue from "@/server/jobs/queue";
import type { JobHandler } from "@/server/jobs/worker";
import { effectiveSettings, hasOwnRetention, readStudioRetention } from "@/server/playbooks/manage";
import { removeTraceCopies } from "@/server/traces/copies";
import * as repo from "./repository";
import type { PreviewRow, RemovedCounts, RetentionPreview, RetentionRunResult, RetentionStatus } from "./schemas";

export const RETENTION_JOB = "retention";
/** The hour (UTC) the daily run starts. */
const RETENTION_HOUR_UTC = 3;
/**
 * Rows per transaction: each batch holds its rows' locks for a few tens of milliseconds on
 * PostgreSQL, so an ingestion or a reviewer touching one of them waits no longer than that.
 */
export const RETENTION_BATCH = 2_000;

const none = (): RemovedCounts => ({ traces: 0, rejectedDeltas: 0, failedRuns: 0, exposures: 0, succeededRuns: 0 });

interface PlaybookPlan {
  playbook: repo.RetentionPlaybookRow;
  retention: RetentionSettings;
  ownRetention: boolean;
  cutoffs: repo.Cutoffs;
}

async function plans(db: Db, now: Date): Promise<PlaybookPlan[]> {
  const playbooks = await repo.listPlaybooks(db);
  return Promise.all(
    playbooks.map(async (playbook) => {
      const { retention } = await effectiveSettings(db, playbook.settings);
      return { playbook, retention, ownRetention: hasOwnRetention(playbook.settings), cutoffs: retentionCutoffs(retention, now) };
    }),
  );
}

function add(into: RemovedCounts, counts: RemovedCounts): void {
  into.traces += counts.traces;
  into.rejectedDeltas += counts.rejectedDeltas;
  into.failedRuns += counts.failedRuns;
  into.exposures += counts.exposures;
  into.succeededRuns += counts.succeededRuns;
}

/** What the next retention run would remove, per playbook and kind (counted now; nothing is deleted). */
export async function previewRetention(db: Db, now = new Date()): Promise<RetentionPreview> {
  const rows: PreviewRow[] = [];
  const totals = none();
  for (const plan of await plans(db, now)) {
    const counts = await repo.countExpired(db, plan.playbook.id, plan.cutoffs);
    add(totals, counts);
    rows.push({
      playbookId: plan.playbook.id,
      name: plan.playbook.name,
      retention: plan.retention,
      ownRetention: plan.ownRetention,
      ...counts,
    });
  }
  return { at: now, totals, playbooks: rows };
}

/** Deletes batches with `step` until one comes back short; returns how many rows went. */
async function inBatches(db: Db, step: (tx: Tx) => Promise<number>): Promise<number> {
  let removed = 0;
  for (;;) {
    const batch = await db.$transaction(
      async (tx) => {
        await repo.markExpiring(tx);
        return step(tx);
      },
      { maxWait: 10_000, timeout: 60_000 },
    );
    removed += batch;
    if (batch < RETENTION_BATCH) return removed;
  }
}

async function expirePlaybook(db: Db, plan: PlaybookPlan): Promise<RemovedCounts> {
  const id = plan.playbook.id;
  let from: Date | null = null;
  const traces = await inBatches(db, async (tx) => {
    const batch = await repo.deleteExpiredTraces(tx, id, { cutoff: plan.cutoffs.traces, from, limit: RETENTION_BATCH });
    if (batch.earliest) await repo.recordFirstExpiredTrace(tx, id, batch.earliest);
    // The runs and deltas that quote them lose that text in the same batch.
    await removeTraceCopies(tx, id, batch.ids, "retention");
    from = batch.latest ?? from;
    return batch.ids.length;
  });
  const rejectedDeltas = await inBatches(db, (tx) =>
    repo.deleteExpiredRejectedDeltas(tx, id, plan.cutoffs.rejectedDeltas, RETENTION_BATCH),
  );
  const failedRuns = await inBatches(db, (tx) => repo.deleteExpiredFailedRuns(tx, id, plan.cutoffs.failedRuns, RETENTION_BATCH));
  const exposures = await inBatches(db, (tx) => repo.deleteExpiredExposures(tx, id, plan.cutoffs.traces, RETENTION_BATCH));
  const succeededRuns = await inBatches(db, (tx) => repo.deleteExpiredSucceededRuns(tx, id, plan.cutoffs.traces, RETENTION_BATCH));
  return { traces, rejectedDeltas, failedRuns, exposures, succeededRuns };
}

function runResult(row: repo.RetentionRunRow): RetentionRunResult {
  return { ...row, byPlaybook: Array.isArray(row.byPlaybook) ? (row.byPlaybook as repo.PlaybookRemoved[]) : [] };
}

/**
 * Deletes what has expired in every playbook, batch by batch, and records the run (a RetentionRun
 * row the Settings page shows, and one audit entry naming who ran it). A failure stops the run; what
 * was deleted before it stays deleted and is recorded with the error.
 */
export async function runRetention(
  db: Db,
  who: WhoOrName,
  trigger: "schedule" | "manual",
  { now = new Date(), playbookIds }: { now?: Date; playbookIds?: readonly string[] } = {},
): Promise<RetentionRunResult> {
  const run = await repo.insertRun(db, trigger, now);
  const totals = none();
  const byPlaybook: repo.PlaybookRemoved[] = [];
  let error: string | null = null;
  try {
    for (const plan of await plans(db, now)) {
      // Only these playbooks (the benchmark measures one); every playbook otherwise.
      if (playbookIds && !playbookIds.includes(plan.playbook.id)) continue;
      const counts = await expirePlaybook(db, plan);
      add(totals, counts);
      if (Object.values(counts).some((count) => count > 0))
        byPlaybook.push({ playbookId: plan.playbook.id, name: plan.playbook.name, ...counts });
    }
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  await db.$transaction(async (tx) => {
    await repo.finishRun(tx, run.id, { totals, byPlaybook, error, finishedAt: new Date() });
    await recordAudit(tx, whoOf(who).audit, {
      action: "retention.run",
      target: { type: "studio", id: run.id, label: trigger === "schedule" ? "daily retention" : "retention run now" },
      after: { ...totals, byPlaybook, ...(error ? { error } : {}) },
    });
  });
  if (error) throw new Error(`Retention stopped after removing ${totals.traces} traces: ${error}`);
  return runResult((await repo.findRun(db, run.id)) as repo.RetentionRunRow);
}

/** The studio default, the last run with what it removed, and when the daily job runs next. */
export async function retentionStatus(db: Db): Promise<RetentionStatus> {
  const [studioDefault, [last], queued] = await Promise.all([
    readStudioRetention(db),
    repo.lastRuns(db, 1),
    queue.listJobs(db, { kind: RETENTION_JOB, status: "queued", limit: 10 }),
  ]);
  const next = queued.map((job) => job.runAt.getTime()).sort((a, b) => a - b)[0];
  return { studioDefault, lastRun: last ? runResult(last) : null, nextRunAt: next === undefined ? null : new Date(next) };
}

// ---- The daily job -------------------------------------------------------------------------------

/**
 * Queues the run of the next 03:00 UTC. Its singleton key names the day, so every instance that
 * starts, and the run that finishes, ask for the same job: one per day, never a pile.
 */
export async function scheduleRetention(db: Db, now = new Date()): Promise<{ id: string; runAt: Date }> {
  const runAt = nextDailyRun(now, RETENTION_HOUR_UTC);
  const { id } = await queue.enqueue(db, {
    kind: RETENTION_JOB,
    singletonKey: `retention:${runAt.toISOString().slice(0, 10)}`,
    runAt,
    maxAttempts: 3,
  });
  return { id, runAt };
}

export function retentionHandlers(): Record<string, JobHandler> {
  return {
    [RETENTION_JOB]: async (_job, { db }) => {
      try {
        await runRetention(db, "retention", "schedule");
      } catch (error) {
        return { type: "retry", error: error instanceof Error ? error.message : String(error) };
      } finally {
        await scheduleRetention(db);
      }
      return { type: "done" };
    },
  };
}
