// Every database call of the job queue. State changes are single SQL statements guarded by the
// lease (status running + lockedBy + attempts), timed by the database clock so every worker agrees.
import { Prisma, type DbOrTx, type JobStatus, type Tx } from "@/server/db/client";

export type JobRow = Prisma.JobModel;

/** What identifies one lease on a job: the worker that claimed it and the attempt it claimed. */
export type JobLease = Pick<JobRow, "id" | "lockedBy" | "attempts">;

// "runAt" and friends are TIMESTAMP(3) holding UTC (how Prisma writes Dates); compare them with the
// database's UTC wall clock, whatever the session's TimeZone says.
const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')`;
const ms = (value: number) => Prisma.sql`(${Math.max(0, value)}::double precision * interval '1 millisecond')`;

const RETURNING = Prisma.sql`
  j.id, j.kind, j."playbookId", j.payload, j.status::text AS status, j.attempts, j."maxAttempts", j."runAt",
  j."lockedUntil", j."lockedBy", j."lastError", j."singletonKey", j."createdAt", j."updatedAt", j."finishedAt"`;

/** Which jobs a worker may take: by kind, never of excluded or paused playbooks. */
export type ClaimFilter = { kinds?: readonly string[]; excludePlaybookIds?: readonly string[] };

function kindIn(kinds: readonly string[] | undefined, column: Prisma.Sql) {
  if (!kinds) return Prisma.empty;
  return kinds.length > 0 ? Prisma.sql`AND ${column} IN (${Prisma.join(kinds)})` : Prisma.sql`AND false`;
}

function claimableWhere({ kinds, excludePlaybookIds }: ClaimFilter) {
  const byKind = kindIn(kinds, Prisma.raw("j.kind"));
  const excluded =
    excludePlaybookIds && excludePlaybookIds.length > 0
      ? Prisma.sql`AND (j."playbookId" IS NULL OR j."playbookId" NOT IN (${Prisma.join(excludePlaybookIds.map((id) => Prisma.sql`${id}::uuid`))}))`
      : Prisma.empty;
  // A playbook's runs are paused while its settings say "runsPaused": true.
  return Prisma.sql`
    ${byKind}
    ${excluded}
    AND (j."playbookId" IS NULL OR NOT EXISTS (
      SELECT 1 FROM "Playbook" p WHERE p.id = j."playbookId" AND p.settings @> '{"runsPaused": true}'::jsonb))`;
}

// ---- Enqueueing ------------------------------------------------------------------------------

