// Every database call of the curation queue and of applying changes to a playbook. Plain rows out;
// the rules (stale, conflicts, auto-apply) live in service.ts.
import type { BulletState, SectionState } from "@/server/ace/history";
import { stateTokens } from "@/server/ace/tokens";
import { insertTogether, Prisma, type DbOrTx, type OperationStatus, type OperationType, type Tx } from "@/server/db/client";
import { BULLET_SELECT } from "@/server/playbooks/repository";
import type { z } from "zod";
import {
  evidenceSchema,
  type DeltaFlags,
  type DeltaListItem,
  type DeltaOrigin,
  type DeltaStatus,
  type listDeltasInput,
  type OperationCounts,
} from "./schemas";

// ---- Playbook state ----------------------------------------------------------------------

export function findPlaybookHead(db: DbOrTx, playbookId: string) {
  return db.playbook.findUnique({
    where: { id: playbookId },
    select: { id: true, name: true, version: true, settings: true, nextBulletNumber: true },
  });
}
export type PlaybookHead = NonNullable<Awaited<ReturnType<typeof findPlaybookHead>>>;

export function currentVersion(db: DbOrTx, playbookId: string) {
  return db.playbook.findUnique({ where: { id: playbookId }, select: { version: true } });
}

export function loadSectionStates(db: DbOrTx, playbookId: string): Promise<SectionState[]> {
  return db.section.findMany({
    where: { playbookId },
    orderBy: [{ position: "asc" }, { id: "asc" }],
    select: { id: true, name: true, slug: true, position: true },
  });
}

// ---- Writing a version's changes -----------------------------------------------------------

/** Provenance of bullets a delta adds (not part of the version record). */
export interface NewBulletProvenance {
  origin: "manual" | "curator" | "import";
  justification: string | null;
  sourceTraceId: string | null;
  sourceRunId: string | null;
}

export async function insertSections(tx: Tx, playbookId: string, sections: SectionState[], version: number) {
  if (sections.length === 0) return;
  await tx.section.createMany({
    data: sections.map((section) => ({
      ...section,
      playbookId,
      changedInVersion: version,
      blankLinesBefore: section.position === 0 ? 0 : 1,
    })),
  });
}

/**
 * Updates sections in two steps when names change, so swapping two names (or renaming onto a name
 * another row leaves in the same version) never trips the (playbookId, name) unique index midway.
 */
export async function updateSections(
  tx: Tx,
  playbookId: string,
  updates: { before: SectionState; after: SectionState }[],
  version: number,
) {
  const renamed = updates.filter(({ before, after }) => before.name !== after.name);
  for (const { after } of renamed) {
    await tx.section.updateMany({ where: { id: after.id, playbookId }, data: { name: `~renaming~${after.id}` } });
  }
  for (const { before, after } of updates) {
    const identityChanged = before.name !== after.name || before.slug !== after.slug;
    await tx.section.updateMany({
      where: { id: after.id, playbookId },
      data: {
        name: after.name,
        slug: after.slug,
        position: after.position,
        ...(identityChanged ? { changedInVersion: version } : {}),
      },
    });
  }
}

export function deleteSections(tx: Tx, playbookId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve({ count: 0 });
  return tx.section.deleteMany({ where: { playbookId, id: { in: ids } } });
}

/** Rows per statement: each statement's arrays or JSON document stay a few megabytes at most. */
const WRITE_CHUNK = 1_000;

export interface BulletWrite {
  state: BulletState;
  /** A new bullet carries its provenance; an existing one keeps what it has. */
  provenance: NewBulletProvenance | null;
  /** Whether the change counts for stale detection (anything but a shift among neighbours). */
  bump: boolean;
}

/**
 * Writes new and changed bullets in one statement per 1,000 rows (an upsert on the stable id), and
 * checks that exactly the expected rows were new: a write never silently creates or misses a bullet.
 */
