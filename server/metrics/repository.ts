// Every database call of the metrics: the figures stored with each version, and the aggregations
// the charts draw, grouped in SQL by date_trunc over UTC timestamps (every timestamp column is UTC
// without a zone) with empty buckets from generate_series, the same on PGlite and PostgreSQL.
// Traces and runs are read from their hourly rollups (TraceHourly, RunHourly: kept by triggers, see
// the metrics_rollups migration) for whole hours, and from the rows themselves for the part of an
// hour a range ends in. Quantiles are percentile_cont (linear interpolation between the two nearest
// values, as NumPy's default) over every value, computed in the database.
import { randomUUID } from "node:crypto";
import type { VersionChange } from "@/server/ace/history";
import type { OperationCounts, PlaybookFigures, ScoreCount, SectionFigures, VersionFigures } from "@/server/ace/version-figures";
import { Prisma, type Db, type DbOrTx, type Tx } from "@/server/db/client";
import { BUCKET_INTERVAL, lastBucketStart, type BucketRange } from "./buckets";

/** A UTC instant as the timestamp-without-zone the columns hold. */
const utc = (time: Date) => Prisma.sql`(${time.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;

/** generate_series of the range's bucket starts, as a CTE body. */
function bucketSeries(range: BucketRange) {
  return Prisma.sql`SELECT generate_series(${utc(range.start)}, ${utc(lastBucketStart(range))}, ${BUCKET_INTERVAL[range.bucket]}::interval) AS start`;
}

const HOUR_MS = 3_600_000;

/**
 * Where the rollups stop and the rows take over: the start of the hour `end` falls in (the range's
 * start at the latest). Rollup hours before it are whole; the rest of the range is read row by row.
 */
function rollupCut(start: Date, end: Date): Date {
  return new Date(Math.max(start.getTime(), Math.floor(end.getTime() / HOUR_MS) * HOUR_MS));
}

/**
 * The reads of one answer, in one transaction: one snapshot, so every chart of a page agrees, and
 * without PostgreSQL's JIT compilation, which the planner's guesses about the bucket grid (it cannot
 * know how many buckets a generate_series holds) would start for queries that run in milliseconds.
 */
export function readSnapshot<T>(db: Db, read: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SET LOCAL jit = off`;
      return read(tx);
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 60_000 },
  );
}

export interface TraceFilter {
  experiment?: string;
  variant?: string;
}

/**
 * Traces of [start, end) as rows of TraceHourly: the rollup's whole hours, then the last partial hour
 * grouped from the traces themselves. One playbook, or every playbook when playbookId is null.
 */
function traceHours(playbookId: string | null, start: Date, end: Date, filter: TraceFilter = {}) {
  const cut = rollupCut(start, end);
  const rollup = [Prisma.sql`h.hour >= ${utc(start)}`, Prisma.sql`h.hour < ${utc(cut)}`];
  const rows = [Prisma.sql`t."timestamp" >= ${utc(cut)}`, Prisma.sql`t."timestamp" < ${utc(end)}`];
  if (playbookId !== null) {
    rollup.push(Prisma.sql`h."playbookId" = ${playbookId}::uuid`);
    rows.push(Prisma.sql`t."playbookId" = ${playbookId}::uuid`);
  }
  if (filter.experiment !== undefined) {
    rollup.push(Prisma.sql`h.experiment = ${filter.experiment}`);
    rows.push(Prisma.sql`t.experiment = ${filter.experiment}`);
  }
  if (filter.variant !== undefined) {
    rollup.push(Prisma.sql`h.variant = ${filter.variant}`);
    rows.push(Prisma.sql`t.variant = ${filter.variant}`);
  }
  return Prisma.sql`
    SELECT h."playbookId", h.hour, h.experiment, h.variant, h.traces, h.success, h.failure, h.unknown, h."inputTokens",
      h."outputTokens", h."costUsd", h.uncosted, COALESCE(h.durations, ARRAY[]::int[]) AS durations
    FROM "TraceHourly" h WHERE ${Prisma.join(rollup, " AND ")}
    UNION ALL
    SELECT t."playbookId", date_trunc('hour', t."timestamp"), COALESCE(t.experiment, ''), COALESCE(t.variant, ''), count(*)::int,
      (count(*) FILTER (WHERE t.outcome = 'success'))::int, (count(*) FILTER (WHERE t.outcome = 'failure'))::int,
      (count(*) FILTER (WHERE t.outcome = 'unknown'))::int, COALESCE(sum(t."inputTokens"), 0)::float8,
      COALESCE(sum(t."outputTokens"), 0)::float8, COALESCE(sum(t."costUsd"), 0)::float8,
      (count(*) FILTER (WHERE t."costUsd" IS NULL))::int,
      COALESCE(array_agg(t."durationMs") FILTER (WHERE t."durationMs" IS NOT NULL), ARRAY[]::int[])
    FROM "Trace" t WHERE ${Prisma.join(rows, " AND ")}
    GROUP BY 1, 2, 3, 4`;
}