/** Serialises enqueues of one singleton key until the transaction ends (PostgreSQL and PGlite alike). */
export async function lockSingletonKey(tx: Tx, key: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${key}))`;
}

export function findActiveJobByKey(db: DbOrTx, singletonKey: string) {
  return db.job.findFirst({
    where: { singletonKey, status: { in: ["queued", "running"] } },
    orderBy: { createdAt: "asc" },
    select: { id: true },
  });
}

export type NewJob = {
  kind: string;
  playbookId: string | null;
  payload: Prisma.InputJsonValue;
  singletonKey: string | null;
  runAt?: Date;
  maxAttempts: number;
};

export function insertJob(db: DbOrTx, job: NewJob) {
  return db.job.create({ data: job, select: { id: true } });
}

/** Many jobs in one statement, the rows as one JSON parameter (createMany binds every field of every row). */
export async function insertJobs(db: DbOrTx, jobs: readonly NewJob[]): Promise<number> {
  if (jobs.length === 0) return 0;
  const rows = jobs.map((job) => ({ ...job, runAt: job.runAt?.toISOString() ?? null }));
  return db.$executeRaw`
    INSERT INTO "Job" (id, kind, "playbookId", payload, status, "maxAttempts", "runAt", "singletonKey", "createdAt", "updatedAt")
    SELECT gen_random_uuid(), r.kind, r."playbookId", r.payload, 'queued', r."maxAttempts",
      COALESCE(r."runAt"::timestamptz AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'), r."singletonKey",
      now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(
      kind text, "playbookId" uuid, payload jsonb, "maxAttempts" int, "runAt" text, "singletonKey" text)`;
}

// ---- Claiming ------------------------------------------------------------------------------

/**
 * Takes up to `limit` due jobs for one worker in one statement: queued jobs whose runAt has come,
 * and running jobs whose lease ran out (their worker died) with attempts left. SKIP LOCKED lets
 * concurrent claims pass each other instead of waiting or taking the same row; the CTE makes sure
 * the LIMIT is applied once, whatever plan PostgreSQL picks. The same statement fails the jobs of
 * `kinds` whose lease ran out on their last attempt (`exhausted`: rows the claim never takes): a job
 * that kills its worker every time must not be taken again forever.
 */
export async function claimJobs(
  db: DbOrTx,
  { workerId, limit, leaseMs, ...filter }: ClaimFilter & { workerId: string; limit: number; leaseMs: number },
): Promise<JobRow[]> {
  const rows = await db.$queryRaw<JobRow[]>`
    WITH exhausted AS (
      UPDATE "Job"
      SET status = 'failed', "lockedUntil" = NULL, "finishedAt" = ${NOW}, "updatedAt" = ${NOW},
          "lastError" = 'The worker running it stopped before finishing (lease expired) on attempt ' || attempts || ' of ' || "maxAttempts"
      WHERE status = 'running' AND "lockedUntil" < ${NOW} AND attempts >= "maxAttempts" ${kindIn(filter.kinds, Prisma.raw("kind"))}
      RETURNING id
    ), next AS (
      SELECT j.id FROM "Job" j
      WHERE (
          (j.status = 'queued' AND j."runAt" <= ${NOW})
          OR (j.status = 'running' AND j."lockedUntil" < ${NOW} AND j.attempts < j."maxAttempts")
        )
        ${claimableWhere(filter)}
      ORDER BY j."runAt", j."createdAt", j.id
      LIMIT ${limit}
      FOR UPDATE OF j SKIP LOCKED
    )
    UPDATE "Job" AS j
    SET status = 'running', "lockedBy" = ${workerId}, "lockedUntil" = ${NOW} + ${ms(leaseMs)},
        attempts = j.attempts + 1, "updatedAt" = ${NOW}
    FROM next WHERE j.id = next.id
    RETURNING ${RETURNING}`;
  // RETURNING follows no order; hand jobs out oldest first.
  return rows.sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime());
}

/** Milliseconds until the next job a claim with this filter could take (≤ 0: due now); null when none. */
export async function nextClaimableInMs(db: DbOrTx, filter: ClaimFilter): Promise<number | null> {
  const [row] = await db.$queryRaw<{ waitMs: number | null }[]>`
    SELECT (EXTRACT(EPOCH FROM (min(CASE WHEN j.status = 'queued' THEN j."runAt" ELSE j."lockedUntil" END) - ${NOW})) * 1000)::float8 AS "waitMs"
    FROM "Job" j
    WHERE (j.status = 'queued' OR (j.status = 'running' AND j."lockedUntil" IS NOT NULL AND j.attempts < j."maxAttempts"))
      ${claimableWhere(filter)}`;
  return row?.waitMs ?? null;
}

// ---- Finishing a lease ---------------------------------------------------------------------

const held = (lease: JobLease) =>
  Prisma.sql`id = ${lease.id}::uuid AND status = 'running' AND "lockedBy" = ${lease.lockedBy} AND attempts = ${lease.attempts}`;

export async function markSucceeded(db: DbOrTx, jobId: string, workerId: string): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE "Job" SET status = 'succeeded', "lockedUntil" = NULL, "finishedAt" = ${NOW}, "updatedAt" = ${NOW}
    WHERE id = ${jobId}::uuid AND status = 'running' AND "lockedBy" = ${workerId}`;
  return count === 1;
}

