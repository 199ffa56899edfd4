// Every database call of the reflector and curator runs. Plain rows out; the rules live in service.ts.
import type { CitedBullet } from "@/server/ace/reflection/trace";
import { Prisma, type Db, type DbOrTx, type Tx } from "@/server/db/client";
import type { z } from "zod";
import type { listRunsInput, RunListItem, RunRole, RunStatus } from "./schemas";

// ---- Runs ------------------------------------------------------------------------------------

export interface NewRun {
  id: string;
  playbookId: string;
  role: RunRole;
  provider: string;
  model: string;
  trigger: string;
  traceIds: string[];
}

/**
 * Queued runs in one statement: the rows travel as one JSON parameter (a batch of 1,000 traces
 * queues 1,000 runs; Prisma's createMany binds every field of every row and takes ten times longer).
 */
export async function insertQueuedRuns(db: DbOrTx, runs: readonly NewRun[]): Promise<void> {
  if (runs.length === 0) return;
  await db.$executeRaw`
    INSERT INTO "Run" (id, "playbookId", role, status, provider, model, trigger, "traceIds", "createdAt")
    SELECT r.id, r."playbookId", r.role, 'queued', r.provider, r.model, r.trigger, r."traceIds", now() AT TIME ZONE 'UTC'
    FROM json_to_recordset(${JSON.stringify(runs)}::json) AS r(
      id uuid, "playbookId" uuid, role "RunRole", provider text, model text, trigger text, "traceIds" text[])`;
}

const RUN_LIST_SELECT = {
  id: true,
  playbookId: true,
  role: true,
  status: true,
  provider: true,
  model: true,
  trigger: true,
  traceIds: true,
  inputTokens: true,
  outputTokens: true,
  costUsd: true,
  latencyMs: true,
  attempts: true,
  deltaId: true,
  error: true,
  createdAt: true,
  finishedAt: true,
  playbook: { select: { name: true } },
} satisfies Prisma.RunSelect;

type RunListRow = Prisma.RunGetPayload<{ select: typeof RUN_LIST_SELECT }>;

function toListItem({ playbook, traceIds, ...row }: RunListRow): RunListItem {
  return { ...row, playbookName: playbook.name, traceCount: traceIds.length };
}

export function findRun(db: DbOrTx, runId: string) {
  return db.run.findUnique({
    where: { id: runId },
    select: {
      ...RUN_LIST_SELECT,
      reflectionRunIds: true,
      curatedByRunId: true,
      prompt: true,
      rawResponse: true,
      output: true,
      startedAt: true,
      redactedAt: true,
      redactedReason: true,
    },
  });
}
export type RunRecord = NonNullable<Awaited<ReturnType<typeof findRun>>>;

/** What executing a run reads before it starts: the run and its playbook's settings. */
export interface RunToExecute {
  id: string;
  playbookId: string;
  role: RunRole;
  status: RunStatus;
  traceIds: string[];
  settings: unknown;
}

/**
 * The run a job names, with its playbook's stored settings, in one statement (a worker reads this
 * for every job); null when the run or its playbook is gone.
 */
export async function findRunToExecute(db: DbOrTx, runId: string): Promise<RunToExecute | null> {
  const [row] = await db.$queryRaw<RunToExecute[]>`
    SELECT r.id::text AS id, r."playbookId"::text AS "playbookId", r.role::text AS role, r.status::text AS status,
           r."traceIds", p.settings
    FROM "Run" r JOIN "Playbook" p ON p.id = r."playbookId"
    WHERE r.id = ${runId}::uuid`;
  return row ?? null;
}

/** `scope`: only these playbooks' runs (a restricted caller's); "all": every playbook. */
function runWhere(query: z.output<typeof listRunsInput>, scope: "all" | readonly string[]): Prisma.RunWhereInput {
  return {
    ...(query.playbookId ? { playbookId: query.playbookId } : {}),
    ...(scope === "all" ? {} : { AND: [{ playbookId: { in: [...scope] } }] }),
    ...(query.role ? { role: query.role } : {}),
    ...(query.status ? { status: query.status } : {}),
    ...(query.traceId ? { traceIds: { has: query.traceId } } : {}),
  };
}

export async function listRuns(db: Db, query: z.output<typeof listRunsInput>, scope: "all" | readonly string[] = "all") {
  const where = runWhere(query, scope);
  const [rows, total] = await Promise.all([
    db.run.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: query.cursor,
      take: query.limit,
      select: RUN_LIST_SELECT,
    }),
    db.run.count({ where }),
  ]);
  return { items: rows.map(toListItem), total };
}

/** A run starts (again): one more attempt, the provider that serves it now. */
export function markRunning(db: DbOrTx, runId: string, provider: string, model: string) {
  return db.run.update({
    where: { id: runId },
    data: { status: "running", provider, model, attempts: { increment: 1 }, startedAt: new Date(), error: null },
    select: { attempts: true },
  });
}