/** Runs of one playbook in [start, end) as rows of RunHourly, like traceHours. */
function runHours(playbookId: string, start: Date, end: Date) {
  const cut = rollupCut(start, end);
  return Prisma.sql`
    SELECT h.hour, h.role::text AS role, h.runs, h.failed, h.retried, h."inputTokens", h."outputTokens", h."costUsd", h.uncosted,
      COALESCE(h.latencies, ARRAY[]::int[]) AS latencies
    FROM "RunHourly" h
    WHERE h."playbookId" = ${playbookId}::uuid AND h.hour >= ${utc(start)} AND h.hour < ${utc(cut)}
    UNION ALL
    SELECT date_trunc('hour', r."createdAt"), r.role::text, count(*)::int, (count(*) FILTER (WHERE r.status = 'failed'))::int,
      (count(*) FILTER (WHERE r.attempts > 1))::int, COALESCE(sum(r."inputTokens"), 0)::float8,
      COALESCE(sum(r."outputTokens"), 0)::float8, COALESCE(sum(r."costUsd"), 0)::float8,
      (count(*) FILTER (WHERE r."costUsd" IS NULL))::int,
      COALESCE(array_agg(r."latencyMs") FILTER (WHERE r."latencyMs" IS NOT NULL), ARRAY[]::int[])
    FROM "Run" r
    WHERE r."playbookId" = ${playbookId}::uuid AND r."createdAt" >= ${utc(cut)} AND r."createdAt" < ${utc(end)}
    GROUP BY 1, 2`;
}

// ---- Figures -----------------------------------------------------------------------------------

interface FiguresRow {
  activeBullets: number;
  archivedBullets: number;
  helpful: number;
  harmful: number;
  neutral: number;
  tokens: number;
  sections: SectionFigures[];
  scores: ScoreCount[];
}

/** The figures stored for a version, or null. */
export async function findFigures(db: DbOrTx, playbookId: string, version: number): Promise<PlaybookFigures | null> {
  const [row] = await db.$queryRaw<FiguresRow[]>`
    SELECT "activeBullets", "archivedBullets", helpful, harmful, neutral, tokens, sections, scores
    FROM "PlaybookFigures" WHERE "playbookId" = ${playbookId}::uuid AND version = ${version}::int`;
  return row ?? null;
}

/**
 * Stores figures, each with its version's createdAt (so the row needs the version inserted first);
 * figures a version already has are kept. Returns how many rows were written.
 */
export async function insertFigures(db: DbOrTx, playbookId: string, rows: { version: number; figures: VersionFigures }[]): Promise<number> {
  if (rows.length === 0) return 0;
  const json = rows.map(({ version, figures }) => ({ id: randomUUID(), version, ...figures }));
  return db.$executeRaw`
    INSERT INTO "PlaybookFigures" (id, "playbookId", version, "recordedAt", "contentChanged", "countersChanged",
      "activeBullets", "archivedBullets", helpful, harmful, neutral, tokens, sections, scores, operations)
    SELECT r.id, v."playbookId", r.version, v."createdAt", r."contentChanged", r."countersChanged",
      r."activeBullets", r."archivedBullets", r.helpful, r.harmful, r.neutral, r.tokens, r.sections, r.scores, r.operations
    FROM json_to_recordset(${JSON.stringify(json)}::json) AS r(id uuid, version int, "contentChanged" boolean,
      "countersChanged" boolean, "activeBullets" int, "archivedBullets" int, helpful int, harmful int, neutral int,
      tokens int, sections jsonb, scores jsonb, operations jsonb)
    JOIN "PlaybookVersion" v ON v."playbookId" = ${playbookId}::uuid AND v.number = r.version
    ON CONFLICT ("playbookId", version) DO NOTHING`;
}