/** Back to the queue after `delayMs` (database clock) or at `runAt`; `refund` gives the attempt back. */
export async function markQueued(
  db: DbOrTx,
  lease: JobLease,
  { delayMs, runAt, lastError, refund }: { delayMs?: number; runAt?: Date; lastError: string; refund: boolean },
): Promise<Date | null> {
  const when = runAt ? Prisma.sql`${runAt}::timestamp(3)` : Prisma.sql`${NOW} + ${ms(delayMs ?? 0)}`;
  const attempts = refund ? Prisma.sql`GREATEST(attempts - 1, 0)` : Prisma.sql`attempts`;
  const rows = await db.$queryRaw<{ runAt: Date }[]>`
    UPDATE "Job" SET status = 'queued', "runAt" = ${when}, attempts = ${attempts}, "lockedBy" = NULL, "lockedUntil" = NULL,
        "lastError" = ${lastError}, "updatedAt" = ${NOW}
    WHERE ${held(lease)}
    RETURNING "runAt"`;
  return rows[0]?.runAt ?? null;
}

export async function markFailed(db: DbOrTx, lease: JobLease, lastError: string): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE "Job" SET status = 'failed', "lockedUntil" = NULL, "lastError" = ${lastError}, "finishedAt" = ${NOW}, "updatedAt" = ${NOW}
    WHERE ${held(lease)}`;
  return count === 1;
}

export async function extendJobLease(db: DbOrTx, jobId: string, workerId: string, leaseMs: number): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE "Job" SET "lockedUntil" = ${NOW} + ${ms(leaseMs)}, "updatedAt" = ${NOW}
    WHERE id = ${jobId}::uuid AND status = 'running' AND "lockedBy" = ${workerId}`;
  return count === 1;
}

/** Cancels a queued or running job; a running job's worker finds out when its lease is refused. */
export async function markCancelled(db: DbOrTx, jobId: string): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE "Job" SET status = 'cancelled', "lockedUntil" = NULL, "finishedAt" = ${NOW}, "updatedAt" = ${NOW}
    WHERE id = ${jobId}::uuid AND status IN ('queued', 'running')`;
  return count === 1;
}

// ---- Reading -------------------------------------------------------------------------------

export function countJobsByStatusAndKind(db: DbOrTx, playbookId?: string) {
  return db.job.groupBy({ by: ["status", "kind"], where: { playbookId }, _count: { _all: true } });
}

/** The oldest queued job's age and the earliest queued runAt, by the database clock. */
export async function queuedTimes(db: DbOrTx, playbookId?: string) {
  const byPlaybook = playbookId ? Prisma.sql`AND "playbookId" = ${playbookId}::uuid` : Prisma.empty;
  const [row] = await db.$queryRaw<{ oldestAgeMs: number | null; nextRunAt: Date | null }[]>`
    SELECT (EXTRACT(EPOCH FROM (${NOW} - min("createdAt"))) * 1000)::float8 AS "oldestAgeMs", min("runAt") AS "nextRunAt"
    FROM "Job" WHERE status = 'queued' ${byPlaybook}`;
  return { oldestAgeMs: row?.oldestAgeMs ?? null, nextRunAt: row?.nextRunAt ?? null };
}

export type ListJobsQuery = { playbookId?: string; status?: JobStatus | readonly JobStatus[]; kind?: string; limit: number };

export function findJobs(db: DbOrTx, { playbookId, status, kind, limit }: ListJobsQuery) {
  return db.job.findMany({
    where: {
      playbookId,
      kind,
      status: status === undefined ? undefined : typeof status === "string" ? status : { in: [...status] },
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: {
      id: true,
      kind: true,
      playbookId: true,
      payload: true,
      status: true,
      attempts: true,
      maxAttempts: true,
      runAt: true,
      lockedBy: true,
      lockedUntil: true,
      lastError: true,
      singletonKey: true,
      createdAt: true,
      updatedAt: true,
      finishedAt: true,
    },
  });
}

export function findJob(db: DbOrTx, jobId: string) {
  return db.job.findUnique({ where: { id: jobId } });
}
