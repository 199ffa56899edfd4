// The figures stored with each version (PlaybookFigures), written with the version and back-filled
// for versions written before figures existed (../figures.ts).
import { randomUUID } from "node:crypto";
import type { PlaybookFigures, VersionFigures } from "@/server/ace/version-figures";
import { Prisma, type DbOrTx } from "@/server/db/client";

/** The figures stored for a version, or null. */
export async function findFigures(db: DbOrTx, playbookId: string, version: number): Promise<PlaybookFigures | null> {
  const [row] = await db.$queryRaw<PlaybookFigures[]>`
    SELECT "activeBullets", "archivedBullets", helpful, harmful, neutral, tokens, sections, scores
    FROM "PlaybookFigures" WHERE "playbookId" = ${playbookId}::uuid AND version = ${version}::int`;
  return row ?? null;
}

const FIGURES = [
  '"contentChanged"',
  '"countersChanged"',
  '"activeBullets"',
  '"archivedBullets"',
  "helpful",
  "harmful",
  "neutral",
  "tokens",
  "sections",
  "scores",
  "operations",
];
const FIGURES_COLUMNS = Prisma.raw(FIGURES.join(", "));
const FIGURES_OF_RECORDSET = Prisma.raw(FIGURES.map((column) => `r.${column}`).join(", "));

/** Figures as a JSON recordset (r), the columns above with their id and version. */
function figuresRecordset(rows: { version: number; figures: VersionFigures }[]): Prisma.Sql {
  const json = rows.map(({ version, figures }) => ({ id: randomUUID(), version, ...figures }));
  return Prisma.sql`json_to_recordset(${JSON.stringify(json)}::json) AS r(id uuid, version int, "contentChanged" boolean,
      "countersChanged" boolean, "activeBullets" int, "archivedBullets" int, helpful int, harmful int, neutral int,
      tokens int, sections jsonb, scores jsonb, operations jsonb)`;
}

/**
 * Stores figures of versions already written, each with its version's createdAt; figures a version
 * already has are kept. Returns how many rows were written.
 */
export async function insertFigures(db: DbOrTx, playbookId: string, rows: { version: number; figures: VersionFigures }[]): Promise<number> {
  if (rows.length === 0) return 0;
  return db.$executeRaw`
    INSERT INTO "PlaybookFigures" (id, "playbookId", version, "recordedAt", ${FIGURES_COLUMNS})
    SELECT r.id, v."playbookId", r.version, v."createdAt", ${FIGURES_OF_RECORDSET}
    FROM ${figuresRecordset(rows)}
    JOIN "PlaybookVersion" v ON v."playbookId" = ${playbookId}::uuid AND v.number = r.version
    ON CONFLICT ("playbookId", version) DO NOTHING`;
}

/**
 * The INSERT of the figures of a version written by the same statement (insertTogether), so it
 * cannot read the version's row: recordedAt is the transaction's now(), as the version's createdAt is.
 */
export function newVersionFiguresInsert(playbookId: string, version: number, figures: VersionFigures): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO "PlaybookFigures" (id, "playbookId", version, "recordedAt", ${FIGURES_COLUMNS})
    SELECT r.id, ${playbookId}::uuid, r.version, (now() AT TIME ZONE 'UTC'), ${FIGURES_OF_RECORDSET}
    FROM ${figuresRecordset([{ version, figures }])}
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