/**
 * Back to the queue: a retry later, or waiting for the circuit breaker or the budget. What the
 * attempt sent and received so far is kept, so a retrying run shows its messages.
 */
/** What a run read and wrote: never stored again once a trace it read was erased or expired. */
type RunContent = Partial<Record<"prompt" | "rawResponse" | "output", unknown>>;

/**
 * Updates a run, its content only while it is not redacted: a run that read a trace before the
 * trace's erasure must not write the trace back when it ends. Returns why it was redacted, if it was.
 */
async function updateRun<T extends RunContent>(db: DbOrTx, runId: string, data: T): Promise<string | null> {
  const { prompt, rawResponse, output, ...rest } = data;
  const kept = await db.run.updateMany({ where: { id: runId, redactedAt: null }, data: data as Prisma.RunUpdateManyMutationInput });
  if (kept.count > 0 || (prompt === undefined && rawResponse === undefined && output === undefined)) return null;
  const row = await db.run.update({ where: { id: runId }, data: rest as Prisma.RunUpdateInput, select: { redactedReason: true } });
  return row.redactedReason ?? "erasure";
}

export async function markRunQueued(
  db: DbOrTx,
  runId: string,
  reason: string,
  exchange?: { prompt: Prisma.InputJsonValue; rawResponse: Prisma.InputJsonValue; inputTokens: number; outputTokens: number },
): Promise<void> {
  await updateRun(db, runId, { status: "queued", error: reason, ...exchange });
}

export interface RunResult {
  status: Extract<RunStatus, "succeeded" | "failed">;
  output?: Prisma.InputJsonValue | null;
  error?: string | null;
  prompt?: Prisma.InputJsonValue;
  rawResponse?: Prisma.InputJsonValue;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number | null;
  latencyMs?: number | null;
  deltaId?: string | null;
}

/** Returns why the run was redacted meanwhile (its content was not written then), else null. */
export async function finishRun(db: DbOrTx, runId: string, result: RunResult): Promise<string | null> {
  const { output, ...rest } = result;
  return updateRun(db, runId, {
    ...rest,
    ...(output === undefined ? {} : { output: output === null ? Prisma.DbNull : output }),
    finishedAt: new Date(),
  });
}

/** Keeps what a run sent and received so far, so a run that is retried or fails still shows it. */
export async function recordExchange(
  db: DbOrTx,
  runId: string,
  exchange: { prompt: Prisma.InputJsonValue; rawResponse: Prisma.InputJsonValue; inputTokens: number; outputTokens: number },
): Promise<void> {
  await updateRun(db, runId, exchange);
}

export function queuedRunIds(db: DbOrTx, playbookId: string, role: RunRole) {
  return db.run.findMany({ where: { playbookId, role, status: "queued" }, select: { id: true } });
}

