// Every database call of the playbook history. Versions record each touched section and bullet
// with its state before and after; every domain that changes a playbook writes them through
// insertVersion here, and these queries read them (lineage through the GIN index).
import { randomUUID } from "node:crypto";
import type { BulletState, SectionState, VersionChange } from "@/server/ace/history";
import { z } from "zod";
import { Prisma, type DbOrTx } from "@/server/db/client";
import type { DeltaOrigin } from "@/server/deltas/schemas";
import type { VersionCounts } from "./schemas";

// What a version's `operations` column holds (server/ace/history.ts), checked when read back.
const sectionState = z.object({ id: z.string(), name: z.string(), slug: z.string(), position: z.number() });
const bulletState = z.object({
  externalId: z.string(),
  sectionId: z.string(),
  content: z.string(),
  helpful: z.number(),
  harmful: z.number(),
  neutral: z.number(),
  countersKnown: z.boolean(),
  status: z.enum(["active", "archived"]),
  position: z.number(),
  archivedReason: z.string().nullable(),
  mergedInto: z.string().nullable(),
  pinned: z.literal(true).optional(),
});
const versionChangesSchema = z.array(
  z.discriminatedUnion("entity", [
    z.object({ entity: z.literal("section"), id: z.string(), before: sectionState.nullable(), after: sectionState.nullable() }),
    z.object({ entity: z.literal("bullet"), id: z.string(), before: bulletState.nullable(), after: bulletState.nullable() }),
  ]),
) satisfies z.ZodType<VersionChange[]>;

function readChanges(playbookId: string, number: number, stored: unknown): VersionChange[] {
  const parsed = versionChangesSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(
    `Version ${number} of playbook ${playbookId} has a change record that cannot be read ` +
      `(${issue ? `${issue.path.join(".") || "the record"}: ${issue.message}` : "invalid"}).`,
  );
}

export interface VersionRow extends VersionCounts {
  number: number;
  author: string;
  reason: string;
  createdAt: Date;
  deltaId: string | null;
  deltaOrigin: DeltaOrigin | null;
}

const BULLET = Prisma.sql`e->>'entity' = 'bullet'`;
const BOTH = Prisma.sql`jsonb_typeof(e->'before') = 'object' AND jsonb_typeof(e->'after') = 'object'`;
// Field names are constants of this file, never input.
const differs = (field: keyof BulletState | keyof SectionState) =>
  Prisma.raw(`(e->'before'->'${field}') IS DISTINCT FROM (e->'after'->'${field}')`);
const archivedNow = Prisma.sql`e->'before'->>'status' = 'active' AND e->'after'->>'status' = 'archived'`;
const restoredNow = Prisma.sql`e->'before'->>'status' = 'archived' AND e->'after'->>'status' = 'active'`;
const mergedNow = Prisma.sql`jsonb_typeof(e->'after'->'mergedInto') = 'string'`;

/** A page of versions, newest first, each with its changes counted in SQL (imports hold thousands). */
export function listVersions(db: DbOrTx, playbookId: string, cursor: number, limit: number): Promise<VersionRow[]> {
  return db.$queryRaw<VersionRow[]>`
    SELECT v.number, v.author, v.reason, v."createdAt", v."deltaId", d.origin::text AS "deltaOrigin", c.*
    FROM "PlaybookVersion" v
    LEFT JOIN "Delta" d ON d.id = v."deltaId"
    CROSS JOIN LATERAL (
      SELECT
        (count(*) FILTER (WHERE ${BULLET} AND jsonb_typeof(e->'before') = 'null'))::int AS "bulletsAdded",
        (count(*) FILTER (WHERE ${BULLET} AND ${BOTH} AND ${differs("content")}))::int AS "bulletsEdited",
        (count(*) FILTER (WHERE ${BULLET} AND ${BOTH} AND ${differs("sectionId")}))::int AS "bulletsMoved",
        (count(*) FILTER (WHERE ${BULLET} AND ${BOTH} AND ${archivedNow} AND NOT ${mergedNow}))::int AS "bulletsArchived",
        (count(*) FILTER (WHERE ${BULLET} AND ${BOTH} AND ${restoredNow}))::int AS "bulletsRestored",
        (count(*) FILTER (WHERE ${BULLET} AND ${BOTH} AND ${archivedNow} AND ${mergedNow}))::int AS "bulletsMerged",
        (count(*) FILTER (WHERE ${BULLET} AND ${BOTH}
          AND (${differs("helpful")} OR ${differs("harmful")} OR ${differs("neutral")})))::int AS "countersChanged",
        (count(*) FILTER (WHERE e->>'entity' = 'section' AND jsonb_typeof(e->'before') = 'null'))::int AS "sectionsAdded",
        (count(*) FILTER (WHERE e->>'entity' = 'section' AND ${BOTH} AND ${differs("name")}))::int AS "sectionsRenamed",
        (count(*) FILTER (WHERE e->>'entity' = 'section' AND ${BOTH} AND ${differs("position")}))::int AS "sectionsMoved",
        (count(*) FILTER (WHERE e->>'entity' = 'section' AND jsonb_typeof(e->'after') = 'null'))::int AS "sectionsRemoved"
      FROM jsonb_array_elements(v.operations) e
    ) c
    WHERE v."playbookId" = ${playbookId}::uuid
    ORDER BY v.number DESC
    LIMIT ${limit} OFFSET ${cursor}`;
}

