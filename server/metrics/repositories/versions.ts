// The playbook's versions as the charts read them, from the figures stored with each: versions in a
// range, counter levels, score distributions and operations per bucket (churn).
import type { OperationCounts, ScoreCount, SectionFigures } from "@/server/ace/version-figures";
import { Prisma, type DbOrTx } from "@/server/db/client";
import type { BucketRange } from "../buckets";
import { utc } from "./sql";

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
