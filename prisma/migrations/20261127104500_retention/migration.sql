-- Retention (server/retention): expired traces, rejected deltas, failed runs and the exposures of
-- archived experiments are deleted in batches by a daily job. The charts must read the same numbers
-- after that as before, so a delete made by retention leaves every rollup alone: the job sets the
-- transaction-local setting ace.expiring to 'on', and the delete triggers of "Trace", "Run" and
-- "ExperimentExposure" then return at once. Any other delete (a person's) still takes its rows off.
-- Rejected deltas have no trigger rollup: the job writes what the review chart counts of them into
-- RejectedDeltaHourly before deleting them.

-- AlterTable
ALTER TABLE "Experiment" ADD COLUMN     "archivedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "Playbook" ADD COLUMN     "firstExpiredTraceAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "RejectedDeltaHourly" (
    "playbookId" UUID NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "origin" "DeltaOrigin" NOT NULL,
    "deltas" INTEGER NOT NULL DEFAULT 0,
    "nearDuplicates" INTEGER NOT NULL DEFAULT 0,
    "decisionsMs" DOUBLE PRECISION[] DEFAULT ARRAY[]::DOUBLE PRECISION[],

    CONSTRAINT "RejectedDeltaHourly_pkey" PRIMARY KEY ("playbookId","hour","origin")
);

-- CreateTable
CREATE TABLE "RetentionRun" (
    "id" UUID NOT NULL,
    "trigger" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),
    "traces" INTEGER NOT NULL DEFAULT 0,
    "rejectedDeltas" INTEGER NOT NULL DEFAULT 0,
    "failedRuns" INTEGER NOT NULL DEFAULT 0,
    "exposures" INTEGER NOT NULL DEFAULT 0,
    "byPlaybook" JSONB NOT NULL DEFAULT '[]',
    "error" TEXT,

    CONSTRAINT "RetentionRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RetentionRun_startedAt_idx" ON "RetentionRun"("startedAt");

-- AddForeignKey
ALTER TABLE "RejectedDeltaHourly" ADD CONSTRAINT "RejectedDeltaHourly_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ---- Deletes by retention leave the rollups as they are ------------------------------------------

-- Whether the current transaction deletes expired rows (set by server/retention with set_config).
CREATE FUNCTION ace_expiring() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT COALESCE(current_setting('ace.expiring', true), '') = 'on'
$$;

CREATE OR REPLACE FUNCTION ace_trace_hourly_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ace_expiring() THEN RETURN NULL; END IF;
  UPDATE "TraceHourly" h SET
    traces = h.traces - g.traces,
    success = h.success - g.success,
    failure = h.failure - g.failure,
    unknown = h.unknown - g.unknown,
    "inputTokens" = h."inputTokens" - g."inputTokens",
    "outputTokens" = h."outputTokens" - g."outputTokens",
    "costUsd" = h."costUsd" - g."costUsd",
    uncosted = h.uncosted - g.uncosted,
    durations = ace_remove_values(h.durations, g.durations)
  FROM (
    SELECT o."playbookId", date_trunc('hour', o."timestamp") AS hour, COALESCE(o.experiment, '') AS experiment,
      COALESCE(o.variant, '') AS variant, count(*)::int AS traces,
      (count(*) FILTER (WHERE o.outcome = 'success'))::int AS success, (count(*) FILTER (WHERE o.outcome = 'failure'))::int AS failure,
      (count(*) FILTER (WHERE o.outcome = 'unknown'))::int AS unknown, COALESCE(sum(o."inputTokens"), 0) AS "inputTokens",
      COALESCE(sum(o."outputTokens"), 0) AS "outputTokens", COALESCE(sum(o."costUsd"), 0) AS "costUsd",
      (count(*) FILTER (WHERE o."costUsd" IS NULL))::int AS uncosted,
      array_agg(o."durationMs") FILTER (WHERE o."durationMs" IS NOT NULL) AS durations
    FROM old_rows o
    GROUP BY 1, 2, 3, 4
  ) g
  WHERE h."playbookId" = g."playbookId" AND h.hour = g.hour AND h.experiment = g.experiment AND h.variant = g.variant;
  DELETE FROM "TraceHourly" h
  WHERE h.traces = 0 AND (h."playbookId", h.hour) IN (SELECT o."playbookId", date_trunc('hour', o."timestamp") FROM old_rows o);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION ace_run_hourly_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ace_expiring() THEN RETURN NULL; END IF;
  UPDATE "RunHourly" h SET
    runs = h.runs - g.runs,
    failed = h.failed - g.failed,
    retried = h.retried - g.retried,
    "inputTokens" = h."inputTokens" - g."inputTokens",
    "outputTokens" = h."outputTokens" - g."outputTokens",
    "costUsd" = h."costUsd" - g."costUsd",
    uncosted = h.uncosted - g.uncosted,
    latencies = ace_remove_values(h.latencies, g.latencies)
  FROM (
    SELECT o."playbookId", date_trunc('hour', o."createdAt") AS hour, o.role, count(*)::int AS runs,
      (count(*) FILTER (WHERE o.status = 'failed'))::int AS failed, (count(*) FILTER (WHERE o.attempts > 1))::int AS retried,
      COALESCE(sum(o."inputTokens"), 0) AS "inputTokens", COALESCE(sum(o."outputTokens"), 0) AS "outputTokens",
      COALESCE(sum(o."costUsd"), 0) AS "costUsd", (count(*) FILTER (WHERE o."costUsd" IS NULL))::int AS uncosted,
      array_agg(o."latencyMs") FILTER (WHERE o."latencyMs" IS NOT NULL) AS latencies
    FROM old_rows o
    GROUP BY 1, 2, 3
  ) g
  WHERE h."playbookId" = g."playbookId" AND h.hour = g.hour AND h.role = g.role;
  DELETE FROM "RunHourly" h
  WHERE h.runs = 0 AND (h."playbookId", h.hour) IN (SELECT o."playbookId", date_trunc('hour', o."createdAt") FROM old_rows o);
  RETURN NULL;
END $$;

-- An archived experiment's results keep their per-unit sums: its expired traces leave the exposures,
-- tasks and pairs alone, and its expired exposures leave the tallies alone.
CREATE OR REPLACE FUNCTION ace_experiment_trace_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ace_expiring() THEN RETURN NULL; END IF;
  PERFORM ace_experiment_traces_remove(ARRAY(SELECT ace_experiment_trace_of(o) FROM old_rows o WHERE o."experimentPhase" IS NOT NULL));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION ace_experiment_exposure_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND ace_expiring() THEN RETURN NULL; END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM ace_experiment_tally(OLD, -1); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM ace_experiment_tally(NEW, 1); END IF;
  RETURN NULL;
END $$;