export interface FiguresGap {
  playbookId: string;
  /** The lowest version without figures. */
  firstMissing: number;
  lastVersion: number;
}

/** Playbooks with versions that have no figures (written before figures existed). */
export function playbooksMissingFigures(db: DbOrTx): Promise<FiguresGap[]> {
  return db.$queryRaw<FiguresGap[]>`
    SELECT v."playbookId"::text AS "playbookId", min(v.number)::int AS "firstMissing", max(p.version)::int AS "lastVersion"
    FROM "PlaybookVersion" v
    JOIN "Playbook" p ON p.id = v."playbookId"
    WHERE NOT EXISTS (SELECT 1 FROM "PlaybookFigures" f WHERE f."playbookId" = v."playbookId" AND f.version = v.number)
    GROUP BY v."playbookId"
    ORDER BY v."playbookId"`;
}

/** Versions in (after, upTo] that have figures. */
export async function versionsWithFigures(db: DbOrTx, playbookId: string, after: number, upTo: number): Promise<Set<number>> {
  const rows = await db.$queryRaw<{ version: number }[]>`
    SELECT version FROM "PlaybookFigures"
    WHERE "playbookId" = ${playbookId}::uuid AND version > ${after}::int AND version <= ${upTo}::int`;
  return new Set(rows.map((row) => row.version));
}

/** Recorded changes of the versions in (after, upTo], oldest first. */
export async function versionChanges(db: DbOrTx, playbookId: string, after: number, upTo: number) {
  const rows = await db.playbookVersion.findMany({
    where: { playbookId, number: { gt: after, lte: upTo } },
    orderBy: { number: "asc" },
    select: { number: true, operations: true },
  });
  return rows.map((row) => ({ number: row.number, changes: row.operations as unknown as VersionChange[] }));
}

// ---- The playbook --------------------------------------------------------------------------

export interface PlaybookRow {
  id: string;
  name: string;
  settings: unknown;
}

/** The playbook with one of these names, the first name preferred when both exist. */
export async function findPlaybookByNames(db: DbOrTx, names: string[]): Promise<PlaybookRow | null> {
  const rows = await db.playbook.findMany({ where: { name: { in: names } }, select: { id: true, name: true, settings: true } });
  for (const name of names) {
    const row = rows.find((candidate) => candidate.name === name);
    if (row) return row;
  }
  return null;
}

export function findPlaybookById(db: DbOrTx, playbookId: string): Promise<PlaybookRow | null> {
  return db.playbook.findUnique({ where: { id: playbookId }, select: { id: true, name: true, settings: true } });
}

/** The earlier of the playbook's first version and its first trace. */
export async function earliestActivity(db: DbOrTx, playbookId: string): Promise<Date | null> {
  const [row] = await db.$queryRaw<{ earliest: Date | null }[]>`
    SELECT LEAST(
      (SELECT "createdAt" FROM "PlaybookVersion" WHERE "playbookId" = ${playbookId}::uuid ORDER BY number LIMIT 1),
      (SELECT min("timestamp") FROM "Trace" WHERE "playbookId" = ${playbookId}::uuid)) AS earliest`;
  return row?.earliest ?? null;
}

// ---- Outcomes ------------------------------------------------------------------------------

export interface OutcomeRow {
  /** null: all traces (the filter's); else one variant's. */
  variant: string | null;
  whole: boolean;
  /** null: the totals of the range. */
  start: Date | null;
  traces: number;
  success: number;
  failure: number;
  unknown: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  uncosted: number;
  p50DurationMs: number | null;
  p95DurationMs: number | null;
}

/**
 * Traces per bucket, of all traces and of each variant, with the totals of the range, grouped four
 * ways at once. GROUPING(start, variant): 0 bucket and variant, 1 bucket, 2 variant, 3 the range.
 * Duration quantiles (the costly part: every duration is sorted once per group it falls in) are
 * computed for the buckets and the range, not per variant; variant rows carry null.
 */