export async function writeBullets(tx: Tx, playbookId: string, rows: BulletWrite[], version: number) {
  for (let start = 0; start < rows.length; start += WRITE_CHUNK) {
    const chunk = rows.slice(start, start + WRITE_CHUNK);
    // One array per column, made into rows by unnest: a VALUES list of 21 parameters a row was
    // parsed and planned anew on every apply. Enum arrays go as text[]: the PGlite adapter writes an
    // array of a type it does not know as "a,b,c", which PostgreSQL refuses.
    const column = <T>(of: (row: BulletWrite) => T) => chunk.map(of);
    const written = await tx.$queryRaw<{ inserted: boolean }[]>`
      INSERT INTO "Bullet" AS b (id, "playbookId", "sectionId", "externalId", content, helpful, harmful, neutral,
        "countersKnown", status, "archivedReason", "mergedInto", position, origin, "sourceTraceId", "sourceRunId",
        justification, "changedInVersion", "tokenCount", pinned, "createdAt", "updatedAt")
      SELECT gen_random_uuid(), ${playbookId}::uuid, r.*, (now() AT TIME ZONE 'UTC'), (now() AT TIME ZONE 'UTC')
      FROM unnest(
        ${column((w) => w.state.sectionId)}::uuid[], ${column((w) => w.state.externalId)}::text[],
        ${column((w) => w.state.content)}::text[], ${column((w) => w.state.helpful)}::int[], ${column((w) => w.state.harmful)}::int[],
        ${column((w) => w.state.neutral)}::int[], ${column((w) => w.state.countersKnown)}::boolean[],
        ${column((w) => w.state.status)}::text[]::"BulletStatus"[], ${column((w) => w.state.archivedReason)}::text[],
        ${column((w) => w.state.mergedInto)}::text[], ${column((w) => w.state.position)}::int[],
        ${column((w) => w.provenance?.origin ?? "manual")}::text[]::"BulletOrigin"[], ${column((w) => w.provenance?.sourceTraceId ?? null)}::uuid[],
        ${column((w) => w.provenance?.sourceRunId ?? null)}::text[], ${column((w) => w.provenance?.justification ?? null)}::text[],
        ${column((w) => (w.bump || w.provenance ? version : 0))}::int[], ${column((w) => stateTokens(w.state))}::int[],
        ${column((w) => w.state.pinned === true)}::boolean[]
      ) AS r
      ON CONFLICT ("playbookId", "externalId") DO UPDATE SET
        "sectionId" = EXCLUDED."sectionId", content = EXCLUDED.content, helpful = EXCLUDED.helpful,
        harmful = EXCLUDED.harmful, neutral = EXCLUDED.neutral, "countersKnown" = EXCLUDED."countersKnown",
        status = EXCLUDED.status, "archivedReason" = EXCLUDED."archivedReason", "mergedInto" = EXCLUDED."mergedInto",
        position = EXCLUDED.position, "tokenCount" = EXCLUDED."tokenCount", pinned = EXCLUDED.pinned, "changedInVersion" = GREATEST(b."changedInVersion", EXCLUDED."changedInVersion"),
        "updatedAt" = EXCLUDED."updatedAt"
      RETURNING (xmax = 0) AS inserted`;
    const inserted = written.filter((row) => row.inserted).length;
    const expected = chunk.filter((row) => row.provenance !== null).length;
    if (written.length !== chunk.length || inserted !== expected) {
      throw new Error(
        `Expected ${expected} new and ${chunk.length - expected} changed bullets, wrote ${inserted} new of ${written.length}: ` +
          "the playbook changed underneath.",
      );
    }
  }
}

// ---- Deltas ---------------------------------------------------------------------------------

export interface NewOperationRow {
  id: string;
  position: number;
  type: Prisma.DeltaOperationCreateManyInput["type"];
  status: "pending" | "approved" | "rejected";
  payload: unknown;
  flags: unknown;
  rationale: string;
  targetIds: string[];
  targetSectionIds: string[];
}

