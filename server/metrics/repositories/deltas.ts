// The curation queue's activity: deltas proposed and decided per bucket and origin (with the rejected
// ones retention removed, from RejectedDeltaHourly), and the bullets whose counters moved most through
// applied tags (applied deltas are never removed).
import type { DbOrTx } from "@/server/db/client";
import type { BucketRange } from "../buckets";
import { bucketSeries, utc } from "./sql";

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
      UNION ALL
      -- Rejected deltas retention removed, one row each from their hour's rollup: the decision times
      -- of the decided ones, then the rest; the hour's near-duplicates on its first row.
      SELECT date_trunc(${range.bucket}, h.hour), h.origin::text, 'rejected', h."decisionsMs"[i.n], CASE WHEN i.n = 1 THEN h."nearDuplicates" ELSE 0 END
      FROM "RejectedDeltaHourly" h CROSS JOIN LATERAL generate_series(1, h.deltas) AS i(n)
      WHERE h."playbookId" = ${playbookId}::uuid AND h.hour >= ${utc(range.start)} AND h.hour < ${utc(range.end)}
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
