// Every bullet of a playbook read whole, as one JSON document: the states the delta engine keeps
// (loadBulletStates), and what exports write beyond them (listBulletsForExport, listBulletExtras).
import { Prisma, type BulletOrigin, type DbOrTx } from "@/server/db/client";
import type { BulletState } from "@/server/ace/history";
import { adoptStateTokens } from "@/server/ace/tokens";

/**
 * A bullet's state as one JSON tuple, in this column order: read as one JSON document, 10,000 bullets
 * come 3.4 times faster than as Prisma's rows on PGlite (70 ms against 240 ms) and 1.5 times (1.8
 * for the export's columns) on PostgreSQL.
 */
const BULLET_STATE_COLUMNS = Prisma.raw(
  `"externalId", "sectionId", content, helpful, harmful, neutral, "countersKnown", status, position, "archivedReason", "mergedInto", pinned`,
);

type BulletStateTuple = [
  string,
  string,
  string,
  number,
  number,
  number,
  boolean,
  BulletState["status"],
  number,
  string | null,
  string | null,
  boolean,
];

/** A state's tuple and its row's stored token count. */
type CountedStateTuple = [...BulletStateTuple, number];

function bulletStateOf([
  externalId,
  sectionId,
  content,
  helpful,
  harmful,
  neutral,
  countersKnown,
  status,
  position,
  archivedReason,
  mergedInto,
  pinned,
]: BulletStateTuple | CountedStateTuple): BulletState {
  const state: BulletState = {
    externalId,
    sectionId,
    content,
    helpful,
    harmful,
    neutral,
    countersKnown,
    status,
    position,
    archivedReason,
    mergedInto,
  };
  if (pinned) state.pinned = true;
  return state;
}

/**
 * The current state of every bullet, in the shape versions record; every first apply or context of a
 * playbook after a start waits for it. Each state takes the token count stored with its row
 * (adoptStateTokens), so what a delta changes is not tokenized again to be subtracted.
 */
export async function loadBulletStates(db: DbOrTx, playbookId: string): Promise<BulletState[]> {
  const [row] = await db.$queryRaw<{ bullets: string }[]>`
    SELECT COALESCE(json_agg(json_build_array(${BULLET_STATE_COLUMNS}, "tokenCount")), '[]'::json)::text AS bullets
    FROM "Bullet" WHERE "playbookId" = ${playbookId}::uuid`;
  return (JSON.parse(row?.bullets ?? "[]") as CountedStateTuple[]).map((tuple) => {
    const state = bulletStateOf(tuple);
    const tokens = tuple[12];
    // Rows written before counts existed hold -1.
    if (tokens >= 0) adoptStateTokens(state, tokens);
    return state;
  });
}

/** What a file can carry of a bullet beyond its state. */
export interface ExportBulletExtras {
  origin: BulletOrigin;
  sourceTraceId: string | null;
  sourceRunId: string | null;
  justification: string | null;
  evidence: string | null;
  extra: Prisma.JsonValue;
  blankLinesBefore: number;
  /** ISO 8601 in UTC with milliseconds, as Date.prototype.toISOString writes it. */
  createdAt: string;
  updatedAt: string;
}

/** A bullet as exports write it: its state and every other column a file can carry. */
export type ExportBulletRow = BulletState & ExportBulletExtras;

type ExportExtrasTuple = [
  ExportBulletExtras["origin"],
  string | null,
  string | null,
  string | null,
  string | null,
  Prisma.JsonValue,
  number,
  string,
  string,
];

const EXPORT_EXTRA_FIELDS = `origin, "sourceTraceId", "sourceRunId", justification, evidence, extra, "blankLinesBefore"`;