export function outcomes(db: DbOrTx, playbookId: string, range: BucketRange, filter: TraceFilter): Promise<OutcomeRow[]> {
  return db.$queryRaw<OutcomeRow[]>`
    WITH buckets AS (${bucketSeries(range)}),
    src AS (
      SELECT date_trunc(${range.bucket}, x.hour) AS start, NULLIF(x.variant, '') AS variant, x.traces, x.success, x.failure,
        x.unknown, x."inputTokens", x."outputTokens", x."costUsd", x.uncosted, x.durations
      FROM (${traceHours(playbookId, range.start, range.end, filter)}) x
    ),
    counts AS (
      SELECT s.start, s.variant, GROUPING(s.start, s.variant)::int AS level,
        sum(s.traces)::int AS traces, sum(s.success)::int AS success, sum(s.failure)::int AS failure,
        sum(s.unknown)::int AS unknown, sum(s."inputTokens")::float8 AS "inputTokens",
        sum(s."outputTokens")::float8 AS "outputTokens", sum(s."costUsd")::float8 AS "costUsd", sum(s.uncosted)::int AS uncosted
      FROM src s
      GROUP BY GROUPING SETS ((s.start, s.variant), (s.start), (s.variant), ())
    ),
    quantiles AS (
      SELECT s.start, GROUPING(s.start)::int * 2 + 1 AS level,
        percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY d.value) AS q
      FROM src s CROSS JOIN LATERAL unnest(s.durations) AS d(value)
      GROUP BY GROUPING SETS ((s.start), ())
    ),
    agg AS (
      SELECT c.*, q.q[1] AS "p50DurationMs", q.q[2] AS "p95DurationMs"
      FROM counts c
      LEFT JOIN quantiles q ON q.level = c.level AND q.start IS NOT DISTINCT FROM c.start
    ),
    series AS (
      SELECT TRUE AS whole, NULL::text AS variant
      UNION ALL
      SELECT DISTINCT FALSE, a.variant FROM agg a WHERE a.level = 2 AND a.variant IS NOT NULL
    ),
    cells AS (
      SELECT s.whole, s.variant, b.start FROM series s CROSS JOIN buckets b
      UNION ALL
      SELECT s.whole, s.variant, NULL::timestamp FROM series s
    )
    SELECT c.variant, c.whole, c.start,
      COALESCE(a.traces, 0) AS traces, COALESCE(a.success, 0) AS success, COALESCE(a.failure, 0) AS failure,
      COALESCE(a.unknown, 0) AS unknown, COALESCE(a."inputTokens", 0) AS "inputTokens",
      COALESCE(a."outputTokens", 0) AS "outputTokens", COALESCE(a."costUsd", 0) AS "costUsd",
      COALESCE(a.uncosted, 0) AS uncosted, a."p50DurationMs", a."p95DurationMs"
    FROM cells c
    LEFT JOIN agg a ON a.level = (CASE WHEN c.whole THEN 1 ELSE 0 END) + (CASE WHEN c.start IS NULL THEN 2 ELSE 0 END)
      AND (c.start IS NULL OR a.start = c.start)
      AND (c.whole OR a.variant = c.variant)
    ORDER BY c.whole DESC, c.variant, c.start NULLS FIRST`;
}

// ---- Versions ------------------------------------------------------------------------------

export interface VersionRow {
  version: number;
  createdAt: Date;
  author: string;
  reason: string;
  deltaId: string | null;
  deltaOrigin: string | null;
  contentChanged: boolean;
  countersChanged: boolean;
  operations: OperationCounts;
  activeBullets: number;
  archivedBullets: number;
  sections: SectionFigures[];
  helpful: number;
  harmful: number;
  neutral: number;
  tokens: number;
}

const versionColumns = Prisma.sql`
  f.version, f."recordedAt" AS "createdAt", v.author, left(v.reason, 300) AS reason, v."deltaId"::text AS "deltaId",
  d.origin::text AS "deltaOrigin", f."contentChanged", f."countersChanged", f.operations, f."activeBullets",
  f."archivedBullets", f.sections, f.helpful, f.harmful, f.neutral, f.tokens`;

const versionJoins = Prisma.sql`
  JOIN "PlaybookVersion" v ON v."playbookId" = f."playbookId" AND v.number = f.version
  LEFT JOIN "Delta" d ON d.id = v."deltaId"`;