/** Serialises queueing curator runs of one playbook (other connections and processes included). */
export async function lockCuration(tx: Tx, playbookId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`curate:${playbookId}`}))`;
}

/**
 * Queues reflector runs (one trace each) in one statement, each only if its trace is still free:
 * the traces no reflector run was queued for are marked as queued and get their run; the others
 * get none. Concurrent claims of one trace (every instance) wait for each other on its row and the
 * later one finds it taken; rows are locked in id order, so overlapping batches never deadlock. A
 * primary-key lookup per trace, whatever the number of runs. Returns the ids of the runs inserted.
 */
export async function queueReflectorRuns(tx: Tx, runs: readonly NewRun[]): Promise<Set<string>> {
  if (runs.length === 0) return new Set();
  const rows = await tx.$queryRaw<{ id: string }[]>`
    WITH wanted AS (
      SELECT r.id, r."playbookId", r.provider, r.model, r.trigger, r."traceIds", r."traceIds"[1]::uuid AS "traceId"
      FROM json_to_recordset(${JSON.stringify(runs)}::json) AS r(
        id uuid, "playbookId" uuid, provider text, model text, trigger text, "traceIds" text[])),
    free AS (
      SELECT id FROM "Trace" WHERE id IN (SELECT "traceId" FROM wanted) AND "reflectQueuedAt" IS NULL
      ORDER BY id FOR NO KEY UPDATE),
    claimed AS (
      UPDATE "Trace" t SET "reflectQueuedAt" = now() AT TIME ZONE 'UTC'
      FROM free WHERE t.id = free.id
      RETURNING t.id)
    INSERT INTO "Run" (id, "playbookId", role, status, provider, model, trigger, "traceIds", "createdAt")
    SELECT w.id, w."playbookId", 'reflector', 'queued', w.provider, w.model, w.trigger, w."traceIds", now() AT TIME ZONE 'UTC'
    FROM wanted w JOIN claimed c ON c.id = w."traceId"
    RETURNING id::text AS id`;
  return new Set(rows.map((row) => row.id));
}

/** A run "running" for longer than this lost its worker: it no longer holds up the next one. */
const ABANDONED_AFTER_MS = 15 * 60_000;

export async function otherRunningCurator(db: DbOrTx, playbookId: string, runId: string): Promise<boolean> {
  const found = await db.run.findFirst({
    where: {
      playbookId,
      role: "curator",
      status: "running",
      id: { not: runId },
      startedAt: { gt: new Date(Date.now() - ABANDONED_AFTER_MS) },
    },
    select: { id: true },
  });
  return found !== null;
}

// ---- Traces and bullets a run reads ------------------------------------------------------------

export function findTraceForReflection(db: DbOrTx, traceId: string) {
  return db.trace.findUnique({
    where: { id: traceId },
    select: {
      id: true,
      playbookId: true,
      task: true,
      reasoning: true,
      output: true,
      outcome: true,
      feedback: true,
      citedBulletIds: true,
    },
  });
}

export async function citedBullets(db: DbOrTx, playbookId: string, externalIds: readonly string[]): Promise<CitedBullet[]> {
  if (externalIds.length === 0) return [];
  // Only what the reflector's prompt shows (the run records the bullets it was given), with the
  // section's name joined in: one statement for every reflection.
  return db.$queryRaw<CitedBullet[]>`
    SELECT b."externalId", s.name AS section, b.content, b.helpful, b.harmful, b.neutral
    FROM "Bullet" b JOIN "Section" s ON s.id = b."sectionId"
    WHERE b."playbookId" = ${playbookId}::uuid AND b."externalId" = ANY (${[...externalIds]}::text[]) AND b.status = 'active'`;
}

/** A trace erased while it was being reflected is gone: nothing to mark, and the run still ends. */
export async function markTraceReflected(db: DbOrTx, traceId: string): Promise<void> {
  await db.trace.updateMany({ where: { id: traceId }, data: { reflectedAt: new Date() } });
}

/**
 * Traces of the playbook that still need a reflection: not reflected, and no reflector run queued for
 * them (asking twice must not tag a bullet twice). `among` narrows it to those ids.
 */
export async function traceIdsToReflect(db: DbOrTx, playbookId: string, limit: number, among?: readonly string[]): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT t.id::text AS id FROM "Trace" t
    WHERE t."playbookId" = ${playbookId}::uuid AND t."reflectedAt" IS NULL AND t."reflectQueuedAt" IS NULL
      ${among ? Prisma.sql`AND t.id = ANY(${[...among]}::uuid[])` : Prisma.empty}
    ORDER BY t."createdAt", t.id
    LIMIT ${limit}`;
  return rows.map((row) => row.id);
}

export function countUnreflected(db: DbOrTx, playbookId: string) {
  return db.trace.count({ where: { playbookId, reflectedAt: null } });
}

export function findTraces(db: DbOrTx, traceIds: readonly string[]) {
  return db.trace.findMany({
    where: { id: { in: [...traceIds] } },
    orderBy: { createdAt: "asc" },
    select: { id: true, task: true, outcome: true, createdAt: true },
  });
}

/**
 * Traces no reflector run has taken, of playbooks that reflect automatically: what a crash between
 * storing a trace and queueing its run would leave behind. Swept on start.
 */
export async function orphanTraces(db: Db, limit: number): Promise<{ id: string; playbookId: string }[]> {
  return db.$queryRaw<{ id: string; playbookId: string }[]>`
    SELECT t.id::text AS id, t."playbookId"::text AS "playbookId"
    FROM "Trace" t JOIN "Playbook" p ON p.id = t."playbookId"
    WHERE t."reflectedAt" IS NULL AND t."reflectQueuedAt" IS NULL
      AND COALESCE(p.settings->>'reflectorMode', 'auto') = 'auto'
    ORDER BY t."createdAt"
    LIMIT ${limit}`;
}

/**
 * Runs left queued or running with no live job behind them (their job failed for good when its
 * worker died on the last attempt): failed with the reason, so they can be retried.
 */
export async function failRunsWithoutJob(db: Db): Promise<number> {
  return db.$executeRaw`
    UPDATE "Run" r SET status = 'failed', "finishedAt" = now() AT TIME ZONE 'UTC',
      error = 'The server stopped while this run was under way and it has no attempt left. Retry it.'
    WHERE r.status IN ('queued', 'running')
      AND NOT EXISTS (
        SELECT 1 FROM "Job" j WHERE j.status IN ('queued', 'running') AND j.payload->>'runId' = r.id::text)`;
}

// ---- Reflections waiting for the curator -----------------------------------------------------