/** A delta's own columns, as written and as read. */
interface DeltaColumns {
  id: string;
  playbookId: string;
  status: DeltaStatus;
  origin: DeltaOrigin;
  author: string;
  rationale: string;
  confidence: number | null;
  baseVersion: number;
  appliedVersion: number | null;
  reviewNote: string | null;
  decidedBy: string | null;
}

export interface NewDeltaRow extends DeltaColumns {
  evidence: unknown;
  /** Decided at insertion (a direct edit, an auto-apply, a rollback): decidedAt is the database's now. */
  decided: boolean;
}

/** A delta that a person's own action applied at once (an edit, an undo, a rollback): decided by them at insertion, no evidence. */
export function appliedByPerson({
  actor,
  ...fields
}: Pick<NewDeltaRow, "id" | "playbookId" | "origin" | "rationale" | "baseVersion"> & {
  actor: string;
  appliedVersion: number;
}): NewDeltaRow {
  return {
    ...fields,
    status: "applied",
    author: actor,
    confidence: null,
    evidence: evidenceSchema.parse({}),
    reviewNote: null,
    decidedBy: actor,
    decided: true,
  };
}

/**
 * A delta and its operations, with the first WRITE_CHUNK of them in the delta's own statement
 * (insertTogether: their foreign keys are checked at its end). Raw SQL for the same reason as
 * versionInsert (server/history/repository.ts); a delta holds up to 500 operations.
 */
export async function insertDelta(tx: Tx, delta: NewDeltaRow, operations: NewOperationRow[]) {
  const deltaInsert = Prisma.sql`
    INSERT INTO "Delta" (id, "playbookId", status, origin, author, rationale, confidence, "baseVersion", "appliedVersion",
      evidence, "reviewNote", "decidedBy", "decidedAt", "createdAt", "updatedAt")
    VALUES (${delta.id}::uuid, ${delta.playbookId}::uuid, ${delta.status}::"DeltaStatus", ${delta.origin}::"DeltaOrigin",
      ${delta.author}::text, ${delta.rationale}::text, ${delta.confidence}::float8, ${delta.baseVersion}::int,
      ${delta.appliedVersion}::int, ${JSON.stringify(delta.evidence)}::jsonb, ${delta.reviewNote}::text, ${delta.decidedBy}::text,
      CASE WHEN ${delta.decided}::boolean THEN (now() AT TIME ZONE 'UTC') END, (now() AT TIME ZONE 'UTC'), (now() AT TIME ZONE 'UTC'))`;
  // The rows go as one JSON document: as a VALUES list (ten parameters a row) the statement took
  // half as long again to parse and plan as to insert them.
  const operationsInsert = (rows: NewOperationRow[]) => Prisma.sql`
    INSERT INTO "DeltaOperation" (id, "deltaId", position, type, status, payload, flags, rationale, "targetIds", "targetSectionIds")
    SELECT r.id, ${delta.id}::uuid, r.position, r.type, r.status, r.payload, r.flags, r.rationale, r."targetIds", r."targetSectionIds"
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(id uuid, position int, type "OperationType",
      status "OperationStatus", payload jsonb, flags jsonb, rationale text, "targetIds" text[], "targetSectionIds" text[])
    ORDER BY r.position`;
  const first = operations.slice(0, WRITE_CHUNK);
  await insertTogether(tx, first.length === 0 ? [deltaInsert] : [deltaInsert, operationsInsert(first)]);
  for (let start = WRITE_CHUNK; start < operations.length; start += WRITE_CHUNK) {
    await tx.$executeRaw(operationsInsert(operations.slice(start, start + WRITE_CHUNK)));
  }
}

export interface OperationRecord {
  id: string;
  deltaId: string;
  position: number;
  type: OperationType;
  status: OperationStatus;
  payload: Prisma.JsonValue;
  flags: Prisma.JsonValue;
  rationale: string;
  targetIds: string[];
  targetSectionIds: string[];
  originalPayload: Prisma.JsonValue | null;
  editedBy: string | null;
}

