-- DropIndex
DROP INDEX "ExperimentExposure_experimentId_phase_variant_idx";

-- DropIndex
DROP INDEX "Trace_experiment_experimentPhase_idx";

-- AlterTable
ALTER TABLE "ExperimentExposure" ADD COLUMN     "costN" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "costSq" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "costSum" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "durationN" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "durationSq" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "durationSum" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "failure" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "fromTrace" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "success" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "tokensN" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "tokensSq" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "tokensSum" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "traces" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "unknown" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "ExperimentTally" (
    "experimentId" UUID NOT NULL,
    "phase" INTEGER NOT NULL,
    "variant" TEXT NOT NULL,
    "playbookVersion" INTEGER NOT NULL,
    "day" DATE NOT NULL,
    "units" INTEGER NOT NULL DEFAULT 0,
    "crossovers" INTEGER NOT NULL DEFAULT 0,
    "withoutUnit" INTEGER NOT NULL DEFAULT 0,
    "decidedUnits" INTEGER NOT NULL DEFAULT 0,
    "multiTraceUnits" INTEGER NOT NULL DEFAULT 0,
    "traces" INTEGER NOT NULL DEFAULT 0,
    "success" INTEGER NOT NULL DEFAULT 0,
    "failure" INTEGER NOT NULL DEFAULT 0,
    "unknown" INTEGER NOT NULL DEFAULT 0,
    "costN" INTEGER NOT NULL DEFAULT 0,
    "costSum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "costSq" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "tokensN" INTEGER NOT NULL DEFAULT 0,
    "tokensSum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "tokensSq" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "durationN" INTEGER NOT NULL DEFAULT 0,
    "durationSum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "durationSq" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "successSq" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "decidedSq" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "successDecided" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "ExperimentTally_pkey" PRIMARY KEY ("experimentId","phase","variant","playbookVersion","day")
);

-- CreateTable
CREATE TABLE "ExperimentTask" (
    "experimentId" UUID NOT NULL,
    "phase" INTEGER NOT NULL,
    "taskId" TEXT NOT NULL,
    "variant" TEXT NOT NULL,
    "firstAt" TIMESTAMP(3) NOT NULL,
    "traceId" UUID NOT NULL,
    "success" BOOLEAN NOT NULL,

    CONSTRAINT "ExperimentTask_pkey" PRIMARY KEY ("experimentId","phase","taskId","variant")
);

-- CreateTable
CREATE TABLE "ExperimentPaired" (
    "experimentId" UUID NOT NULL,
    "phase" INTEGER NOT NULL,
    "variant" TEXT NOT NULL,
    "tasks" INTEGER NOT NULL DEFAULT 0,
    "bothSuccess" INTEGER NOT NULL DEFAULT 0,
    "onlyControl" INTEGER NOT NULL DEFAULT 0,
    "onlyVariant" INTEGER NOT NULL DEFAULT 0,
    "bothFail" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ExperimentPaired_pkey" PRIMARY KEY ("experimentId","phase","variant")
);

-- CreateIndex
CREATE INDEX "Trace_experiment_experimentPhase_taskId_idx" ON "Trace"("experiment", "experimentPhase", "taskId");

