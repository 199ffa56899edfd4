-- Queueing a reflection claims its trace (server/runs/repository.ts claimTracesForReflection): the
-- trace's row says when its reflector run was queued, so "has this trace a reflector run?" is a
-- primary-key lookup. It was a search of every reflector run's traceIds, which PostgreSQL planned as
-- a scan of all of them per trace when its statistics were stale (seconds per trace post at 100k runs).

-- AlterTable
ALTER TABLE "Trace" ADD COLUMN     "reflectQueuedAt" TIMESTAMP(3);

-- Backfill: the traces that already have a reflector run, claimed when their first one was queued.
UPDATE "Trace" t SET "reflectQueuedAt" = claimed.first
FROM (
  SELECT x.id, min(r."createdAt") AS first
  FROM "Run" r CROSS JOIN LATERAL unnest(r."traceIds") AS x(id)
  WHERE r.role = 'reflector'
  GROUP BY x.id
) claimed
WHERE t.id::text = claimed.id;