export interface DeltaRecord extends DeltaColumns {
  evidence: Prisma.JsonValue;
  decidedAt: Date | null;
  createdAt: Date;
  playbook: { name: string; version: number };
  /** In position order. */
  operations: OperationRecord[];
}

type StoredDelta = Omit<DeltaRecord, "decidedAt" | "createdAt"> & { decidedAt: number | null; createdAt: number };

/**
 * A delta with its playbook's name and version and its operations, as one JSON document from one
 * statement: as Prisma's relation query (three statements, a row object per operation) a 50-operation
 * delta took 3.9 ms on PGlite before every approval. Timestamps travel as epoch milliseconds.
 */
export async function findDelta(db: DbOrTx, deltaId: string): Promise<DeltaRecord | null> {
  const [row] = await db.$queryRaw<{ delta: string }[]>`
    SELECT json_build_object(
      'id', d.id, 'playbookId', d."playbookId", 'status', d.status, 'origin', d.origin, 'author', d.author,
      'rationale', d.rationale, 'confidence', d.confidence, 'baseVersion', d."baseVersion", 'appliedVersion', d."appliedVersion",
      'evidence', d.evidence, 'reviewNote', d."reviewNote", 'decidedBy', d."decidedBy",
      'decidedAt', floor(extract(epoch FROM d."decidedAt") * 1000), 'createdAt', floor(extract(epoch FROM d."createdAt") * 1000),
      'playbook', json_build_object('name', p.name, 'version', p.version),
      'operations', COALESCE((
        SELECT json_agg(json_build_object(
          'id', o.id, 'deltaId', o."deltaId", 'position', o.position, 'type', o.type, 'status', o.status,
          'payload', o.payload, 'flags', o.flags, 'rationale', o.rationale, 'targetIds', o."targetIds",
          'targetSectionIds', o."targetSectionIds", 'originalPayload', o."originalPayload", 'editedBy', o."editedBy"
        ) ORDER BY o.position)
        FROM "DeltaOperation" o WHERE o."deltaId" = d.id), '[]'::json)
    )::text AS delta
    FROM "Delta" d JOIN "Playbook" p ON p.id = d."playbookId"
    WHERE d.id = ${deltaId}::uuid`;
  if (!row) return null;
  const { decidedAt, createdAt, ...delta } = JSON.parse(row.delta) as StoredDelta;
  return { ...delta, decidedAt: decidedAt === null ? null : new Date(decidedAt), createdAt: new Date(createdAt) };
}

/**
 * Moves a pending delta to its decision, and the operations named to theirs, in one statement; 0
 * (and no operation changed) when someone decided it first.
 */
