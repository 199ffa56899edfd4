// Bulk seeding for the metrics and experiment benchmarks: a playbook's history, 100,000 traces and
// runs, an experiment's 200,000 traces, each in a few statements rather than one service call per
// row (which would take minutes). The rows are what the services write; the rollup triggers of the
// metrics_rollups and experiment_tallies migrations fire on these inserts as on any other, and the
// version figures are filled by the production backfill (server/metrics/figures.ts).
import { countBulletTokens } from "@/server/ace/tokens";
import type { BulletState } from "@/server/ace/history";
import { Prisma, type Db, type DbOrTx } from "@/server/db/client";
import type { History, HistoryDelta } from "./history-data";

/** A UTC instant as the timestamp-without-zone the columns hold. */
const utc = (time: Date) => Prisma.sql`(${time.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;
const json = (value: unknown) => Prisma.sql`${JSON.stringify(value)}::json`;

/** Rows per INSERT: bounds the size of one statement's parameters and of its trigger's transition table. */
const CHUNK = 25_000;

/** Moves a freshly imported playbook's versions, figures and creation back to `at`. */
export async function backdatePlaybook(db: Db, playbookId: string, at: Date): Promise<void> {
  await db.$transaction([
    db.$executeRaw`UPDATE "Playbook" SET "createdAt" = ${utc(at)} WHERE id = ${playbookId}::uuid`,
    db.$executeRaw`UPDATE "PlaybookVersion" SET "createdAt" = ${utc(at)} WHERE "playbookId" = ${playbookId}::uuid`,
    db.$executeRaw`UPDATE "PlaybookFigures" SET "recordedAt" = ${utc(at)} WHERE "playbookId" = ${playbookId}::uuid`,
    db.$executeRaw`UPDATE "Delta" SET "createdAt" = ${utc(at)}, "decidedAt" = ${utc(at)} WHERE "playbookId" = ${playbookId}::uuid`,
  ]);
}

function deltaRow(playbookId: string, delta: HistoryDelta, appliedVersion: number | null) {
  return {
    id: delta.id,
    playbookId,
    status: delta.status,
    origin: delta.origin,
    author: delta.author,
    rationale: delta.rationale,
    baseVersion: delta.baseVersion,
    appliedVersion,
    decidedBy: delta.decidedBy,
    decidedAt: delta.decidedAt?.toISOString() ?? null,
    createdAt: delta.createdAt.toISOString(),
  };
}

function operationRows(delta: HistoryDelta, sectionIdOf: (name: string) => string | null) {
  const status = delta.status === "rejected" ? "rejected" : delta.status === "pending" ? "pending" : "approved";
  return delta.operations.map((op, position) => {
    const section = op.type === "add" ? sectionIdOf(op.section) : null;
    return {
      deltaId: delta.id,
      position,
      type: op.type,
      status,
      payload: op,
      targetIds: "bulletId" in op ? [op.bulletId] : [],
      targetSectionIds: section ? [section] : [],
    };
  });
}

/**
 * Writes a generated history after the playbook's current version: its deltas and their operations,
 * its versions, the bullets as the last version left them, and the playbook's version and id counter;
 * one transaction. Figures are left to backfillVersionFigures, as for versions from before figures.
 */
export async function writeHistory(db: Db, playbookId: string, history: History): Promise<void> {
  const sectionIds = new Map(history.state.sections.map((section) => [section.name, section.id]));
  const deltas = [
    ...history.versions.map((version) => deltaRow(playbookId, version.delta, version.number)),
    ...history.unapplied.map((delta) => deltaRow(playbookId, delta, null)),
  ];
  const operations = [...history.versions.map((version) => version.delta), ...history.unapplied].flatMap((delta) =>
    operationRows(delta, (name) => sectionIds.get(name) ?? null),
  );
  const versions = history.versions.map((version) => ({
    number: version.number,
    author: version.author,
    reason: version.reason,
    operations: version.changes,
    deltaId: version.delta.id,
    createdAt: version.createdAt.toISOString(),
  }));
  const lastTouch = new Map<string, number>();
  for (const version of history.versions) {
    for (const change of version.changes) if (change.entity === "bullet") lastTouch.set(change.id, version.number);
  }
  const bullets = [...history.touched].map((id) => {
    const bullet = history.state.bullets.get(id) as BulletState;
    return {
      ...bullet,
      origin: history.added.has(id) ? "curator" : "import",
      tokenCount: countBulletTokens(bullet),
      changedInVersion: lastTouch.get(id) ?? 0,
    };
  });
  const last = history.versions.at(-1);
  if (!last) return;

  await db.$transaction(
    async (tx) => {
      for (let start = 0; start < deltas.length; start += CHUNK) {
        await tx.$executeRaw`
          INSERT INTO "Delta" (id, "playbookId", status, origin, author, rationale, "baseVersion", "appliedVersion", evidence,
            "decidedBy", "decidedAt", "createdAt", "updatedAt")
          SELECT d.id, d."playbookId", d.status::"DeltaStatus", d.origin::"DeltaOrigin", d.author, d.rationale, d."baseVersion",
            d."appliedVersion", '{}'::jsonb, d."decidedBy", d."decidedAt", d."createdAt", COALESCE(d."decidedAt", d."createdAt")
          FROM json_to_recordset(${json(deltas.slice(start, start + CHUNK))}) AS d(id uuid, "playbookId" uuid, status text, origin text,
            author text, rationale text, "baseVersion" int, "appliedVersion" int, "decidedBy" text, "decidedAt" timestamp,
            "createdAt" timestamp)`;
      }
      for (let start = 0; start < operations.length; start += CHUNK) {
        await tx.$executeRaw`
          INSERT INTO "DeltaOperation" (id, "deltaId", position, type, status, payload, "targetIds", "targetSectionIds")
          SELECT gen_random_uuid(), o."deltaId", o.position, o.type::"OperationType", o.status::"OperationStatus", o.payload,
            ARRAY(SELECT json_array_elements_text(o."targetIds")), ARRAY(SELECT json_array_elements_text(o."targetSectionIds"))
          FROM json_to_recordset(${json(operations.slice(start, start + CHUNK))}) AS o("deltaId" uuid, position int, type text,
            status text, payload jsonb, "targetIds" json, "targetSectionIds" json)`;
      }
      for (let start = 0; start < versions.length; start += CHUNK) {
        await tx.$executeRaw`
          INSERT INTO "PlaybookVersion" (id, "playbookId", number, author, reason, operations, "deltaId", "createdAt")
          SELECT gen_random_uuid(), ${playbookId}::uuid, v.number, v.author, v.reason, v.operations, v."deltaId", v."createdAt"
          FROM json_to_recordset(${json(versions.slice(start, start + CHUNK))}) AS v(number int, author text, reason text,
            operations jsonb, "deltaId" uuid, "createdAt" timestamp)`;
      }
      await tx.$executeRaw`
        INSERT INTO "Bullet" AS b (id, "playbookId", "sectionId", "externalId", content, helpful, harmful, neutral, "countersKnown",
          status, "archivedReason", "mergedInto", position, origin, "changedInVersion", "tokenCount", "createdAt", "updatedAt")
        SELECT gen_random_uuid(), ${playbookId}::uuid, x."sectionId", x."externalId", x.content, x.helpful, x.harmful, x.neutral,
          x."countersKnown", x.status::"BulletStatus", x."archivedReason", x."mergedInto", x.position, x.origin::"BulletOrigin",
          x."changedInVersion", x."tokenCount", ${utc(last.createdAt)}, ${utc(last.createdAt)}
        FROM json_to_recordset(${json(bullets)}) AS x("sectionId" uuid, "externalId" text, content text, helpful int, harmful int,
          neutral int, "countersKnown" boolean, status text, "archivedReason" text, "mergedInto" text, position int, origin text,
          "changedInVersion" int, "tokenCount" int)
        ON CONFLICT ("playbookId", "externalId") DO UPDATE SET
          "sectionId" = EXCLUDED."sectionId", content = EXCLUDED.content, helpful = EXCLUDED.helpful, harmful = EXCLUDED.harmful,
          neutral = EXCLUDED.neutral, "countersKnown" = EXCLUDED."countersKnown", status = EXCLUDED.status,
          "archivedReason" = EXCLUDED."archivedReason", "mergedInto" = EXCLUDED."mergedInto", position = EXCLUDED.position,
          "changedInVersion" = EXCLUDED."changedInVersion", "tokenCount" = EXCLUDED."tokenCount", "updatedAt" = EXCLUDED."updatedAt"`;
      await tx.$executeRaw`
        UPDATE "Playbook" SET version = ${last.number}::int, "nextBulletNumber" = ${history.state.nextIdNumber}::int,
          "updatedAt" = ${utc(last.createdAt)}
        WHERE id = ${playbookId}::uuid`;
    },
    { maxWait: 10_000, timeout: 300_000 },
  );
}

/** Per-trace columns, one array entry per trace (parallel arrays keep the parameters small). */
export interface TraceColumns {
  timestampMs: number[];
  outcome: ("success" | "failure" | "unknown")[];
  /** null: not known (a variant without a playbook). */
  playbookVersion: (number | null)[];
  durationMs: number[];
  inputTokens: number[];
  outputTokens: number[];
  costUsd: number[];
  /** Two bullet ids each; none when left out. */
  cited?: [string, string][];
  experiment?: (string | null)[];
  variant?: (string | null)[];
  experimentPhase?: (number | null)[];
  unitId?: (string | null)[];
  taskId?: (string | null)[];
}

/** Every column, empty: the generators fill the ones they use; an optional column left empty is written as nulls. */
export function emptyTraceColumns(): Required<TraceColumns> {
  return {
    timestampMs: [],
    outcome: [],
    playbookVersion: [],
    durationMs: [],
    inputTokens: [],
    outputTokens: [],
    costUsd: [],
    cited: [],
    experiment: [],
    variant: [],
    experimentPhase: [],
    unitId: [],
    taskId: [],
  };
}

const REASONING =
  "Step 1: listed the app's APIs and read the doc of the one the task needs. Step 2: logged in with the supervisor's password. " +
  "Step 3: read every page of results and filtered them in code. Step 4: checked the candidates against the task, then completed it.";

/**
 * Inserts traces of one playbook, `CHUNK` per statement: external ids `<idPrefix>-<n>`, short texts
 * (the metrics and results never read them), the given times, outcomes, usage and labels. Each is
 * reflected two minutes after it ran, as in a studio whose worker keeps up: a server started on the
 * seed would otherwise queue a reflection for every one (sweepOrphanTraces) before serving.
 */
export async function insertTraces(db: Db, playbookId: string, idPrefix: string, columns: TraceColumns): Promise<number> {
  const count = columns.timestampMs.length;
  let inserted = 0;
  for (let start = 0; start < count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK);
    const slice = <T>(values: T[] | undefined) => (values ?? []).slice(start, end);
    const nulls = Array.from({ length: end - start }, () => null);
    const orNulls = <T>(values: T[] | undefined) => (values && values.length > 0 ? slice(values) : nulls);
    inserted += await db.$executeRaw`
      INSERT INTO "Trace" (id, "playbookId", "externalId", "playbookVersion", task, reasoning, output, "citedBulletIds", outcome,
        "durationMs", "inputTokens", "outputTokens", "costUsd", model, experiment, variant, "experimentPhase", "unitId", "taskId",
        "timestamp", "createdAt", "reflectedAt")
      SELECT gen_random_uuid(), ${playbookId}::uuid, ${idPrefix} || '-' || (${start}::int + t.n), t.version,
        'Task ' || (${start}::int + t.n) || ': how much did I send on Venmo last month?', ${REASONING}, 'Done.',
        array_remove(ARRAY[t.cited1, t.cited2], NULL), t.outcome::"TraceOutcome", t.duration, t.input, t.output, t.cost, 'gpt-4.1',
        t.experiment, t.variant, t.phase, t.unit, t.task,
        to_timestamp(t.ms / 1000.0) AT TIME ZONE 'UTC', to_timestamp(t.ms / 1000.0) AT TIME ZONE 'UTC',
        to_timestamp(t.ms / 1000.0 + 120) AT TIME ZONE 'UTC'
      FROM unnest(${slice(columns.timestampMs)}::float8[], ${slice(columns.playbookVersion)}::int[], ${slice(columns.outcome)}::text[],
        ${slice(columns.durationMs)}::int[], ${slice(columns.inputTokens)}::int[], ${slice(columns.outputTokens)}::int[],
        ${slice(columns.costUsd)}::float8[], ${orNulls(columns.cited?.map((pair) => pair[0]))}::text[],
        ${orNulls(columns.cited?.map((pair) => pair[1]))}::text[], ${orNulls(columns.experiment)}::text[],
        ${orNulls(columns.variant)}::text[], ${orNulls(columns.experimentPhase)}::int[], ${orNulls(columns.unitId)}::text[],
        ${orNulls(columns.taskId)}::text[])
        WITH ORDINALITY AS t(ms, version, outcome, duration, input, output, cost, cited1, cited2, experiment, variant, phase, unit,
          task, n)`;
  }
  return inserted;
}

/**
 * Reflector runs for the playbook's first `reflections` traces (by time, one per trace, created
 * minutes after it) and `curations` curator runs spread over [from, to): what the job worker leaves
 * behind, with tokens, cost, latency and a few failures and retries.
 */
export async function insertRuns(
  db: Db,
  playbookId: string,
  { reflections, curations, from, to }: { reflections: number; curations: number; from: Date; to: Date },
): Promise<number> {
  const reflectors = await db.$executeRaw`
    INSERT INTO "Run" (id, "playbookId", role, status, provider, model, trigger, "traceIds", "inputTokens", "outputTokens", "costUsd",
      "latencyMs", attempts, "createdAt", "startedAt", "finishedAt")
    SELECT gen_random_uuid(), t."playbookId", 'reflector', CASE WHEN r.h % 40 = 0 THEN 'failed' ELSE 'succeeded' END::"RunStatus",
      'openai', 'gpt-4.1-mini', 'auto', ARRAY[t.id::text], 2500 + r.h % 3000, 300 + r.h % 500,
      (2500 + r.h % 3000) * 0.0000004 + (300 + r.h % 500) * 0.0000016, 1500 + (r.h * 7) % 20000, 1 + (r.h % 25 = 0)::int,
      t."timestamp" + interval '2 minutes', t."timestamp" + interval '2 minutes', t."timestamp" + interval '2 minutes'
    FROM (SELECT id, "playbookId", "timestamp" FROM "Trace" WHERE "playbookId" = ${playbookId}::uuid ORDER BY "timestamp", id
          LIMIT ${reflections}::int) t
    CROSS JOIN LATERAL (SELECT abs(hashtext(t.id::text)::bigint) AS h) r`;
  const span = (to.getTime() - from.getTime()) / 1000;
  const curators = await db.$executeRaw`
    INSERT INTO "Run" (id, "playbookId", role, status, provider, model, trigger, "inputTokens", "outputTokens", "costUsd", "latencyMs",
      attempts, "createdAt", "startedAt", "finishedAt")
    SELECT gen_random_uuid(), ${playbookId}::uuid, 'curator', CASE WHEN h % 30 = 0 THEN 'failed' ELSE 'succeeded' END::"RunStatus",
      'openai', 'gpt-4.1', 'auto', 6000 + h % 4000, 800 + h % 1200, (6000 + h % 4000) * 0.000002 + (800 + h % 1200) * 0.000008,
      4000 + (h * 13) % 40000, 1 + (h % 20 = 0)::int, at, at, at
    FROM generate_series(1, ${curations}::int) AS s(n)
    CROSS JOIN LATERAL (SELECT abs(hashtext('curator-' || s.n)::bigint) AS h,
      ${utc(from)} + make_interval(secs => (s.n - 0.5) * ${span}::float8 / ${curations}::int) AS at) x`;
  return reflectors + curators;
}

/** Moves an experiment's start and its first phase's start back to `at` (its traces are back-dated too). */
export async function backdateExperiment(db: Db, experimentId: string, at: Date): Promise<void> {
  await db.$transaction([
    db.$executeRaw`UPDATE "Experiment" SET "startedAt" = ${utc(at)}, "createdAt" = ${utc(at)} WHERE id = ${experimentId}::uuid`,
    db.$executeRaw`UPDATE "ExperimentPhase" SET "startedAt" = ${utc(at)} WHERE "experimentId" = ${experimentId}::uuid AND number = 1`,
  ]);
}

/** Row counts, to check what the seeding left. */
export async function countRows(db: DbOrTx, playbookId: string) {
  const [row] = await db.$queryRaw<{ traces: number; runs: number; versions: number; figures: number; hourly: number }[]>`
    SELECT (SELECT count(*)::int FROM "Trace" WHERE "playbookId" = ${playbookId}::uuid) AS traces,
      (SELECT count(*)::int FROM "Run" WHERE "playbookId" = ${playbookId}::uuid) AS runs,
      (SELECT count(*)::int FROM "PlaybookVersion" WHERE "playbookId" = ${playbookId}::uuid) AS versions,
      (SELECT count(*)::int FROM "PlaybookFigures" WHERE "playbookId" = ${playbookId}::uuid) AS figures,
      (SELECT COALESCE(sum(traces), 0)::int FROM "TraceHourly" WHERE "playbookId" = ${playbookId}::uuid) AS hourly`;
  if (!row) throw new Error("The count query returned no row.");
  return row;
}

/**
 * Settles the work earlier rows left behind (the trace ingestion rows store tens of thousands of
 * traces, most never reflected): queued jobs cancelled, their runs failed, every trace counted as
 * reflected. Otherwise the server the last rows start would spend the measured time sweeping them
 * into reflections, and on PGlite, whose one connection that sweep holds, not answer at all.
 */
export async function settleLeftoverWork(db: Db): Promise<void> {
  await db.$executeRaw`UPDATE "Job" SET status = 'cancelled' WHERE status IN ('queued', 'running')`;
  await db.$executeRaw`UPDATE "Run" SET status = 'failed', error = 'Left by an earlier benchmark row.' WHERE status IN ('queued', 'running')`;
  await db.$executeRaw`UPDATE "Trace" SET "reflectedAt" = now() WHERE "reflectedAt" IS NULL`;
}