export function countVersions(db: DbOrTx, playbookId: string) {
  return db.playbookVersion.count({ where: { playbookId } });
}

export function findVersion(db: DbOrTx, playbookId: string, number: number) {
  return db.playbookVersion.findUnique({
    where: { playbookId_number: { playbookId, number } },
    select: { number: true, author: true, reason: true, createdAt: true, deltaId: true },
  });
}

/** Versions after `after` up to `upTo`, oldest first, with their recorded changes. */
export async function versionChanges(db: DbOrTx, playbookId: string, after: number, upTo: number) {
  const rows = await db.playbookVersion.findMany({
    where: { playbookId, number: { gt: after, lte: upTo } },
    orderBy: { number: "asc" },
    select: { number: true, operations: true },
  });
  return rows.map((row) => ({ number: row.number, changes: readChanges(playbookId, row.number, row.operations) }));
}

/** A version as written: its row, with its changes as the operations column holds them. */
export interface NewVersionRow {
  playbookId: string;
  number: number;
  author: string;
  reason: string;
  changes: VersionChange[];
  deltaId: string | null;
}

/**
 * The INSERT of a version, to run with the rows written beside it (insertTogether). Raw SQL: an ORM
 * create costs a few milliseconds more per call, and this runs on every apply.
 */
export function versionInsert(row: NewVersionRow): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO "PlaybookVersion" (id, "playbookId", number, author, reason, operations, "deltaId", "createdAt")
    VALUES (${randomUUID()}::uuid, ${row.playbookId}::uuid, ${row.number}::int, ${row.author}::text, ${row.reason}::text,
            ${JSON.stringify(row.changes)}::jsonb, ${row.deltaId}::uuid, (now() AT TIME ZONE 'UTC'))`;
}

/**
 * The section changes of the versions after `after`, newest first, each version's in recorded
 * order; versions that changed no section are left out. Only section entries leave the database.
 */
export async function sectionChangesAfter(db: DbOrTx, playbookId: string, after: number) {
  const rows = await db.$queryRaw<{ number: number; changes: unknown }[]>`
    SELECT v.number, jsonb_agg(e ORDER BY o) AS changes
    FROM "PlaybookVersion" v
    CROSS JOIN LATERAL jsonb_array_elements(v.operations) WITH ORDINALITY AS x(e, o)
    WHERE v."playbookId" = ${playbookId}::uuid AND v.number > ${after}::int AND e->>'entity' = 'section'
    GROUP BY v.number
    ORDER BY v.number DESC`;
  return rows.map((row) => ({ number: row.number, changes: readChanges(playbookId, row.number, row.changes) }));
}

/** The first version after `after` that recorded a change to one of these bullets or sections, with who made it. */
export async function firstVersionTouching(
  db: DbOrTx,
  playbookId: string,
  after: number,
  bulletIds: readonly string[],
  sectionIds: readonly string[],
): Promise<{ number: number; author: string; entity: "bullet" | "section"; id: string } | null> {
  if (bulletIds.length === 0 && sectionIds.length === 0) return null;
  const rows = await db.$queryRaw<{ number: number; author: string; entity: "bullet" | "section"; id: string }[]>`
    SELECT v.number, v.author, e->>'entity' AS entity, e->>'id' AS id
    FROM "PlaybookVersion" v
    CROSS JOIN LATERAL jsonb_array_elements(v.operations) WITH ORDINALITY AS x(e, o)
    WHERE v."playbookId" = ${playbookId}::uuid AND v.number > ${after}::int
      AND ((e->>'entity' = 'bullet' AND e->>'id' = ANY(${[...bulletIds]}::text[]))
        OR (e->>'entity' = 'section' AND e->>'id' = ANY(${[...sectionIds]}::text[])))
    ORDER BY v.number ASC, o ASC
    LIMIT 1`;
  return rows[0] ?? null;
}

/** The changes one version recorded; null when there is no such version. */
export async function findVersionChanges(db: DbOrTx, playbookId: string, number: number): Promise<{ operations: VersionChange[] } | null> {
  const row = await db.playbookVersion.findUnique({
    where: { playbookId_number: { playbookId, number } },
    select: { operations: true },
  });
  return row && { operations: readChanges(playbookId, number, row.operations) };
}

export interface LineageRow {
  version: number;
  author: string;
  reason: string;
  createdAt: Date;
  deltaId: string | null;
  deltaOrigin: DeltaOrigin | null;
  change: VersionChange;
  absorbed: string[];
}

/** Every version that recorded the bullet (its id among the version's bulletIds, a GIN index), oldest first. */
export function bulletLineage(db: DbOrTx, playbookId: string, bulletId: string): Promise<LineageRow[]> {
  return db.$queryRaw<LineageRow[]>`
    SELECT v.number AS version, v.author, v.reason, v."createdAt", v."deltaId", d.origin::text AS "deltaOrigin",
           own.change,
           ARRAY(SELECT e2->>'id' FROM jsonb_array_elements(v.operations) e2
                 WHERE e2->>'entity' = 'bullet' AND e2->'after'->>'mergedInto' = ${bulletId}
                   AND (e2->'before'->>'mergedInto') IS DISTINCT FROM ${bulletId}) AS absorbed
    FROM "PlaybookVersion" v
    LEFT JOIN "Delta" d ON d.id = v."deltaId"
    CROSS JOIN LATERAL (
      SELECT e AS change FROM jsonb_array_elements(v.operations) e
      WHERE e->>'entity' = 'bullet' AND e->>'id' = ${bulletId} LIMIT 1
    ) own
    WHERE v."playbookId" = ${playbookId}::uuid AND v."bulletIds" @> ARRAY[${bulletId}::text]
    ORDER BY v.number ASC`;
}

/** The latest traces of the playbook that cited the bullet, newest first, and how many did in all. */
export async function tracesCiting(db: DbOrTx, playbookId: string, bulletId: string, limit: number) {
  const where = { playbookId, citedBulletIds: { has: bulletId } };
  const [traces, total] = await Promise.all([
    db.trace.findMany({
      where,
      orderBy: [{ timestamp: "desc" }, { id: "desc" }],
      take: limit,
      select: { id: true, task: true, outcome: true, timestamp: true },
    }),
    db.trace.count({ where }),
  ]);
  return { traces, total };
}

/** Deltas whose operations target the bullet, or that made one of the listed versions. */
export function deltasTouching(db: DbOrTx, playbookId: string, bulletId: string, deltaIds: string[]) {
  return db.delta.findMany({
    where: {
      playbookId,
      OR: [{ operations: { some: { targetIds: { has: bulletId } } } }, ...(deltaIds.length ? [{ id: { in: deltaIds } }] : [])],
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: {
      id: true,
      status: true,
      origin: true,
      author: true,
      rationale: true,
      createdAt: true,
      decidedBy: true,
      appliedVersion: true,
      operations: {
        orderBy: { position: "asc" },
        select: { position: true, type: true, status: true, payload: true, targetIds: true },
      },
    },
  });
}