export async function decideDelta(
  tx: Tx,
  deltaId: string,
  data: {
    status: DeltaStatus;
    appliedVersion?: number | null;
    reviewNote?: string | null;
    decidedBy: string;
    decidedAt: Date;
  },
  operations: { approved?: readonly string[]; rejected?: readonly string[] } = {},
): Promise<number> {
  const { approved = [], rejected = [] } = operations;
  const decidedAt = Prisma.sql`(${data.decidedAt.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;
  const [row] = await tx.$queryRaw<{ decided: number }[]>`
    WITH decided AS (
      UPDATE "Delta" SET status = ${data.status}::text::"DeltaStatus", "appliedVersion" = ${data.appliedVersion ?? null}::int,
        "reviewNote" = ${data.reviewNote ?? null}::text, "decidedBy" = ${data.decidedBy}::text, "decidedAt" = ${decidedAt},
        "updatedAt" = ${decidedAt}
      WHERE id = ${deltaId}::uuid AND status = 'pending'
      RETURNING id
    ), operations AS (
      UPDATE "DeltaOperation" o
      SET status = (CASE WHEN o.id = ANY(${[...approved]}::uuid[]) THEN 'approved' ELSE 'rejected' END)::"OperationStatus"
      FROM decided
      WHERE o."deltaId" = decided.id AND o.id = ANY(${[...approved, ...rejected]}::uuid[])
    )
    SELECT count(*)::int AS decided FROM decided`;
  return row?.decided ?? 0;
}

/**
 * A decided delta back to pending (an undone decision): 0 when it is no longer in the decided state
 * the undo was computed from (someone undid or changed it first).
 */
export async function reopenDelta(
  tx: Tx,
  deltaId: string,
  from: { status: DeltaStatus; appliedVersion: number | null },
  data: { baseVersion: number; reviewNote: string | null },
): Promise<number> {
  const { count } = await tx.delta.updateMany({
    where: { id: deltaId, status: from.status, appliedVersion: from.appliedVersion },
    data: { ...data, status: "pending", appliedVersion: null, decidedBy: null, decidedAt: null },
  });
  return count;
}

export function setOperationStatus(tx: Tx, deltaId: string, ids: string[], status: "pending" | "approved" | "rejected") {
  if (ids.length === 0) return Promise.resolve({ count: 0 });
  return tx.deltaOperation.updateMany({ where: { deltaId, id: { in: ids } }, data: { status } });
}

export function updateOperation(
  tx: DbOrTx,
  operationId: string,
  data: {
    payload?: unknown;
    originalPayload?: unknown;
    editedBy?: string;
    rationale?: string;
    flags?: unknown;
    targetIds?: string[];
    targetSectionIds?: string[];
  },
) {
  const { payload, originalPayload, flags, ...rest } = data;
  return tx.deltaOperation.update({
    where: { id: operationId },
    data: {
      ...rest,
      ...(payload === undefined ? {} : { payload: payload as Prisma.InputJsonObject }),
      ...(originalPayload === undefined ? {} : { originalPayload: originalPayload as Prisma.InputJsonObject }),
      ...(flags === undefined ? {} : { flags: flags as Prisma.InputJsonArray }),
    },
    select: { id: true },
  });
}

/** Re-based: a new base version for a still-pending delta. */
export async function rebaseDelta(tx: Tx, deltaId: string, baseVersion: number): Promise<number> {
  const { count } = await tx.delta.updateMany({ where: { id: deltaId, status: "pending" }, data: { baseVersion } });
  return count;
}

/** How a delta was decided, read after losing a race for it (to name who won). */
export function findDecision(db: DbOrTx, deltaId: string) {
  return db.delta.findUnique({ where: { id: deltaId }, select: { status: true, decidedBy: true } });
}

export async function lockPendingDelta(tx: Tx, deltaId: string): Promise<boolean> {
  // A no-op write takes the row lock, so two reviewers editing one delta queue up instead of interleaving.
  const { count } = await tx.delta.updateMany({ where: { id: deltaId, status: "pending" }, data: { updatedAt: new Date() } });
  return count === 1;
}

// ---- The queue ------------------------------------------------------------------------------

/**
 * What moves when the queue or a playbook in it changes: the pending count, the latest change to a
 * pending delta, and the playbooks' versions (which only go up). Cheap enough to poll: the pending
 * deltas come from the (status, createdAt) index.
 */
export async function queueSignature(db: DbOrTx, playbookId: string | null): Promise<string> {
  const delta = playbookId === null ? Prisma.empty : Prisma.sql`AND d."playbookId" = ${playbookId}::uuid`;
  const playbook = playbookId === null ? Prisma.empty : Prisma.sql`WHERE p.id = ${playbookId}::uuid`;
  const [row] = await db.$queryRaw<{ pending: number; changed: Date | null; versions: bigint; playbooks: number }[]>`
    SELECT (SELECT count(*) FROM "Delta" d WHERE d.status = 'pending' ${delta})::int AS pending,
           (SELECT max(d."updatedAt") FROM "Delta" d WHERE d.status = 'pending' ${delta}) AS changed,
           (SELECT COALESCE(sum(p.version), 0) FROM "Playbook" p ${playbook})::bigint AS versions,
           (SELECT count(*) FROM "Playbook" p ${playbook})::int AS playbooks`;
  return row ? `${row.pending}:${row.changed?.getTime() ?? 0}:${row.versions}:${row.playbooks}` : "";
}

/** A pending delta is stale when a bullet or section it targets changed after its base version. */
const STALE_SQL = Prisma.sql`(d.status = 'pending' AND p.version > d."baseVersion" AND (
  EXISTS (SELECT 1 FROM "DeltaOperation" o
          JOIN "Bullet" b ON b."playbookId" = d."playbookId" AND b."externalId" = ANY(o."targetIds")
          WHERE o."deltaId" = d.id AND o.status = 'pending' AND b."changedInVersion" > d."baseVersion")
  OR EXISTS (SELECT 1 FROM "DeltaOperation" o
          JOIN "Section" s ON s."playbookId" = d."playbookId" AND s.id::text = ANY(o."targetSectionIds")
          WHERE o."deltaId" = d.id AND o.status = 'pending' AND s."changedInVersion" > d."baseVersion")))`;

/** A list item as the query returns it: operation counts and flags flat, types as a raw JSON object. */
export type DeltaListRow = Omit<DeltaListItem, "counts" | "types" | "flags"> &
  OperationCounts &
  DeltaFlags & { types: Record<string, number> | null };

/** `scope`: only these playbooks' deltas (a restricted caller's); "all": every playbook. */
function deltaFilter(query: z.output<typeof listDeltasInput>, scope: "all" | readonly string[]): Prisma.Sql {
  const where: Prisma.Sql[] = [];
  if (query.playbookId) where.push(Prisma.sql`d."playbookId" = ${query.playbookId}::uuid`);
  if (scope !== "all") where.push(Prisma.sql`d."playbookId" = ANY(${[...scope]}::uuid[])`);
  if (query.origin) where.push(Prisma.sql`d.origin = ${query.origin}::"DeltaOrigin"`);
  switch (query.status) {
    case "pending":
      where.push(Prisma.sql`d.status = 'pending'`);
      break;
    case "stale":
      where.push(STALE_SQL);
      break;
    case "applied":
      where.push(Prisma.sql`d.status IN ('applied', 'auto_applied')`);
      break;
    case "auto_applied":
      where.push(Prisma.sql`d.status = 'auto_applied'`);
      break;
    case "rejected":
      where.push(Prisma.sql`d.status = 'rejected'`);
      break;
    case "decided":
      where.push(Prisma.sql`d.status IN ('applied', 'auto_applied', 'rejected')`);
      break;
    case "all":
      break;
  }
  return where.length > 0 ? Prisma.sql`WHERE ${Prisma.join(where, " AND ")}` : Prisma.empty;
}

/**
 * A page of deltas, newest first, with the counts and flags of each. The per-delta subqueries run
 * for the page's rows only (the total is counted separately, without them).
 */
export function listDeltas(
  db: DbOrTx,
  query: z.output<typeof listDeltasInput>,
  scope: "all" | readonly string[] = "all",
): Promise<DeltaListRow[]> {
  return db.$queryRaw<DeltaListRow[]>`
    SELECT page.*,
           ops.total, ops.pending, ops.approved, ops.rejected, ops."hasErrors", ops."hasDuplicates", ops."hasWarnings",
           (SELECT jsonb_object_agg(t.type, t.n) FROM (
              SELECT o.type::text AS type, count(*)::int AS n FROM "DeltaOperation" o WHERE o."deltaId" = page.id GROUP BY o.type
           ) t) AS types
    FROM (
      SELECT d.id, d."playbookId", p.name AS "playbookName", d.status::text AS status, d.origin::text AS origin,
             d.author, d.rationale, d.confidence, d."baseVersion", d."appliedVersion", p.version AS "currentVersion",
             d."reviewNote", d."decidedBy", d."decidedAt", d."createdAt", ${STALE_SQL} AS stale
      FROM "Delta" d
      JOIN "Playbook" p ON p.id = d."playbookId"
      ${deltaFilter(query, scope)}
      ORDER BY d."createdAt" DESC, d.id DESC
      LIMIT ${query.limit} OFFSET ${query.cursor}
    ) page
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS total,
             (count(*) FILTER (WHERE o.status = 'pending'))::int AS pending,
             (count(*) FILTER (WHERE o.status = 'approved'))::int AS approved,
             (count(*) FILTER (WHERE o.status = 'rejected'))::int AS rejected,
             COALESCE(bool_or(o.flags @> '[{"severity": "error"}]') FILTER (WHERE o.status <> 'rejected'), false) AS "hasErrors",
             COALESCE(bool_or(o.flags @> '[{"kind": "near_duplicate"}]') FILTER (WHERE o.status <> 'rejected'), false) AS "hasDuplicates",
             COALESCE(bool_or(o.flags @> '[{"severity": "warning"}]') FILTER (WHERE o.status <> 'rejected'), false) AS "hasWarnings"
      FROM "DeltaOperation" o WHERE o."deltaId" = page.id
    ) ops
    ORDER BY page."createdAt" DESC, page.id DESC`;
}

export async function countDeltas(
  db: DbOrTx,
  query: z.output<typeof listDeltasInput>,
  scope: "all" | readonly string[] = "all",
): Promise<number> {
  const [row] = await db.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM "Delta" d JOIN "Playbook" p ON p.id = d."playbookId" ${deltaFilter(query, scope)}`;
  return row?.count ?? 0;
}

