-- Hourly rollups of traces and runs: the metrics read these instead of every row (a 90-day by-day
-- call over 100,000 traces reads about 2,000 rows). Triggers keep them exact through every write,
-- whoever makes it: an insert adds its rows' counts, a delete takes them off, an update of a counted
-- column moves a row's counts from its old hour to its new one. Counts are added and subtracted in
-- place, never recomputed from a snapshot, so concurrent writers cannot overwrite each other's.
-- Durations and latencies are kept as values, not summaries, so quantiles stay exact
-- (percentile_cont over unnest). Inserts and deletes are statement triggers over the transition
-- table (one upsert per hour for a batch of 1,000); updates are row triggers, because PostgreSQL
-- allows a column list (the counted columns only: a reflection setting reflectedAt costs nothing)
-- only without transition tables.

-- CreateTable
CREATE TABLE "TraceHourly" (
    "playbookId" UUID NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "experiment" TEXT NOT NULL DEFAULT '',
    "variant" TEXT NOT NULL DEFAULT '',
    "traces" INTEGER NOT NULL DEFAULT 0,
    "success" INTEGER NOT NULL DEFAULT 0,
    "failure" INTEGER NOT NULL DEFAULT 0,
    "unknown" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "outputTokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "uncosted" INTEGER NOT NULL DEFAULT 0,
    "durations" INTEGER[] DEFAULT ARRAY[]::INTEGER[],

    CONSTRAINT "TraceHourly_pkey" PRIMARY KEY ("playbookId","hour","experiment","variant")
);

-- CreateTable
CREATE TABLE "RunHourly" (
    "playbookId" UUID NOT NULL,
    "hour" TIMESTAMP(3) NOT NULL,
    "role" "RunRole" NOT NULL,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "retried" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "outputTokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "uncosted" INTEGER NOT NULL DEFAULT 0,
    "latencies" INTEGER[] DEFAULT ARRAY[]::INTEGER[],

    CONSTRAINT "RunHourly_pkey" PRIMARY KEY ("playbookId","hour","role")
);