-- AddForeignKey
ALTER TABLE "ExperimentTally" ADD CONSTRAINT "ExperimentTally_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentTask" ADD CONSTRAINT "ExperimentTask_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentPaired" ADD CONSTRAINT "ExperimentPaired_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- Experiment results read rollups instead of traces: results for 200,000 traces read a few dozen
-- rows. Triggers keep them exact through every write, whoever makes it, as the metrics rollups are:
--   "Trace" → "ExperimentExposure": each unit's tallies in its phase (traces, outcomes, the sums and
--     sums of squares of cost, tokens and duration); a unit's first trace records its exposure, and a
--     trace in another variant than the unit's first marks it a crossover. A trace without a unitId
--     is a unit of its own ("trace:<id>").
--   "Trace" → "ExperimentTask": the first decided trace per task and variant, and "ExperimentPaired":
--     per variant, the four cells of the paired table against the control (each write takes the
--     affected tasks' pairs off before it and adds them back after it).
--   "ExperimentExposure" → "ExperimentTally": per variant, playbook version served and UTC day of
--     first exposure, the sums over units (crossovers apart), including the per-unit ratio sums
--     Σx², Σy², Σxy (x = a unit's successes, y = its decided traces) of the delta method.
-- Counts are added and subtracted in place, never recomputed from a snapshot, so concurrent writers
-- cannot overwrite each other's. Deletes only ever update or delete rollup rows (never insert), so a
-- playbook's or an experiment's cascade cannot insert a row whose experiment is already gone.

-- The columns of a trace the experiment rollups read.
CREATE TYPE ace_experiment_trace AS (
  id UUID, experiment TEXT, phase INTEGER, "unitId" TEXT, "taskId" TEXT, variant TEXT, outcome "TraceOutcome",
  "costUsd" DOUBLE PRECISION, tokens DOUBLE PRECISION, "durationMs" INTEGER, "playbookVersion" INTEGER, "timestamp" TIMESTAMP(3)
);

CREATE FUNCTION ace_experiment_trace_of(t "Trace") RETURNS ace_experiment_trace LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(t.id, t.experiment, t."experimentPhase", t."unitId", t."taskId", t.variant, t.outcome, t."costUsd",
    CASE WHEN t."inputTokens" IS NULL AND t."outputTokens" IS NULL THEN NULL
         ELSE COALESCE(t."inputTokens", 0)::float8 + COALESCE(t."outputTokens", 0)::float8 END,
    t."durationMs", t."playbookVersion", t."timestamp")::ace_experiment_trace
$$;

CREATE TYPE ace_experiment_task_key AS ("experimentId" UUID, phase INTEGER, "taskId" TEXT);
CREATE TYPE ace_experiment_pair_cells AS (
  "experimentId" UUID, phase INTEGER, variant TEXT, tasks INTEGER, "bothSuccess" INTEGER, "onlyControl" INTEGER,
  "onlyVariant" INTEGER, "bothFail" INTEGER
);

-- The paired cells these tasks make now: each task's control row against its other variants' rows.
CREATE FUNCTION ace_experiment_pair_cells(keys ace_experiment_task_key[]) RETURNS SETOF ace_experiment_pair_cells
LANGUAGE sql STABLE AS $$
  SELECT v."experimentId", v.phase, v.variant, count(*)::int,
    (count(*) FILTER (WHERE c.success AND v.success))::int, (count(*) FILTER (WHERE c.success AND NOT v.success))::int,
    (count(*) FILTER (WHERE NOT c.success AND v.success))::int, (count(*) FILTER (WHERE NOT c.success AND NOT v.success))::int
  FROM (SELECT DISTINCT k."experimentId", k.phase, k."taskId" FROM unnest(keys) AS k) k
  JOIN "ExperimentVariant" control ON control."experimentId" = k."experimentId" AND control.position = 0
  JOIN "ExperimentTask" c ON c."experimentId" = k."experimentId" AND c.phase = k.phase AND c."taskId" = k."taskId" AND c.variant = control.key
  JOIN "ExperimentTask" v ON v."experimentId" = k."experimentId" AND v.phase = k.phase AND v."taskId" = k."taskId" AND v.variant <> control.key
  GROUP BY 1, 2, 3
$$;

-- Moves "ExperimentPaired" from the cells the tasks made before a change to those they make now.
CREATE FUNCTION ace_experiment_pairs_apply(before ace_experiment_pair_cells[], keys ace_experiment_task_key[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ExperimentPaired" AS g ("experimentId", phase, variant, tasks, "bothSuccess", "onlyControl", "onlyVariant", "bothFail")
  SELECT d."experimentId", d.phase, d.variant, sum(d.sign * d.tasks), sum(d.sign * d."bothSuccess"), sum(d.sign * d."onlyControl"),
    sum(d.sign * d."onlyVariant"), sum(d.sign * d."bothFail")
  FROM (
    SELECT a.*, 1 AS sign FROM ace_experiment_pair_cells(keys) AS a
    UNION ALL
    SELECT b.*, -1 AS sign FROM unnest(before) AS b
  ) d
  JOIN "Experiment" e ON e.id = d."experimentId"
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT ("experimentId", phase, variant) DO UPDATE SET
    tasks = g.tasks + EXCLUDED.tasks,
    "bothSuccess" = g."bothSuccess" + EXCLUDED."bothSuccess",
    "onlyControl" = g."onlyControl" + EXCLUDED."onlyControl",
    "onlyVariant" = g."onlyVariant" + EXCLUDED."onlyVariant",
    "bothFail" = g."bothFail" + EXCLUDED."bothFail";
END $$;

-- Adds traces to their units' tallies and their tasks' first decided traces.
CREATE FUNCTION ace_experiment_traces_add(rows ace_experiment_trace[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_keys ace_experiment_task_key[] := ARRAY(
    SELECT DISTINCT ROW(e.id, t.phase, t."taskId")::ace_experiment_task_key
    FROM unnest(rows) AS t JOIN "Experiment" e ON e.key = t.experiment
    WHERE t.phase IS NOT NULL AND t.variant IS NOT NULL AND t."taskId" IS NOT NULL AND t.outcome <> 'unknown');
  v_before ace_experiment_pair_cells[];
BEGIN
  -- Ordered by the tally row each unit lands in, so concurrent batches take those rows' locks in one order.
  INSERT INTO "ExperimentExposure" AS x ("experimentId", phase, "unitId", variant, "firstSeenAt", "playbookVersion", crossover,
    "fromTrace", traces, success, failure, unknown, "costN", "costSum", "costSq", "tokensN", "tokensSum", "tokensSq",
    "durationN", "durationSum", "durationSq")
  SELECT e.id, t.phase, COALESCE(t."unitId", 'trace:' || t.id::text),
    (array_agg(t.variant ORDER BY t.id))[1], min(t."timestamp"), (array_agg(t."playbookVersion" ORDER BY t.id))[1],
    count(DISTINCT t.variant) > 1, bool_or(t."unitId" IS NULL),
    count(*), count(*) FILTER (WHERE t.outcome = 'success'), count(*) FILTER (WHERE t.outcome = 'failure'),
    count(*) FILTER (WHERE t.outcome = 'unknown'),
    count(t."costUsd"), COALESCE(sum(t."costUsd"), 0), COALESCE(sum(t."costUsd" * t."costUsd"), 0),
    count(t.tokens), COALESCE(sum(t.tokens), 0), COALESCE(sum(t.tokens * t.tokens), 0),
    count(t."durationMs"), COALESCE(sum(t."durationMs"::float8), 0), COALESCE(sum(t."durationMs"::float8 * t."durationMs"::float8), 0)
  FROM unnest(rows) AS t JOIN "Experiment" e ON e.key = t.experiment
  WHERE t.phase IS NOT NULL AND t.variant IS NOT NULL
  GROUP BY e.id, t.phase, COALESCE(t."unitId", 'trace:' || t.id::text)
  ORDER BY 1, 2, 4, 6, 5, 3
  ON CONFLICT ("experimentId", phase, "unitId") DO UPDATE SET
    crossover = x.crossover OR EXCLUDED.crossover OR x.variant <> EXCLUDED.variant,
    "firstSeenAt" = LEAST(x."firstSeenAt", EXCLUDED."firstSeenAt"),
    "playbookVersion" = COALESCE(x."playbookVersion", EXCLUDED."playbookVersion"),
    traces = x.traces + EXCLUDED.traces,
    success = x.success + EXCLUDED.success,
    failure = x.failure + EXCLUDED.failure,
    unknown = x.unknown + EXCLUDED.unknown,
    "costN" = x."costN" + EXCLUDED."costN",
    "costSum" = x."costSum" + EXCLUDED."costSum",
    "costSq" = x."costSq" + EXCLUDED."costSq",
    "tokensN" = x."tokensN" + EXCLUDED."tokensN",
    "tokensSum" = x."tokensSum" + EXCLUDED."tokensSum",
    "tokensSq" = x."tokensSq" + EXCLUDED."tokensSq",
    "durationN" = x."durationN" + EXCLUDED."durationN",
    "durationSum" = x."durationSum" + EXCLUDED."durationSum",
    "durationSq" = x."durationSq" + EXCLUDED."durationSq";

  IF cardinality(v_keys) = 0 THEN RETURN; END IF;
  v_before := ARRAY(SELECT c FROM ace_experiment_pair_cells(v_keys) AS c);
  INSERT INTO "ExperimentTask" AS k ("experimentId", phase, "taskId", variant, "firstAt", "traceId", success)
  SELECT DISTINCT ON (e.id, t.phase, t."taskId", t.variant) e.id, t.phase, t."taskId", t.variant, t."timestamp", t.id, t.outcome = 'success'
  FROM unnest(rows) AS t JOIN "Experiment" e ON e.key = t.experiment
  WHERE t.phase IS NOT NULL AND t.variant IS NOT NULL AND t."taskId" IS NOT NULL AND t.outcome <> 'unknown'
  ORDER BY e.id, t.phase, t."taskId", t.variant, t."timestamp", t.id
  ON CONFLICT ("experimentId", phase, "taskId", variant) DO UPDATE SET
    "firstAt" = EXCLUDED."firstAt", "traceId" = EXCLUDED."traceId", success = EXCLUDED.success
  WHERE (EXCLUDED."firstAt", EXCLUDED."traceId") < (k."firstAt", k."traceId");
  PERFORM ace_experiment_pairs_apply(v_before, v_keys);
END $$;

-- Takes traces off their units' tallies; a task whose first decided trace went takes its next one.
-- A unit stays a crossover once marked, and an exposure stays recorded (an assignment made it, or
-- the unit may return); a "trace:<id>" unit goes with its trace.
CREATE FUNCTION ace_experiment_traces_remove(rows ace_experiment_trace[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_keys ace_experiment_task_key[] := ARRAY(
    SELECT DISTINCT ROW(e.id, t.phase, t."taskId")::ace_experiment_task_key
    FROM unnest(rows) AS t JOIN "Experiment" e ON e.key = t.experiment
    WHERE t.phase IS NOT NULL AND t.variant IS NOT NULL AND t."taskId" IS NOT NULL AND t.outcome <> 'unknown');
  v_before ace_experiment_pair_cells[];
BEGIN
  UPDATE "ExperimentExposure" x SET
    traces = x.traces - g.traces,
    success = x.success - g.success,
    failure = x.failure - g.failure,
    unknown = x.unknown - g.unknown,
    "costN" = x."costN" - g."costN",
    "costSum" = x."costSum" - g."costSum",
    "costSq" = x."costSq" - g."costSq",
    "tokensN" = x."tokensN" - g."tokensN",
    "tokensSum" = x."tokensSum" - g."tokensSum",
    "tokensSq" = x."tokensSq" - g."tokensSq",
    "durationN" = x."durationN" - g."durationN",
    "durationSum" = x."durationSum" - g."durationSum",
    "durationSq" = x."durationSq" - g."durationSq"
  FROM (
    SELECT e.id AS "experimentId", t.phase, COALESCE(t."unitId", 'trace:' || t.id::text) AS "unitId",
      count(*)::int AS traces, (count(*) FILTER (WHERE t.outcome = 'success'))::int AS success,
      (count(*) FILTER (WHERE t.outcome = 'failure'))::int AS failure, (count(*) FILTER (WHERE t.outcome = 'unknown'))::int AS unknown,
      count(t."costUsd")::int AS "costN", COALESCE(sum(t."costUsd"), 0) AS "costSum", COALESCE(sum(t."costUsd" * t."costUsd"), 0) AS "costSq",
      count(t.tokens)::int AS "tokensN", COALESCE(sum(t.tokens), 0) AS "tokensSum", COALESCE(sum(t.tokens * t.tokens), 0) AS "tokensSq",
      count(t."durationMs")::int AS "durationN", COALESCE(sum(t."durationMs"::float8), 0) AS "durationSum",
      COALESCE(sum(t."durationMs"::float8 * t."durationMs"::float8), 0) AS "durationSq"
    FROM unnest(rows) AS t JOIN "Experiment" e ON e.key = t.experiment
    WHERE t.phase IS NOT NULL AND t.variant IS NOT NULL
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3
  ) g
  WHERE x."experimentId" = g."experimentId" AND x.phase = g.phase AND x."unitId" = g."unitId";

  DELETE FROM "ExperimentExposure" x
  USING unnest(rows) AS t JOIN "Experiment" e ON e.key = t.experiment
  WHERE t."unitId" IS NULL AND t.phase IS NOT NULL AND x."experimentId" = e.id AND x.phase = t.phase
    AND x."unitId" = 'trace:' || t.id::text AND x."fromTrace" AND x.traces <= 0;

  IF cardinality(v_keys) = 0 THEN RETURN; END IF;
  v_before := ARRAY(SELECT c FROM ace_experiment_pair_cells(v_keys) AS c);
  WITH gone AS (
    DELETE FROM "ExperimentTask" k
    USING unnest(rows) AS t JOIN "Experiment" e ON e.key = t.experiment
    WHERE k."experimentId" = e.id AND k.phase = t.phase AND k."taskId" = t."taskId" AND k.variant = t.variant AND k."traceId" = t.id
    RETURNING k."experimentId", k.phase, k."taskId", k.variant, e.key
  )
  INSERT INTO "ExperimentTask" ("experimentId", phase, "taskId", variant, "firstAt", "traceId", success)
  SELECT DISTINCT ON (g."experimentId", g.phase, g."taskId", g.variant) g."experimentId", g.phase, g."taskId", g.variant, t."timestamp", t.id,
    t.outcome = 'success'
  FROM gone g
  JOIN "Trace" t ON t.experiment = g.key AND t."experimentPhase" = g.phase AND t."taskId" = g."taskId" AND t.variant = g.variant
    AND t.outcome <> 'unknown' AND t.id <> ALL (SELECT r.id FROM unnest(rows) AS r)
  ORDER BY g."experimentId", g.phase, g."taskId", g.variant, t."timestamp", t.id
  ON CONFLICT DO NOTHING;
  PERFORM ace_experiment_pairs_apply(v_before, v_keys);
END $$;

CREATE FUNCTION ace_experiment_trace_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ace_experiment_traces_add(ARRAY(SELECT ace_experiment_trace_of(t) FROM new_rows t WHERE t."experimentPhase" IS NOT NULL));
  RETURN NULL;
END $$;

CREATE FUNCTION ace_experiment_trace_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ace_experiment_traces_remove(ARRAY(SELECT ace_experiment_trace_of(o) FROM old_rows o WHERE o."experimentPhase" IS NOT NULL));
  RETURN NULL;
END $$;

CREATE FUNCTION ace_experiment_trace_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD."experimentPhase" IS NOT NULL THEN PERFORM ace_experiment_traces_remove(ARRAY[ace_experiment_trace_of(OLD)]); END IF;
  IF NEW."experimentPhase" IS NOT NULL THEN PERFORM ace_experiment_traces_add(ARRAY[ace_experiment_trace_of(NEW)]); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER ace_experiment_trace_insert AFTER INSERT ON "Trace"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ace_experiment_trace_insert();
CREATE TRIGGER ace_experiment_trace_delete AFTER DELETE ON "Trace"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ace_experiment_trace_delete();
CREATE TRIGGER ace_experiment_trace_update
  AFTER UPDATE OF experiment, "experimentPhase", "unitId", "taskId", variant, outcome, "costUsd", "inputTokens", "outputTokens",
    "durationMs", "playbookVersion", "timestamp" ON "Trace"
  FOR EACH ROW WHEN (OLD."experimentPhase" IS NOT NULL OR NEW."experimentPhase" IS NOT NULL)
  EXECUTE FUNCTION ace_experiment_trace_update();

-- ---- Exposures → tallies ----------------------------------------------------------------------

-- Adds (sign 1) or takes off (sign -1) one unit's contribution to its tally row. A crossover counts
-- as a crossover and nothing else.
CREATE FUNCTION ace_experiment_tally(x "ExperimentExposure", sign INTEGER) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_kept INTEGER := CASE WHEN x.crossover THEN 0 ELSE sign END;
  v_decided DOUBLE PRECISION := x.success + x.failure;
  v_version INTEGER := COALESCE(x."playbookVersion", -1);
  v_day DATE := date_trunc('day', x."firstSeenAt")::date;
BEGIN
  IF sign < 0 THEN
    UPDATE "ExperimentTally" g SET
      units = g.units + v_kept,
      crossovers = g.crossovers - x.crossover::int,
      "withoutUnit" = g."withoutUnit" + v_kept * x."fromTrace"::int,
      "decidedUnits" = g."decidedUnits" + v_kept * (v_decided > 0)::int,
      "multiTraceUnits" = g."multiTraceUnits" + v_kept * (v_decided >= 2)::int,
      traces = g.traces + v_kept * x.traces,
      success = g.success + v_kept * x.success,
      failure = g.failure + v_kept * x.failure,
      unknown = g.unknown + v_kept * x.unknown,
      "costN" = g."costN" + v_kept * x."costN",
      "costSum" = g."costSum" + v_kept * x."costSum",
      "costSq" = g."costSq" + v_kept * x."costSq",
      "tokensN" = g."tokensN" + v_kept * x."tokensN",
      "tokensSum" = g."tokensSum" + v_kept * x."tokensSum",
      "tokensSq" = g."tokensSq" + v_kept * x."tokensSq",
      "durationN" = g."durationN" + v_kept * x."durationN",
      "durationSum" = g."durationSum" + v_kept * x."durationSum",
      "durationSq" = g."durationSq" + v_kept * x."durationSq",
      "successSq" = g."successSq" + v_kept * x.success::float8 * x.success,
      "decidedSq" = g."decidedSq" + v_kept * v_decided * v_decided,
      "successDecided" = g."successDecided" + v_kept * x.success * v_decided
    WHERE g."experimentId" = x."experimentId" AND g.phase = x.phase AND g.variant = x.variant
      AND g."playbookVersion" = v_version AND g.day = v_day;
  ELSE
    INSERT INTO "ExperimentTally" AS g ("experimentId", phase, variant, "playbookVersion", day, units, crossovers, "withoutUnit",
      "decidedUnits", "multiTraceUnits", traces, success, failure, unknown, "costN", "costSum", "costSq", "tokensN", "tokensSum",
      "tokensSq", "durationN", "durationSum", "durationSq", "successSq", "decidedSq", "successDecided")
    VALUES (x."experimentId", x.phase, x.variant, v_version, v_day, v_kept, x.crossover::int, v_kept * x."fromTrace"::int,
      v_kept * (v_decided > 0)::int, v_kept * (v_decided >= 2)::int, v_kept * x.traces, v_kept * x.success, v_kept * x.failure,
      v_kept * x.unknown, v_kept * x."costN", v_kept * x."costSum", v_kept * x."costSq", v_kept * x."tokensN", v_kept * x."tokensSum",
      v_kept * x."tokensSq", v_kept * x."durationN", v_kept * x."durationSum", v_kept * x."durationSq",
      v_kept * x.success::float8 * x.success, v_kept * v_decided * v_decided, v_kept * x.success * v_decided)
    ON CONFLICT ("experimentId", phase, variant, "playbookVersion", day) DO UPDATE SET
      units = g.units + EXCLUDED.units,
      crossovers = g.crossovers + EXCLUDED.crossovers,
      "withoutUnit" = g."withoutUnit" + EXCLUDED."withoutUnit",
      "decidedUnits" = g."decidedUnits" + EXCLUDED."decidedUnits",
      "multiTraceUnits" = g."multiTraceUnits" + EXCLUDED."multiTraceUnits",
      traces = g.traces + EXCLUDED.traces,
      success = g.success + EXCLUDED.success,
      failure = g.failure + EXCLUDED.failure,
      unknown = g.unknown + EXCLUDED.unknown,
      "costN" = g."costN" + EXCLUDED."costN",
      "costSum" = g."costSum" + EXCLUDED."costSum",
      "costSq" = g."costSq" + EXCLUDED."costSq",
      "tokensN" = g."tokensN" + EXCLUDED."tokensN",
      "tokensSum" = g."tokensSum" + EXCLUDED."tokensSum",
      "tokensSq" = g."tokensSq" + EXCLUDED."tokensSq",
      "durationN" = g."durationN" + EXCLUDED."durationN",
      "durationSum" = g."durationSum" + EXCLUDED."durationSum",
      "durationSq" = g."durationSq" + EXCLUDED."durationSq",
      "successSq" = g."successSq" + EXCLUDED."successSq",
      "decidedSq" = g."decidedSq" + EXCLUDED."decidedSq",
      "successDecided" = g."successDecided" + EXCLUDED."successDecided";
  END IF;
END $$;

CREATE FUNCTION ace_experiment_exposure_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM ace_experiment_tally(OLD, -1); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN PERFORM ace_experiment_tally(NEW, 1); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER ace_experiment_exposure_write AFTER INSERT OR DELETE ON "ExperimentExposure"
  FOR EACH ROW EXECUTE FUNCTION ace_experiment_exposure_change();
CREATE TRIGGER ace_experiment_exposure_update AFTER UPDATE ON "ExperimentExposure"
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION ace_experiment_exposure_change();