/** Targets changed after `baseVersion`, with the version that changed them. */
export async function changedTargets(db: DbOrTx, playbookId: string, baseVersion: number, bulletIds: string[], sectionIds: string[]) {
  const [bullets, sections] = await Promise.all([
    bulletIds.length === 0
      ? Promise.resolve([])
      : db.bullet.findMany({
          where: { playbookId, externalId: { in: bulletIds }, changedInVersion: { gt: baseVersion } },
          select: { externalId: true, changedInVersion: true },
        }),
    sectionIds.length === 0
      ? Promise.resolve([])
      : db.section.findMany({
          where: { playbookId, id: { in: sectionIds }, changedInVersion: { gt: baseVersion } },
          select: { id: true, name: true, changedInVersion: true },
        }),
  ]);
  return { bullets, sections };
}

/** Other pending deltas of the playbook whose operations target any of these bullets. */
export function pendingOverlaps(db: DbOrTx, playbookId: string, deltaId: string, bulletIds: string[]) {
  if (bulletIds.length === 0) return Promise.resolve([]);
  return db.deltaOperation.findMany({
    where: {
      status: "pending",
      targetIds: { hasSome: bulletIds },
      delta: { playbookId, status: "pending", id: { not: deltaId } },
    },
    select: { deltaId: true, targetIds: true },
  });
}