export function uncuratedReflections(db: DbOrTx, playbookId: string, limit: number) {
  return db.run.findMany({
    where: { playbookId, role: "reflector", status: "succeeded", curatedByRunId: null, redactedAt: null },
    orderBy: { finishedAt: "asc" },
    take: limit,
    select: { id: true, traceIds: true, output: true },
  });
}

export function countUncurated(db: DbOrTx, playbookId: string) {
  return db.run.count({ where: { playbookId, role: "reflector", status: "succeeded", curatedByRunId: null, redactedAt: null } });
}

/**
 * In one statement: the reflections not curated yet, and whether a curator run is queued (it will
 * take them when it starts). Asked after every reflection.
 */
export async function curationBacklog(db: DbOrTx, playbookId: string): Promise<{ uncurated: number; curatorQueued: boolean }> {
  const [row] = await db.$queryRaw<{ uncurated: number; curatorQueued: boolean }[]>`
    SELECT (SELECT COUNT(*) FROM "Run" r
            WHERE r."playbookId" = ${playbookId}::uuid AND r.role = 'reflector' AND r.status = 'succeeded' AND r."curatedByRunId" IS NULL
              AND r."redactedAt" IS NULL)::int AS uncurated,
           EXISTS (SELECT 1 FROM "Run" r WHERE r."playbookId" = ${playbookId}::uuid AND r.role = 'curator' AND r.status = 'queued') AS "curatorQueued"`;
  return row ?? { uncurated: 0, curatorQueued: false };
}

export async function markCurated(db: DbOrTx, reflectionRunIds: readonly string[], curatorRunId: string): Promise<void> {
  if (reflectionRunIds.length === 0) return;
  await db.run.updateMany({ where: { id: { in: [...reflectionRunIds] } }, data: { curatedByRunId: curatorRunId } });
}

export async function setCuratorInputs(db: DbOrTx, runId: string, reflectionRunIds: string[], traceIds: string[]) {
  await db.run.update({ where: { id: runId }, data: { reflectionRunIds, traceIds }, select: { id: true } });
}

/** The delta an earlier attempt of this run already wrote (a worker that died after proposing). */
export async function deltaOfRun(db: DbOrTx, runId: string): Promise<string | null> {
  const rows = await db.$queryRaw<{ id: string }[]>(deltaOfRunQuery(runId));
  return rows[0]?.id ?? null;
}

/**
 * deltaOfRun's query, answered from the evidence index (Delta_evidence_idx; its plan is tested). No
 * LIMIT: a run proposes one delta at most, and with LIMIT 1 the planner expected an early match and
 * read every delta instead (a scan of 20,000 on both engines, where the run had none).
 */
export const deltaOfRunQuery = (runId: string) =>
  Prisma.sql`SELECT id::text AS id FROM "Delta" WHERE evidence @> ${JSON.stringify({ runIds: [runId] })}::jsonb`;

export function findDeltaSummary(db: DbOrTx, deltaId: string) {
  return db.delta.findUnique({
    where: { id: deltaId },
    select: { id: true, status: true, _count: { select: { operations: true } } },
  });
}

// ---- Usage and settings -------------------------------------------------------------------

export async function usageSince(db: DbOrTx, since: Date, playbookId?: string): Promise<{ tokens: number; costUsd: number }> {
  const sums = await db.run.aggregate({
    where: { createdAt: { gte: since }, ...(playbookId ? { playbookId } : {}) },
    _sum: { inputTokens: true, outputTokens: true, costUsd: true },
  });
  return {
    tokens: (sums._sum.inputTokens ?? 0) + (sums._sum.outputTokens ?? 0),
    costUsd: sums._sum.costUsd ?? 0,
  };
}

export async function readAppSetting(db: DbOrTx, key: string): Promise<unknown> {
  const row = await db.appSetting.findUnique({ where: { key }, select: { value: true } });
  return row?.value ?? null;
}

export async function writeAppSetting(db: DbOrTx, key: string, value: Prisma.InputJsonValue): Promise<void> {
  await db.appSetting.upsert({ where: { key }, create: { key, value }, update: { value } });
}

/**
 * Reads a setting and writes what `change` makes of it (null: nothing) as one step: under a
 * transaction-scoped advisory lock on the key, so processes sharing the database take turns.
 * Returns the value stored afterwards.
 */
export function updateAppSetting(db: Db, key: string, change: (value: unknown) => Prisma.InputJsonValue | null): Promise<unknown> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`app-setting:${key}`}))`;
    const current = await readAppSetting(tx, key);
    const next = change(current);
    if (next === null) return current;
    await writeAppSetting(tx, key, next);
    return next;
  });
}

export function findPlaybookSettings(db: DbOrTx, playbookId: string) {
  return db.playbook.findUnique({ where: { id: playbookId }, select: { id: true, name: true, settings: true } });
}