// The columns of ExportExtrasTuple; the timestamps written in SQL as toISOString writes them (the
// columns hold milliseconds), so no Date is made per bullet.
const EXPORT_EXTRA_COLUMNS = Prisma.raw(
  `${EXPORT_EXTRA_FIELDS}, ` +
    `to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), ` +
    `to_char("updatedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
);

// A timestamp(3) column as json writes it, "2026-11-28T18:29:09.25": UTC without a zone, the
// fraction's trailing zeros cut. Years past 9999, BC and infinity are written otherwise.
const JSON_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.(\d{1,3}))?$/;

/** A timestamp as json writes it, as toISOString would; null outside the years 0000 to 9999. */
function isoOfJsonTimestamp(text: string): string | null {
  const match = JSON_TIMESTAMP.exec(text);
  if (!match) return null;
  const fraction = match[1];
  return fraction === undefined ? `${text}.000Z` : `${text}${"000".slice(fraction.length)}Z`;
}

function exportExtrasOf([
  origin,
  sourceTraceId,
  sourceRunId,
  justification,
  evidence,
  extra,
  blankLinesBefore,
  createdAt,
  updatedAt,
]: ExportExtrasTuple) {
  return { origin, sourceTraceId, sourceRunId, justification, evidence, extra, blankLinesBefore, createdAt, updatedAt };
}

/** Every bullet of the playbook in file order, read as one JSON document like loadBulletStates. */
export async function listBulletsForExport(db: DbOrTx, playbookId: string): Promise<ExportBulletRow[]> {
  const [row] = await db.$queryRaw<{ bullets: string }[]>`
    SELECT COALESCE(json_agg(json_build_array(json_build_array(${BULLET_STATE_COLUMNS}), ${EXPORT_EXTRA_COLUMNS})
      ORDER BY position, "externalId"), '[]'::json)::text AS bullets
    FROM "Bullet" WHERE "playbookId" = ${playbookId}::uuid`;
  // Object.assign, not a spread: 10,000 objects built as { ...state, origin, … } took 20 times as
  // long to make and were about 3 times slower to read afterwards (V8 gives each its own shape), which
  // made a 10k export 2.5 times slower (110 → 278 ms on PGlite).
  return (JSON.parse(row?.bullets ?? "[]") as [BulletStateTuple, ...ExportExtrasTuple][]).map(([state, ...extras]) =>
    Object.assign(bulletStateOf(state), exportExtrasOf(extras)),
  );
}

/** What a file can carry of some bullets beyond their states, by id, and the memory that takes. */
export interface BulletExtras {
  rows: Map<string, ExportBulletExtras>;
  /** An estimate: EXTRAS_ROW_BYTES a row and two bytes a character of the JSON text the rows were read from. */
  bytes: number;
}

// Measured with `node --expose-gc` (heapUsed after gc, before and after) on the benchmark's 10,000
// synthetic bullets, which carry nothing but their timestamps: 2.9 MB, 286 B a row (its object, two
// timestamps, its map slot) read from 112 characters of JSON each; 100 B + 2 B a character counts
// 324. Texts and kayba's extras add about what their JSON takes, at most two bytes a character.
const EXTRAS_ROW_BYTES = 100;
const EXTRAS_BYTES_PER_CHARACTER = 2;

/**
 * What a file can carry of each bullet beyond its state, by id, or of the bullets named in `only`:
 * with the state the delta engine keeps (loadSnapshot), everything an export needs, without reading
 * the contents again. Null when a timestamp is outside the years isoOfJsonTimestamp reads
 * (listBulletsForExport reads every one).
 */
export async function listBulletExtras(db: DbOrTx, playbookId: string, only?: readonly string[]): Promise<BulletExtras | null> {
  const which = only ? Prisma.sql`AND "externalId" = ANY (${only}::text[])` : Prisma.empty;
  // The timestamps as json writes them, finished in JavaScript: to_char took 40 % of this query on PGlite.
  const [row] = await db.$queryRaw<{ bullets: string }[]>`
    SELECT COALESCE(json_agg(json_build_array("externalId", ${Prisma.raw(EXPORT_EXTRA_FIELDS)}, "createdAt", "updatedAt")), '[]'::json)::text
      AS bullets
    FROM "Bullet" WHERE "playbookId" = ${playbookId}::uuid ${which}`;
  const text = row?.bullets ?? "[]";
  const rows = new Map<string, ExportBulletExtras>();
  for (const tuple of JSON.parse(text) as [string, ...ExportExtrasTuple][]) {
    const createdAt = isoOfJsonTimestamp(tuple[8]);
    const updatedAt = isoOfJsonTimestamp(tuple[9]);
    if (createdAt === null || updatedAt === null) return null;
    rows.set(tuple[0], {
      origin: tuple[1],
      sourceTraceId: tuple[2],
      sourceRunId: tuple[3],
      justification: tuple[4],
      evidence: tuple[5],
      extra: tuple[6],
      blankLinesBefore: tuple[7],
      createdAt,
      updatedAt,
    });
  }
  return { rows, bytes: EXTRAS_ROW_BYTES * rows.size + EXTRAS_BYTES_PER_CHARACTER * text.length };
}