export function bulletSnapshots(db: DbOrTx, playbookId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db.bullet.findMany({
    where: { playbookId, externalId: { in: ids } },
    select: { ...BULLET_SELECT, sectionId: true, changedInVersion: true },
  });
}

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The stored traces among a delta's evidence ids (others are an agent's own ids), with their task and outcome. */
export function evidenceTraces(db: DbOrTx, ids: readonly string[]) {
  const uuids = ids.filter((id) => UUID_TEXT.test(id));
  if (uuids.length === 0) return Promise.resolve([]);
  return db.trace.findMany({
    where: { id: { in: uuids } },
    select: { id: true, task: true, outcome: true, timestamp: true },
  });
}

/** The stored runs among a delta's evidence ids, with their role and status. */
export function evidenceRuns(db: DbOrTx, ids: readonly string[]) {
  const uuids = ids.filter((id) => UUID_TEXT.test(id));
  if (uuids.length === 0) return Promise.resolve([]);
  return db.run.findMany({ where: { id: { in: uuids } }, select: { id: true, role: true, status: true, createdAt: true } });
}

export function pendingPruningTargets(db: DbOrTx, playbookId: string) {
  return db.deltaOperation.findMany({
    where: { status: "pending", type: "remove", delta: { playbookId, status: "pending", origin: "pruning" } },
    select: { targetIds: true },
  });
}
