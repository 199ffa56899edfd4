// Reflector and curator runs per bucket: counts, failures, retries, tokens, cost and latency
// quantiles, from the hourly rollup (RunHourly) and the runs of the hour a range ends in.
import { Prisma, type DbOrTx } from "@/server/db/client";
import type { BucketRange } from "../buckets";
import { bucketSeries, rollupCut, utc } from "./sql";

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
 * quantiles as in traces.ts (outcomes): per bucket from the hour rows in bucket order, per role in
 * one sort of that role's values.
 */
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
      SELECT s.start, s.role, 0 AS level, percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY l.value) AS q
      FROM (SELECT x.start, x.role, x.latencies FROM src x ORDER BY x.role, x.start) s
        CROSS JOIN LATERAL unnest(s.latencies) AS l(value)
      GROUP BY s.role, s.start
      UNION ALL
      SELECT NULL, r.role, 1, (
        SELECT percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY l.value)
        FROM src s CROSS JOIN LATERAL unnest(s.latencies) AS l(value) WHERE s.role = r.role)
      FROM roles r
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