/** Versions made in the range with their figures, the newest `limit` of them, oldest first; and how many there were. */
export async function versionsInRange(
  db: DbOrTx,
  playbookId: string,
  range: BucketRange,
  { contentOnly, limit }: { contentOnly: boolean; limit: number },
): Promise<{ rows: VersionRow[]; total: number }> {
  const where = Prisma.sql`f."playbookId" = ${playbookId}::uuid AND f."recordedAt" >= ${utc(range.start)}
    AND f."recordedAt" < ${utc(range.end)} ${contentOnly ? Prisma.sql`AND f."contentChanged"` : Prisma.empty}`;
  const [rows, [counted]] = await Promise.all([
    db.$queryRaw<VersionRow[]>`
      SELECT * FROM (
        SELECT ${versionColumns} FROM "PlaybookFigures" f ${versionJoins}
        WHERE ${where} ORDER BY f.version DESC LIMIT ${limit}::int
      ) newest ORDER BY version`,
    db.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM "PlaybookFigures" f WHERE ${where}`,
  ]);
  return { rows, total: counted?.total ?? 0 };
}

/** The last version before the range (content-changing only, when asked). */
export async function versionBefore(db: DbOrTx, playbookId: string, before: Date, contentOnly: boolean): Promise<VersionRow | null> {
  const [row] = await db.$queryRaw<VersionRow[]>`
    SELECT ${versionColumns} FROM "PlaybookFigures" f ${versionJoins}
    WHERE f."playbookId" = ${playbookId}::uuid AND f."recordedAt" < ${utc(before)}
      ${contentOnly ? Prisma.sql`AND f."contentChanged"` : Prisma.empty}
    ORDER BY f."recordedAt" DESC, f.version DESC LIMIT 1`;
  return row ?? null;
}

/** One version's figures with its score distribution. */
export async function versionFigures(
  db: DbOrTx,
  playbookId: string,
  version: number,
): Promise<(VersionRow & { scores: ScoreCount[] }) | null> {
  const [row] = await db.$queryRaw<(VersionRow & { scores: ScoreCount[] })[]>`
    SELECT ${versionColumns}, f.scores FROM "PlaybookFigures" f ${versionJoins}
    WHERE f."playbookId" = ${playbookId}::uuid AND f.version = ${version}::int`;
  return row ?? null;
}

/** The score distribution at a version, or at the last version before `before`. */
export async function scoreDistribution(
  db: DbOrTx,
  playbookId: string,
  at: { version: number } | { before: Date },
): Promise<{ version: number; scores: ScoreCount[] } | null> {
  const [row] =
    "version" in at
      ? await db.$queryRaw<{ version: number; scores: ScoreCount[] }[]>`
          SELECT version, scores FROM "PlaybookFigures" WHERE "playbookId" = ${playbookId}::uuid AND version = ${at.version}::int`
      : await db.$queryRaw<{ version: number; scores: ScoreCount[] }[]>`
          SELECT version, scores FROM "PlaybookFigures"
          WHERE "playbookId" = ${playbookId}::uuid AND "recordedAt" < ${utc(at.before)}
          ORDER BY "recordedAt" DESC, version DESC LIMIT 1`;
  return row ?? null;
}

// ---- Counters ------------------------------------------------------------------------------

export interface CounterRow {
  /** null: the last record before the range. */
  start: Date | null;
  version: number;
  helpful: number;
  harmful: number;
  neutral: number;
}

/**
 * Counter totals as a time series, read from every version's figures whatever changed it: the last
 * record in each bucket that has one, and the last record before the range (to carry forward).
 */
export function counterLevels(db: DbOrTx, playbookId: string, range: BucketRange): Promise<CounterRow[]> {
  return db.$queryRaw<CounterRow[]>`
    (SELECT NULL::timestamp AS start, f.version, f.helpful, f.harmful, f.neutral
     FROM "PlaybookFigures" f
     WHERE f."playbookId" = ${playbookId}::uuid AND f."recordedAt" < ${utc(range.start)}
     ORDER BY f."recordedAt" DESC, f.version DESC LIMIT 1)
    UNION ALL
    (SELECT DISTINCT ON (x.start) x.start, x.version, x.helpful, x.harmful, x.neutral
     FROM (
       SELECT date_trunc(${range.bucket}, f."recordedAt") AS start, f."recordedAt", f.version, f.helpful, f.harmful, f.neutral
       FROM "PlaybookFigures" f
       WHERE f."playbookId" = ${playbookId}::uuid AND f."recordedAt" >= ${utc(range.start)} AND f."recordedAt" < ${utc(range.end)}
     ) x
     ORDER BY x.start, x."recordedAt" DESC, x.version DESC)`;
}

// ---- Churn ---------------------------------------------------------------------------------

export interface ChurnRow {
  start: Date;
  /** The delta's origin; null for versions written without a delta. */
  deltaOrigin: string | null;
  type: string;
  count: number;
}

/** Operations per bucket, by the version's origin and operation type, from every version's figures. */
export function churn(db: DbOrTx, playbookId: string, range: BucketRange): Promise<ChurnRow[]> {
  return db.$queryRaw<ChurnRow[]>`
    SELECT x.start, x."deltaOrigin", o.key AS type, sum(o.value::int)::int AS count
    FROM (
      SELECT date_trunc(${range.bucket}, f."recordedAt") AS start, d.origin::text AS "deltaOrigin", f.operations
      FROM "PlaybookFigures" f ${versionJoins}
      WHERE f."playbookId" = ${playbookId}::uuid AND f."recordedAt" >= ${utc(range.start)} AND f."recordedAt" < ${utc(range.end)}
    ) x
    CROSS JOIN LATERAL jsonb_each_text(x.operations) o
    GROUP BY x.start, x."deltaOrigin", o.key
    ORDER BY x.start, x."deltaOrigin", o.key`;
}

// ---- Movers --------------------------------------------------------------------------------

export interface MoverRow {
  bulletId: string;
  section: string | null;
  content: string | null;
  status: "active" | "archived" | null;
  helpful: number | null;
  harmful: number | null;
  helpfulChange: number;
  harmfulChange: number;
  scoreChange: number;
}

/**
 * Bullets whose helpful − harmful moved most through tags applied in the range (tag operations of
 * applied deltas created in it): up to `limit` that rose and `limit` that fell.
 */
export function movers(db: DbOrTx, playbookId: string, range: BucketRange, limit: number): Promise<MoverRow[]> {
  return db.$queryRaw<MoverRow[]>`
    WITH tagged AS (
      SELECT o.payload->>'bulletId' AS "bulletId",
        COALESCE(sum((o.payload->>'helpful')::int), 0)::int AS "helpfulChange",
        COALESCE(sum((o.payload->>'harmful')::int), 0)::int AS "harmfulChange"
      FROM "Delta" d JOIN "DeltaOperation" o ON o."deltaId" = d.id
      WHERE d."playbookId" = ${playbookId}::uuid AND d.status IN ('applied', 'auto_applied')
        AND d."createdAt" >= ${utc(range.start)} AND d."createdAt" < ${utc(range.end)}
        AND o.type = 'tag' AND o.status = 'approved'
      GROUP BY 1
    ),
    scored AS (SELECT t.*, t."helpfulChange" - t."harmfulChange" AS "scoreChange" FROM tagged t)
    SELECT m."bulletId", s.name AS section, left(b.content, 200) AS content, b.status::text AS status, b.helpful, b.harmful,
      m."helpfulChange", m."harmfulChange", m."scoreChange"
    FROM (
      (SELECT * FROM scored WHERE "scoreChange" > 0 ORDER BY "scoreChange" DESC, "bulletId" LIMIT ${limit}::int)
      UNION ALL
      (SELECT * FROM scored WHERE "scoreChange" < 0 ORDER BY "scoreChange" ASC, "bulletId" LIMIT ${limit}::int)
    ) m
    LEFT JOIN "Bullet" b ON b."playbookId" = ${playbookId}::uuid AND b."externalId" = m."bulletId"
    LEFT JOIN "Section" s ON s.id = b."sectionId"
    ORDER BY m."scoreChange" DESC, m."bulletId"`;
}

// ---- Review --------------------------------------------------------------------------------

export interface ReviewRow {
  /** null: the totals of the range for the origin. */
  start: Date | null;
  origin: string;
  proposed: number;
  approved: number;
  autoApplied: number;
  rejected: number;
  pending: number;
  stale: number;
  nearDuplicates: number;
  medianDecisionMs: number | null;
  p90DecisionMs: number | null;
}

/**
 * Deltas created per bucket and origin, with what became of them, plus the totals per origin; every
 * bucket for every origin that has a delta in the range. Time to decision counts a person's
 * decisions (applied or rejected), not auto-applies.
 */
export function review(db: DbOrTx, playbookId: string, range: BucketRange): Promise<ReviewRow[]> {
  return db.$queryRaw<ReviewRow[]>`
    WITH buckets AS (${bucketSeries(range)}),
    deltas AS (
      SELECT date_trunc(${range.bucket}, d."createdAt") AS start, d.origin::text AS origin, d.status::text AS status,
        CASE WHEN d.status IN ('applied', 'rejected') AND d."decidedAt" IS NOT NULL
          THEN extract(epoch FROM (d."decidedAt" - d."createdAt"))::float8 * 1000 END AS "decisionMs",
        (SELECT count(*) FROM "DeltaOperation" o
          WHERE o."deltaId" = d.id AND o.flags @> '[{"kind": "near_duplicate"}]'::jsonb)::int AS "nearDuplicates"
      FROM "Delta" d
      WHERE d."playbookId" = ${playbookId}::uuid AND d."createdAt" >= ${utc(range.start)} AND d."createdAt" < ${utc(range.end)}
    ),
    agg AS (
      SELECT x.start, x.origin, GROUPING(x.start)::int AS level,
        count(*)::int AS proposed,
        (count(*) FILTER (WHERE x.status = 'applied'))::int AS approved,
        (count(*) FILTER (WHERE x.status = 'auto_applied'))::int AS "autoApplied",
        (count(*) FILTER (WHERE x.status = 'rejected'))::int AS rejected,
        (count(*) FILTER (WHERE x.status = 'pending'))::int AS pending,
        (count(*) FILTER (WHERE x.status = 'stale'))::int AS stale,
        COALESCE(sum(x."nearDuplicates"), 0)::int AS "nearDuplicates",
        percentile_cont(0.5) WITHIN GROUP (ORDER BY x."decisionMs") AS "medianDecisionMs",
        percentile_cont(0.9) WITHIN GROUP (ORDER BY x."decisionMs") AS "p90DecisionMs"
      FROM deltas x
      GROUP BY GROUPING SETS ((x.start, x.origin), (x.origin))
    ),
    origins AS (SELECT a.origin FROM agg a WHERE a.level = 1),
    cells AS (
      SELECT o.origin, b.start FROM origins o CROSS JOIN buckets b
      UNION ALL
      SELECT o.origin, NULL::timestamp FROM origins o
    )
    SELECT c.start, c.origin, COALESCE(a.proposed, 0) AS proposed, COALESCE(a.approved, 0) AS approved,
      COALESCE(a."autoApplied", 0) AS "autoApplied", COALESCE(a.rejected, 0) AS rejected, COALESCE(a.pending, 0) AS pending,
      COALESCE(a.stale, 0) AS stale, COALESCE(a."nearDuplicates", 0) AS "nearDuplicates", a."medianDecisionMs", a."p90DecisionMs"
    FROM cells c
    LEFT JOIN agg a ON a.origin = c.origin AND a.level = (CASE WHEN c.start IS NULL THEN 1 ELSE 0 END)
      AND (c.start IS NULL OR a.start = c.start)
    ORDER BY c.origin, c.start NULLS FIRST`;
}

// ---- Runs ----------------------------------------------------------------------------------

export interface RunRow {
  /** null: the totals of the range for the role. */
  start: Date | null;
  role: "reflector" | "curator";
  runs: number;
  failed: number;
  retried: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  uncosted: number;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
}

/** Reflector and curator runs created per bucket, and the totals of the range, for both roles. */
export function runs(db: DbOrTx, playbookId: string, range: BucketRange): Promise<RunRow[]> {
  return db.$queryRaw<RunRow[]>`
    WITH buckets AS (${bucketSeries(range)}),
    roles AS (SELECT unnest(ARRAY['reflector', 'curator']) AS role),
    src AS (
      SELECT date_trunc(${range.bucket}, x.hour) AS start, x.role, x.runs, x.failed, x.retried, x."inputTokens",
        x."outputTokens", x."costUsd", x.uncosted, x.latencies
      FROM (${runHours(playbookId, range.start, range.end)}) x
    ),
    counts AS (
      SELECT s.start, s.role, GROUPING(s.start)::int AS level, sum(s.runs)::int AS runs, sum(s.failed)::int AS failed,
        sum(s.retried)::int AS retried, sum(s."inputTokens")::float8 AS "inputTokens",
        sum(s."outputTokens")::float8 AS "outputTokens", sum(s."costUsd")::float8 AS "costUsd", sum(s.uncosted)::int AS uncosted
      FROM src s
      GROUP BY GROUPING SETS ((s.start, s.role), (s.role))
    ),
    quantiles AS (
      SELECT s.start, s.role, GROUPING(s.start)::int AS level,
        percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY l.value) AS q
      FROM src s CROSS JOIN LATERAL unnest(s.latencies) AS l(value)
      GROUP BY GROUPING SETS ((s.start, s.role), (s.role))
    ),
    agg AS (
      SELECT c.*, q.q[1] AS "p50LatencyMs", q.q[2] AS "p95LatencyMs"
      FROM counts c
      LEFT JOIN quantiles q ON q.level = c.level AND q.role = c.role AND q.start IS NOT DISTINCT FROM c.start
    ),
    cells AS (
      SELECT r.role, b.start FROM roles r CROSS JOIN buckets b
      UNION ALL
      SELECT r.role, NULL::timestamp FROM roles r
    )
    SELECT c.start, c.role, COALESCE(a.runs, 0) AS runs, COALESCE(a.failed, 0) AS failed, COALESCE(a.retried, 0) AS retried,
      COALESCE(a."inputTokens", 0) AS "inputTokens", COALESCE(a."outputTokens", 0) AS "outputTokens",
      COALESCE(a."costUsd", 0) AS "costUsd", COALESCE(a.uncosted, 0) AS uncosted, a."p50LatencyMs", a."p95LatencyMs"
    FROM cells c
    LEFT JOIN agg a ON a.role = c.role AND a.level = (CASE WHEN c.start IS NULL THEN 1 ELSE 0 END)
      AND (c.start IS NULL OR a.start = c.start)
    ORDER BY c.role DESC, c.start NULLS FIRST`;
}

// ---- The studio overview -------------------------------------------------------------------

export interface OverviewRow {
  playbookId: string;
  name: string;
  /** null: the totals of the previous range; a bucket start otherwise (every bucket present). */
  start: Date | null;
  previous: boolean;
  traces: number;
  success: number;
  failure: number;
  unknown: number;
  pendingDeltas: number;
}

/** Per playbook: traces per bucket of the range and the totals of the range before it, and the pending deltas. */
export function overview(db: DbOrTx, range: BucketRange, previousStart: Date): Promise<OverviewRow[]> {
  return db.$queryRaw<OverviewRow[]>`
    WITH buckets AS (${bucketSeries(range)}),
    agg AS (
      SELECT x."playbookId", CASE WHEN x.hour < ${utc(range.start)} THEN NULL ELSE date_trunc(${range.bucket}, x.hour) END AS start,
        sum(x.traces)::int AS traces, sum(x.success)::int AS success, sum(x.failure)::int AS failure, sum(x.unknown)::int AS unknown
      FROM (${traceHours(null, previousStart, range.end)}) x
      GROUP BY 1, 2
    ),
    pending AS (
      SELECT d."playbookId", count(*)::int AS n FROM "Delta" d WHERE d.status = 'pending' GROUP BY 1
    ),
    cells AS (
      SELECT p.id, p.name, b.start, FALSE AS previous FROM "Playbook" p CROSS JOIN buckets b
      UNION ALL
      SELECT p.id, p.name, NULL::timestamp, TRUE FROM "Playbook" p
    )
    SELECT c.id::text AS "playbookId", c.name, c.start, c.previous,
      COALESCE(a.traces, 0) AS traces, COALESCE(a.success, 0) AS success, COALESCE(a.failure, 0) AS failure,
      COALESCE(a.unknown, 0) AS unknown, COALESCE(pd.n, 0) AS "pendingDeltas"
    FROM cells c
    LEFT JOIN agg a ON a."playbookId" = c.id AND a.start IS NOT DISTINCT FROM c.start
    LEFT JOIN pending pd ON pd."playbookId" = c.id
    ORDER BY c.name, c.id, c.start NULLS FIRST`;
}