-- AddForeignKey
ALTER TABLE "TraceHourly" ADD CONSTRAINT "TraceHourly_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunHourly" ADD CONSTRAINT "RunHourly_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- `vals` without one occurrence of each element of `gone` (a multiset difference; order not kept).
CREATE FUNCTION ace_remove_values(vals INTEGER[], gone INTEGER[]) RETURNS INTEGER[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT COALESCE(array_agg(kept.v), ARRAY[]::INTEGER[])
  FROM (
    SELECT v, row_number() OVER (PARTITION BY v) AS n FROM unnest(COALESCE(vals, ARRAY[]::INTEGER[])) AS v
  ) kept
  LEFT JOIN (
    SELECT g, count(*) AS n FROM unnest(COALESCE(gone, ARRAY[]::INTEGER[])) AS g GROUP BY g
  ) removed ON removed.g = kept.v
  WHERE kept.n > COALESCE(removed.n, 0)
$$;

-- ---- Traces ---------------------------------------------------------------------------------

CREATE FUNCTION ace_trace_hourly_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "TraceHourly" AS h ("playbookId", hour, experiment, variant, traces, success, failure, unknown,
    "inputTokens", "outputTokens", "costUsd", uncosted, durations)
  SELECT t."playbookId", date_trunc('hour', t."timestamp"), COALESCE(t.experiment, ''), COALESCE(t.variant, ''),
    count(*), count(*) FILTER (WHERE t.outcome = 'success'), count(*) FILTER (WHERE t.outcome = 'failure'),
    count(*) FILTER (WHERE t.outcome = 'unknown'), COALESCE(sum(t."inputTokens"), 0), COALESCE(sum(t."outputTokens"), 0),
    COALESCE(sum(t."costUsd"), 0), count(*) FILTER (WHERE t."costUsd" IS NULL),
    COALESCE(array_agg(t."durationMs") FILTER (WHERE t."durationMs" IS NOT NULL), ARRAY[]::INTEGER[])
  FROM new_rows t
  GROUP BY 1, 2, 3, 4
  ON CONFLICT ("playbookId", hour, experiment, variant) DO UPDATE SET
    traces = h.traces + EXCLUDED.traces,
    success = h.success + EXCLUDED.success,
    failure = h.failure + EXCLUDED.failure,
    unknown = h.unknown + EXCLUDED.unknown,
    "inputTokens" = h."inputTokens" + EXCLUDED."inputTokens",
    "outputTokens" = h."outputTokens" + EXCLUDED."outputTokens",
    "costUsd" = h."costUsd" + EXCLUDED."costUsd",
    uncosted = h.uncosted + EXCLUDED.uncosted,
    durations = COALESCE(h.durations, ARRAY[]::INTEGER[]) || EXCLUDED.durations;
  RETURN NULL;
END $$;

CREATE FUNCTION ace_trace_hourly_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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

CREATE FUNCTION ace_trace_hourly_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "TraceHourly" h SET
    traces = h.traces - 1,
    success = h.success - (OLD.outcome = 'success')::int,
    failure = h.failure - (OLD.outcome = 'failure')::int,
    unknown = h.unknown - (OLD.outcome = 'unknown')::int,
    "inputTokens" = h."inputTokens" - COALESCE(OLD."inputTokens", 0),
    "outputTokens" = h."outputTokens" - COALESCE(OLD."outputTokens", 0),
    "costUsd" = h."costUsd" - COALESCE(OLD."costUsd", 0),
    uncosted = h.uncosted - (OLD."costUsd" IS NULL)::int,
    durations = ace_remove_values(h.durations, ARRAY[OLD."durationMs"])
  WHERE h."playbookId" = OLD."playbookId" AND h.hour = date_trunc('hour', OLD."timestamp")
    AND h.experiment = COALESCE(OLD.experiment, '') AND h.variant = COALESCE(OLD.variant, '');
  INSERT INTO "TraceHourly" AS h ("playbookId", hour, experiment, variant, traces, success, failure, unknown,
    "inputTokens", "outputTokens", "costUsd", uncosted, durations)
  VALUES (NEW."playbookId", date_trunc('hour', NEW."timestamp"), COALESCE(NEW.experiment, ''), COALESCE(NEW.variant, ''), 1,
    (NEW.outcome = 'success')::int, (NEW.outcome = 'failure')::int, (NEW.outcome = 'unknown')::int,
    COALESCE(NEW."inputTokens", 0), COALESCE(NEW."outputTokens", 0), COALESCE(NEW."costUsd", 0), (NEW."costUsd" IS NULL)::int,
    array_remove(ARRAY[NEW."durationMs"], NULL))
  ON CONFLICT ("playbookId", hour, experiment, variant) DO UPDATE SET
    traces = h.traces + EXCLUDED.traces,
    success = h.success + EXCLUDED.success,
    failure = h.failure + EXCLUDED.failure,
    unknown = h.unknown + EXCLUDED.unknown,
    "inputTokens" = h."inputTokens" + EXCLUDED."inputTokens",
    "outputTokens" = h."outputTokens" + EXCLUDED."outputTokens",
    "costUsd" = h."costUsd" + EXCLUDED."costUsd",
    uncosted = h.uncosted + EXCLUDED.uncosted,
    durations = COALESCE(h.durations, ARRAY[]::INTEGER[]) || EXCLUDED.durations;
  DELETE FROM "TraceHourly" h WHERE h.traces = 0 AND h."playbookId" = OLD."playbookId" AND h.hour = date_trunc('hour', OLD."timestamp")
    AND h.experiment = COALESCE(OLD.experiment, '') AND h.variant = COALESCE(OLD.variant, '');
  RETURN NULL;
END $$;

CREATE TRIGGER "Trace_hourly_insert" AFTER INSERT ON "Trace"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ace_trace_hourly_insert();
CREATE TRIGGER "Trace_hourly_delete" AFTER DELETE ON "Trace"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ace_trace_hourly_delete();
CREATE TRIGGER "Trace_hourly_update"
  AFTER UPDATE OF "playbookId", "timestamp", experiment, variant, outcome, "inputTokens", "outputTokens", "costUsd", "durationMs" ON "Trace"
  FOR EACH ROW
  WHEN ((OLD."playbookId", OLD."timestamp", OLD.experiment, OLD.variant, OLD.outcome, OLD."inputTokens", OLD."outputTokens", OLD."costUsd", OLD."durationMs")
    IS DISTINCT FROM (NEW."playbookId", NEW."timestamp", NEW.experiment, NEW.variant, NEW.outcome, NEW."inputTokens", NEW."outputTokens", NEW."costUsd", NEW."durationMs"))
  EXECUTE FUNCTION ace_trace_hourly_update();

-- ---- Runs -----------------------------------------------------------------------------------

CREATE FUNCTION ace_run_hourly_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "RunHourly" AS h ("playbookId", hour, role, runs, failed, retried, "inputTokens", "outputTokens", "costUsd",
    uncosted, latencies)
  SELECT r."playbookId", date_trunc('hour', r."createdAt"), r.role, count(*), count(*) FILTER (WHERE r.status = 'failed'),
    count(*) FILTER (WHERE r.attempts > 1), COALESCE(sum(r."inputTokens"), 0), COALESCE(sum(r."outputTokens"), 0),
    COALESCE(sum(r."costUsd"), 0), count(*) FILTER (WHERE r."costUsd" IS NULL),
    COALESCE(array_agg(r."latencyMs") FILTER (WHERE r."latencyMs" IS NOT NULL), ARRAY[]::INTEGER[])
  FROM new_rows r
  GROUP BY 1, 2, 3
  ON CONFLICT ("playbookId", hour, role) DO UPDATE SET
    runs = h.runs + EXCLUDED.runs,
    failed = h.failed + EXCLUDED.failed,
    retried = h.retried + EXCLUDED.retried,
    "inputTokens" = h."inputTokens" + EXCLUDED."inputTokens",
    "outputTokens" = h."outputTokens" + EXCLUDED."outputTokens",
    "costUsd" = h."costUsd" + EXCLUDED."costUsd",
    uncosted = h.uncosted + EXCLUDED.uncosted,
    latencies = COALESCE(h.latencies, ARRAY[]::INTEGER[]) || EXCLUDED.latencies;
  RETURN NULL;
END $$;

CREATE FUNCTION ace_run_hourly_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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

CREATE FUNCTION ace_run_hourly_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "RunHourly" h SET
    runs = h.runs - 1,
    failed = h.failed - (OLD.status = 'failed')::int,
    retried = h.retried - (OLD.attempts > 1)::int,
    "inputTokens" = h."inputTokens" - OLD."inputTokens",
    "outputTokens" = h."outputTokens" - OLD."outputTokens",
    "costUsd" = h."costUsd" - COALESCE(OLD."costUsd", 0),
    uncosted = h.uncosted - (OLD."costUsd" IS NULL)::int,
    latencies = ace_remove_values(h.latencies, ARRAY[OLD."latencyMs"])
  WHERE h."playbookId" = OLD."playbookId" AND h.hour = date_trunc('hour', OLD."createdAt") AND h.role = OLD.role;
  INSERT INTO "RunHourly" AS h ("playbookId", hour, role, runs, failed, retried, "inputTokens", "outputTokens", "costUsd",
    uncosted, latencies)
  VALUES (NEW."playbookId", date_trunc('hour', NEW."createdAt"), NEW.role, 1, (NEW.status = 'failed')::int, (NEW.attempts > 1)::int,
    NEW."inputTokens", NEW."outputTokens", COALESCE(NEW."costUsd", 0), (NEW."costUsd" IS NULL)::int, array_remove(ARRAY[NEW."latencyMs"], NULL))
  ON CONFLICT ("playbookId", hour, role) DO UPDATE SET
    runs = h.runs + EXCLUDED.runs,
    failed = h.failed + EXCLUDED.failed,
    retried = h.retried + EXCLUDED.retried,
    "inputTokens" = h."inputTokens" + EXCLUDED."inputTokens",
    "outputTokens" = h."outputTokens" + EXCLUDED."outputTokens",
    "costUsd" = h."costUsd" + EXCLUDED."costUsd",
    uncosted = h.uncosted + EXCLUDED.uncosted,
    latencies = COALESCE(h.latencies, ARRAY[]::INTEGER[]) || EXCLUDED.latencies;
  DELETE FROM "RunHourly" h
  WHERE h.runs = 0 AND h."playbookId" = OLD."playbookId" AND h.hour = date_trunc('hour', OLD."createdAt") AND h.role = OLD.role;
  RETURN NULL;
END $$;

CREATE TRIGGER "Run_hourly_insert" AFTER INSERT ON "Run"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ace_run_hourly_insert();
CREATE TRIGGER "Run_hourly_delete" AFTER DELETE ON "Run"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ace_run_hourly_delete();
CREATE TRIGGER "Run_hourly_update"
  AFTER UPDATE OF "playbookId", "createdAt", role, status, attempts, "inputTokens", "outputTokens", "costUsd", "latencyMs" ON "Run"
  FOR EACH ROW
  WHEN ((OLD."playbookId", OLD."createdAt", OLD.role, OLD.status, OLD.attempts, OLD."inputTokens", OLD."outputTokens", OLD."costUsd", OLD."latencyMs")
    IS DISTINCT FROM (NEW."playbookId", NEW."createdAt", NEW.role, NEW.status, NEW.attempts, NEW."inputTokens", NEW."outputTokens", NEW."costUsd", NEW."latencyMs"))
  EXECUTE FUNCTION ace_run_hourly_update();

-- ---- Backfill: the rows written before the rollups ----------------------------------------

INSERT INTO "TraceHourly" ("playbookId", hour, experiment, variant, traces, success, failure, unknown, "inputTokens",
  "outputTokens", "costUsd", uncosted, durations)
SELECT t."playbookId", date_trunc('hour', t."timestamp"), COALESCE(t.experiment, ''), COALESCE(t.variant, ''), count(*),
  count(*) FILTER (WHERE t.outcome = 'success'), count(*) FILTER (WHERE t.outcome = 'failure'),
  count(*) FILTER (WHERE t.outcome = 'unknown'), COALESCE(sum(t."inputTokens"), 0), COALESCE(sum(t."outputTokens"), 0),
  COALESCE(sum(t."costUsd"), 0), count(*) FILTER (WHERE t."costUsd" IS NULL),
  COALESCE(array_agg(t."durationMs") FILTER (WHERE t."durationMs" IS NOT NULL), ARRAY[]::INTEGER[])
FROM "Trace" t
GROUP BY 1, 2, 3, 4;

INSERT INTO "RunHourly" ("playbookId", hour, role, runs, failed, retried, "inputTokens", "outputTokens", "costUsd", uncosted, latencies)
SELECT r."playbookId", date_trunc('hour', r."createdAt"), r.role, count(*), count(*) FILTER (WHERE r.status = 'failed'),
  count(*) FILTER (WHERE r.attempts > 1), COALESCE(sum(r."inputTokens"), 0), COALESCE(sum(r."outputTokens"), 0),
  COALESCE(sum(r."costUsd"), 0), count(*) FILTER (WHERE r."costUsd" IS NULL),
  COALESCE(array_agg(r."latencyMs") FILTER (WHERE r."latencyMs" IS NOT NULL), ARRAY[]::INTEGER[])
FROM "Run" r
GROUP BY 1, 2, 3;
