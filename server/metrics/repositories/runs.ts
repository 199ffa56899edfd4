// Reflector and curator runs per bucket: counts, failures, retries, tokens, cost and latency
// quantiles, from the hourly rollup (RunHourly) and the runs of the hour a range ends in.
import { Prisma, type DbOrTx } from "@/server/db/client";
import type { BucketRange } from "../buckets";
import { bucketSeries, medianAndP95, parseIntegerList, rollupCut, utc } from "./sql";

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

/**
 * Reflector and curator runs created per bucket, and the totals of the range, for both roles. Latency
 * quantiles as in traces.ts (outcomes): computed here, per bucket and per role, from the latencies
 * the hour rows keep, read by a second query of the same snapshot.
 */
export async function runs(db: DbOrTx, playbookId: string, range: BucketRange): Promise<RunRow[]> {
  const rows = await runCounts(db, playbookId, range);
  const values = await latencies(db, playbookId, range);
  for (const role of ["reflector", "curator"] as const) {
    const { byKey, all } = medianAndP95(values.filter((group) => group.role === role));
    for (const row of rows) {
      if (row.role !== role) continue;
      const q = row.start === null ? all : (byKey.get(row.start.getTime()) ?? null);
      row.p50LatencyMs = q?.[0] ?? null;
      row.p95LatencyMs = q?.[1] ?? null;
    }
  }
  return rows;
}

/** Every run latency of the range, per bucket and role, as text joined in PostgreSQL (see traces.ts, durations). */
async function latencies(db: DbOrTx, playbookId: string, range: BucketRange) {
  const rows = await db.$queryRaw<{ start: Date; role: string; values: string | null }[]>`
    SELECT date_trunc(${range.bucket}, x.hour) AS start, x.role, string_agg(array_to_string(x.latencies, ','), ',') AS values
    FROM (${runHours(playbookId, range.start, range.end)}) x
    WHERE cardinality(x.latencies) > 0
    GROUP BY 1, 2`;
  return rows.map((row) => ({ key: row.start.getTime(), role: row.role, values: parseIntegerList(row.values) }));
}

function runCounts(db: DbOrTx, playbookId: string, range: BucketRange): Promise<RunRow[]> {
  return db.$queryRaw<RunRow[]>`
    WITH buckets AS (${bucketSeries(range)}),
    roles AS (SELECT unnest(ARRAY['reflector', 'curator']) AS role),
    src AS (
      SELECT date_trunc(${range.bucket}, x.hour) AS start, x.role, x.runs, x.failed, x.retried, x."inputTokens",
        x."outputTokens", x."costUsd", x.uncosted
      FROM (${runHours(playbookId, range.start, range.end)}) x
    ),
    agg AS (
      SELECT s.start, s.role, GROUPING(s.start)::int AS level, sum(s.runs)::int AS runs, sum(s.failed)::int AS failed,
        sum(s.retried)::int AS retried, sum(s."inputTokens")::float8 AS "inputTokens",
        sum(s."outputTokens")::float8 AS "outputTokens", sum(s."costUsd")::float8 AS "costUsd", sum(s.uncosted)::int AS uncosted
      FROM src s
      GROUP BY GROUPING SETS ((s.start, s.role), (s.role))
    ),
    cells AS (
      SELECT r.role, b.start FROM roles r CROSS JOIN buckets b
      UNION ALL
      SELECT r.role, NULL::timestamp FROM roles r
    )
    SELECT c.start, c.role, COALESCE(a.runs, 0) AS runs, COALESCE(a.failed, 0) AS failed, COALESCE(a.retried, 0) AS retried,
      COALESCE(a."inputTokens", 0) AS "inputTokens", COALESCE(a."outputTokens", 0) AS "outputTokens",
      COALESCE(a."costUsd", 0) AS "costUsd", COALESCE(a.uncosted, 0) AS uncosted, NULL::float8 AS "p50LatencyMs", NULL::float8 AS "p95LatencyMs"
    FROM cells c
    LEFT JOIN agg a ON a.role = c.role AND a.level = (CASE WHEN c.start IS NULL THEN 1 ELSE 0 END)
      AND (c.start IS NULL OR a.start = c.start)
    ORDER BY c.role DESC, c.start NULLS FIRST`;
}
