// Every SQL of retention: what has expired (counted for the preview, deleted in batches for a run),
// the rollup of rejected deltas written before they go, and the record of each run. A batch runs in
// one short transaction that first sets ace.expiring, so the delete triggers leave the hourly
// rollups and the experiment tallies as they are (migration 20261127104500_retention).
import { Prisma, type DbOrTx, type Tx } from "@/server/db/client";
import type { RetentionKind } from "@/server/ace/retention/settings";

/**
 * What retention removes: the three kinds of the settings, the exposures of archived experiments,
 * and succeeded runs once their traces are gone (with the traces' days).
 */
type RemovedKind = RetentionKind | "exposures" | "succeededRuns";

/** A UTC instant as the timestamp-without-zone the columns hold. */
const utc = (time: Date) => Prisma.sql`(${time.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;

export interface RetentionPlaybookRow {
  id: string;
  name: string;
  settings: unknown;
}

export function listPlaybooks(db: DbOrTx): Promise<RetentionPlaybookRow[]> {
  return db.playbook.findMany({ select: { id: true, name: true, settings: true }, orderBy: { name: "asc" } });
}

/** Marks the transaction's deletes as expiry: the rollups' delete triggers then leave their counts alone. */
export async function markExpiring(tx: Tx): Promise<void> {
  await tx.$queryRaw`SELECT set_config('ace.expiring', 'on', true)`;
}

// ---- What has expired ----------------------------------------------------------------------------

/**
 * Traces of the playbook older than the cutoff that nothing still needs: reflected, not the evidence
 * of a pending delta (its own list, or the traces its run read), and not of an experiment that is
 * not archived (a label no experiment has does not protect).
 */
function expiredTraces(playbookId: string, cutoff: Date) {
  return Prisma.sql`
    SELECT t.id, t."timestamp" FROM "Trace" t
    WHERE t."playbookId" = ${playbookId}::uuid AND t."timestamp" < ${utc(cutoff)} AND t."reflectedAt" IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM "Experiment" e WHERE e.key = t.experiment AND e."archivedAt" IS NULL)
      AND t.id::text NOT IN (
        SELECT jsonb_array_elements_text(d.evidence->'traceIds') FROM "Delta" d
        WHERE d."playbookId" = ${playbookId}::uuid AND d.status = 'pending' AND jsonb_typeof(d.evidence->'traceIds') = 'array'
        UNION ALL
        SELECT unnest(r."traceIds") FROM "Run" r JOIN "Delta" d ON d.id = r."deltaId"
        WHERE d."playbookId" = ${playbookId}::uuid AND d.status = 'pending')`;
}

/** Rejected deltas whose rejection is older than the cutoff. */
function expiredRejectedDeltas(playbookId: string, cutoff: Date) {
  return Prisma.sql`
    SELECT d.id, d."createdAt" AS "timestamp" FROM "Delta" d
    WHERE d."playbookId" = ${playbookId}::uuid AND d.status = 'rejected' AND COALESCE(d."decidedAt", d."updatedAt") < ${utc(cutoff)}`;
}

/** Failed runs created before the cutoff that no pending delta cites or came from. */
function expiredFailedRuns(playbookId: string, cutoff: Date) {
  return Prisma.sql`
    SELECT r.id, r."createdAt" AS "timestamp" FROM "Run" r
    WHERE r."playbookId" = ${playbookId}::uuid AND r.status = 'failed' AND r."createdAt" < ${utc(cutoff)}
      AND NOT EXISTS (SELECT 1 FROM "Delta" d WHERE d.id = r."deltaId" AND d.status = 'pending')
      AND r.id::text NOT IN (
        SELECT jsonb_array_elements_text(d.evidence->'runIds') FROM "Delta" d
        WHERE d."playbookId" = ${playbookId}::uuid AND d.status = 'pending' AND jsonb_typeof(d.evidence->'runIds') = 'array')`;
}

/**
 * Succeeded runs created before the traces' cutoff whose traces are all gone (a run is a copy of
 * what it read), that no pending delta came from or cites. Their content was emptied when their
 * traces went; the hourly rollups keep what they cost.
 */
function expiredSucceededRuns(playbookId: string, cutoff: Date) {
  return Prisma.sql`
    SELECT r.id, r."createdAt" AS "timestamp" FROM "Run" r
    WHERE r."playbookId" = ${playbookId}::uuid AND r.status = 'succeeded' AND r."createdAt" < ${utc(cutoff)}
      AND NOT EXISTS (SELECT 1 FROM "Trace" t WHERE t.id = ANY(r."traceIds"::uuid[]))
      AND NOT EXISTS (SELECT 1 FROM "Delta" d WHERE d.id = r."deltaId" AND d.status = 'pending')
      AND r.id::text NOT IN (
        SELECT jsonb_array_elements_text(d.evidence->'runIds') FROM "Delta" d
        WHERE d."playbookId" = ${playbookId}::uuid AND d.status = 'pending' AND jsonb_typeof(d.evidence->'runIds') = 'array')`;
}

/** Exposures of the playbook's archived experiments first seen before the traces' cutoff. */
function expiredExposures(playbookId: string, cutoff: Date) {
  return Prisma.sql`
    SELECT x."experimentId", x.phase, x."unitId", x."firstSeenAt" AS "timestamp" FROM "ExperimentExposure" x
    JOIN "Experiment" e ON e.id = x."experimentId"
    WHERE e."playbookId" = ${playbookId}::uuid AND e."archivedAt" IS NOT NULL AND x."firstSeenAt" < ${utc(cutoff)}`;
}

export interface Cutoffs {
  traces: Date;
  rejectedDeltas: Date;
  failedRuns: Date;
}

export type RemovedCounts = Record<RemovedKind, number>;

/** How many rows of each kind have expired now (what the next run would remove). */
export async function countExpired(db: DbOrTx, playbookId: string, cutoffs: Cutoffs): Promise<RemovedCounts> {
  const [row] = await db.$queryRaw<RemovedCounts[]>`
    SELECT
      (SELECT count(*) FROM (${expiredTraces(playbookId, cutoffs.traces)}) x)::int AS traces,
      (SELECT count(*) FROM (${expiredRejectedDeltas(playbookId, cutoffs.rejectedDeltas)}) x)::int AS "rejectedDeltas",
      (SELECT count(*) FROM (${expiredFailedRuns(playbookId, cutoffs.failedRuns)}) x)::int AS "failedRuns",
      (SELECT count(*) FROM (${expiredExposures(playbookId, cutoffs.traces)}) x)::int AS exposures,
      (SELECT count(*) FROM (${expiredSucceededRuns(playbookId, cutoffs.traces)}) x)::int AS "succeededRuns"`;
  return row ?? { traces: 0, rejectedDeltas: 0, failedRuns: 0, exposures: 0, succeededRuns: 0 };
}

// ---- Deleting one batch --------------------------------------------------------------------------
// Oldest first, at most `limit` rows, skipping rows another transaction holds (an ingestion or a
// reviewer touching them waits for nothing and is not waited for).

/**
 * Deletes a batch of expired traces from `from` on (the latest timestamp of the batch before: the
 * index range starts there instead of walking the rows already deleted or kept); returns their ids,
 * and the earliest and latest timestamps among them.
 */
export async function deleteExpiredTraces(
  tx: Tx,
  playbookId: string,
  { cutoff, from, limit }: { cutoff: Date; from: Date | null; limit: number },
): Promise<{ ids: string[]; earliest: Date | null; latest: Date | null }> {
  const [row] = await tx.$queryRaw<{ ids: string[]; earliest: Date | null; latest: Date | null }[]>`
    WITH doomed AS (
      SELECT x.id FROM (${expiredTraces(playbookId, cutoff)}) x JOIN "Trace" t ON t.id = x.id
      WHERE ${from === null ? Prisma.sql`TRUE` : Prisma.sql`x."timestamp" >= ${utc(from)}`}
      ORDER BY x."timestamp" LIMIT ${limit}::int FOR UPDATE OF t SKIP LOCKED
    ),
    gone AS (DELETE FROM "Trace" t USING doomed WHERE t.id = doomed.id RETURNING t.id, t."timestamp")
    SELECT COALESCE(array_agg(gone.id::text), ARRAY[]::text[]) AS ids, min(gone."timestamp") AS earliest,
      max(gone."timestamp") AS latest FROM gone`;
  return row ?? { ids: [], earliest: null, latest: null };
}

/** Keeps where the playbook's history starts once its earliest traces are gone (the metrics' `earliest`). */
export async function recordFirstExpiredTrace(tx: Tx, playbookId: string, earliest: Date): Promise<void> {
  await tx.$executeRaw`
    UPDATE "Playbook" SET "firstExpiredTraceAt" = LEAST("firstExpiredTraceAt", ${utc(earliest)})
    WHERE id = ${playbookId}::uuid`;
}

/**
 * Deletes a batch of expired rejected deltas (their operations go with them), after adding what the
 * review chart counts of them to RejectedDeltaHourly: one statement, so both see the same rows.
 */
export async function deleteExpiredRejectedDeltas(tx: Tx, playbookId: string, cutoff: Date, limit: number): Promise<number> {
  const [row] = await tx.$queryRaw<{ removed: number }[]>`
    WITH doomed AS (
      SELECT d.id FROM (${expiredRejectedDeltas(playbookId, cutoff)}) x JOIN "Delta" d ON d.id = x.id
      ORDER BY x."timestamp" LIMIT ${limit}::int FOR UPDATE OF d SKIP LOCKED
    ),
    rolled AS (
      INSERT INTO "RejectedDeltaHourly" AS h ("playbookId", hour, origin, deltas, "nearDuplicates", "decisionsMs")
      SELECT d."playbookId", date_trunc('hour', d."createdAt"), d.origin, count(*)::int, COALESCE(sum(n.near), 0)::int,
        COALESCE(array_agg(extract(epoch FROM (d."decidedAt" - d."createdAt"))::float8 * 1000) FILTER (WHERE d."decidedAt" IS NOT NULL),
          ARRAY[]::float8[])
      FROM doomed JOIN "Delta" d ON d.id = doomed.id
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS near FROM "DeltaOperation" o
        WHERE o."deltaId" = d.id AND o.flags @> '[{"kind": "near_duplicate"}]'::jsonb
      ) n
      GROUP BY 1, 2, 3
      ON CONFLICT ("playbookId", hour, origin) DO UPDATE SET
        deltas = h.deltas + EXCLUDED.deltas,
        "nearDuplicates" = h."nearDuplicates" + EXCLUDED."nearDuplicates",
        "decisionsMs" = COALESCE(h."decisionsMs", ARRAY[]::float8[]) || EXCLUDED."decisionsMs"
      RETURNING 1
    ),
    gone AS (DELETE FROM "Delta" d USING doomed WHERE d.id = doomed.id RETURNING d.id)
    SELECT (SELECT count(*) FROM gone)::int AS removed, (SELECT count(*) FROM rolled)::int AS hours`;
  return row?.removed ?? 0;
}

export async function deleteExpiredFailedRuns(tx: Tx, playbookId: string, cutoff: Date, limit: number): Promise<number> {
  const [row] = await tx.$queryRaw<{ removed: number }[]>`
    WITH doomed AS (
      SELECT r.id FROM (${expiredFailedRuns(playbookId, cutoff)}) x JOIN "Run" r ON r.id = x.id
      ORDER BY x."timestamp" LIMIT ${limit}::int FOR UPDATE OF r SKIP LOCKED
    ),
    gone AS (DELETE FROM "Run" r USING doomed WHERE r.id = doomed.id RETURNING r.id)
    SELECT count(*)::int AS removed FROM gone`;
  return row?.removed ?? 0;
}

export async function deleteExpiredSucceededRuns(tx: Tx, playbookId: string, cutoff: Date, limit: number): Promise<number> {
  const [row] = await tx.$queryRaw<{ removed: number }[]>`
    WITH doomed AS (
      SELECT r.id FROM (${expiredSucceededRuns(playbookId, cutoff)}) x JOIN "Run" r ON r.id = x.id
      ORDER BY x."timestamp" LIMIT ${limit}::int FOR UPDATE OF r SKIP LOCKED
    ),
    gone AS (DELETE FROM "Run" r USING doomed WHERE r.id = doomed.id RETURNING r.id)
    SELECT count(*)::int AS removed FROM gone`;
  return row?.removed ?? 0;
}

export async function deleteExpiredExposures(tx: Tx, playbookId: string, cutoff: Date, limit: number): Promise<number> {
  const [row] = await tx.$queryRaw<{ removed: number }[]>`
    WITH doomed AS (
      SELECT x."experimentId", x.phase, x."unitId" FROM (${expiredExposures(playbookId, cutoff)}) y
      JOIN "ExperimentExposure" x ON x."experimentId" = y."experimentId" AND x.phase = y.phase AND x."unitId" = y."unitId"
      ORDER BY y."timestamp" LIMIT ${limit}::int FOR UPDATE OF x SKIP LOCKED
    ),
    gone AS (
      DELETE FROM "ExperimentExposure" x USING doomed
      WHERE x."experimentId" = doomed."experimentId" AND x.phase = doomed.phase AND x."unitId" = doomed."unitId"
      RETURNING 1
    )
    SELECT count(*)::int AS removed FROM gone`;
  return row?.removed ?? 0;
}

// ---- The record of each run ----------------------------------------------------------------------

export interface PlaybookRemoved extends RemovedCounts {
  playbookId: string;
  name: string;
}

export interface RetentionRunRow {
  id: string;
  trigger: string;
  startedAt: Date;
  finishedAt: Date | null;
  traces: number;
  rejectedDeltas: number;
  failedRuns: number;
  exposures: number;
  succeededRuns: number;
  byPlaybook: unknown;
  error: string | null;
}

const runSelect = {
  id: true,
  trigger: true,
  startedAt: true,
  finishedAt: true,
  traces: true,
  rejectedDeltas: true,
  failedRuns: true,
  exposures: true,
  succeededRuns: true,
  byPlaybook: true,
  error: true,
} as const;

export function insertRun(db: DbOrTx, trigger: string, startedAt: Date): Promise<{ id: string }> {
  return db.retentionRun.create({ data: { trigger, startedAt }, select: { id: true } });
}

export async function finishRun(
  db: DbOrTx,
  id: string,
  result: { totals: RemovedCounts; byPlaybook: PlaybookRemoved[]; error: string | null; finishedAt: Date },
): Promise<void> {
  await db.retentionRun.update({
    where: { id },
    data: {
      ...result.totals,
      byPlaybook: result.byPlaybook as unknown as Prisma.InputJsonArray,
      error: result.error,
      finishedAt: result.finishedAt,
    },
    select: { id: true },
  });
}

export function findRun(db: DbOrTx, id: string): Promise<RetentionRunRow | null> {
  return db.retentionRun.findUnique({ where: { id }, select: runSelect });
}

export function lastRuns(db: DbOrTx, limit: number): Promise<RetentionRunRow[]> {
  return db.retentionRun.findMany({ select: runSelect, orderBy: { startedAt: "desc" }, take: limit });
}
