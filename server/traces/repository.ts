// Every database call of the trace domain. Returns plain rows; rules live in service.ts.
import { Prisma, type DbOrTx, type Tx } from "@/server/db/client";
import { appSettingsColumn, appSettingsOf, BULLET_SELECT } from "@/server/playbooks/repository";
import type { TraceExportRecord, TraceListItem, TraceOutcome, TraceRedactions } from "./schemas";

/**
 * Playbooks by name, locked against deletion until the transaction ends (FOR KEY SHARE blocks a
 * DELETE, not edits), so the traces about to reference them cannot lose their playbook midway;
 * with the app settings of `settingKeys` (the studio defaults their settings fall back to), read in
 * the same statement: every group of agents' trace posts asks for both.
 */
export async function lockPlaybooksByName(
  tx: Tx,
  names: string[],
  settingKeys: readonly string[],
): Promise<{ playbooks: { id: string; name: string; settings: unknown }[]; settingsByKey: Map<string, unknown> }> {
  const rows = await tx.$queryRaw<{ id: string; name: string; settings: unknown; appSettings: string | null }[]>`
    SELECT id::text AS id, name, settings, ${appSettingsColumn(settingKeys)} AS "appSettings"
    FROM "Playbook" WHERE name = ANY(${names}::text[]) FOR KEY SHARE`;
  return {
    playbooks: rows.map(({ appSettings: _same, ...playbook }) => playbook),
    settingsByKey: appSettingsOf(rows[0]?.appSettings),
  };
}

/** A trace row as ingest writes it. */
export interface NewTraceRow {
  id: string;
  playbookId: string;
  externalId: string | null;
  playbookVersion: number | null;
  task: string;
  reasoning: string;
  output: string;
  citedBulletIds: string[];
  outcome: TraceOutcome;
  feedback: Record<string, unknown>;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  model: string | null;
  /** When the agent ran, ISO 8601 in UTC; null: the time of receipt. */
  timestamp: string | null;
  experiment: string | null;
  variant: string | null;
  /** The experiment phase the trace counts in; null outside a known, started experiment. */
  experimentPhase: number | null;
  unitId: string | null;
  taskId: string | null;
  metadata: Record<string, unknown>;
  /** What redaction replaced (counts per kind, fields); null: nothing. */
  redactions: TraceRedactions | null;
}

/**
 * Rows as one JSON parameter. PostgreSQL text and jsonb cannot hold U+0000, which an agent's output
 * may contain: it becomes U+FFFD. Only a real \u0000 escape is replaced, not an escaped backslash
 * followed by "u0000".
 */
function jsonParameter(rows: unknown): string {
  return JSON.stringify(rows).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, "$1\\ufffd");
}

/** Rows per statement; each statement carries its rows as one JSON parameter. */
const INSERT_CHUNK = 1_000;

/**
 * Inserts traces, skipping those whose (playbook, externalId) is already stored. Returns the ids
 * of the rows written. One statement per 1,000 rows, expanded by json_to_recordset (see
 * insertBullets in server/playbooks/repository.ts for why not createMany).
 */
export async function insertTraces(tx: Tx, traces: NewTraceRow[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (let start = 0; start < traces.length; start += INSERT_CHUNK) {
    const rows = traces.slice(start, start + INSERT_CHUNK);
    const written = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO "Trace" (id, "playbookId", "externalId", "playbookVersion", task, reasoning, output, "citedBulletIds",
        outcome, feedback, "durationMs", "inputTokens", "outputTokens", "costUsd", model, experiment, variant,
        "experimentPhase", "unitId", "taskId", metadata, redactions, "timestamp", "createdAt")
      SELECT r.id, r."playbookId", r."externalId", r."playbookVersion", r.task, r.reasoning, r.output,
        COALESCE(r."citedBulletIds", '{}'), r.outcome, r.feedback, r."durationMs", r."inputTokens", r."outputTokens",
        r."costUsd", r.model, r.experiment, r.variant, r."experimentPhase", r."unitId", r."taskId", r.metadata, r.redactions,
        COALESCE(r."timestamp" AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'), now() AT TIME ZONE 'UTC'
      FROM json_to_recordset(${jsonParameter(rows)}::json) AS r(
        id uuid, "playbookId" uuid, "externalId" text, "playbookVersion" int, task text, reasoning text, output text,
        "citedBulletIds" text[], outcome "TraceOutcome", feedback jsonb, "durationMs" int, "inputTokens" int,
        "outputTokens" int, "costUsd" float8, model text, experiment text, variant text, "experimentPhase" int,
        "unitId" text, "taskId" text, metadata jsonb, redactions jsonb,
        "timestamp" timestamptz)
      ON CONFLICT ("playbookId", "externalId") DO NOTHING
      RETURNING id::text AS id`;
    for (const { id } of written) inserted.add(id);
  }
  return inserted;
}

/** Stored ids of traces by (playbook, externalId). */
export async function findTraceIds(
  tx: DbOrTx,
  keys: { playbookId: string; externalId: string }[],
): Promise<{ id: string; playbookId: string; externalId: string }[]> {
  if (keys.length === 0) return [];
  return tx.$queryRaw`
    SELECT t.id::text AS id, t."playbookId"::text AS "playbookId", t."externalId"
    FROM "Trace" t
    JOIN json_to_recordset(${jsonParameter(keys)}::json) AS k("playbookId" uuid, "externalId" text)
      ON t."playbookId" = k."playbookId" AND t."externalId" = k."externalId"`;
}

// ---- Browsing ----------------------------------------------------------------------------

export interface TraceFilter {
  playbookId?: string;
  /** Only these playbooks' traces (a restricted caller's); undefined: every playbook. */
  playbookIds?: readonly string[];
  outcome?: TraceOutcome;
  from?: Date;
  to?: Date;
  reflected?: boolean;
  experiment?: string;
  variant?: string;
  search?: string;
  /** Keyset: rows strictly older than this (createdAt, id). */
  before?: { createdAt: Date; id: string };
  limit: number;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function traceFilter(filter: TraceFilter): Prisma.Sql {
  const where: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filter.playbookId) where.push(Prisma.sql`t."playbookId" = ${filter.playbookId}::uuid`);
  if (filter.playbookIds) where.push(Prisma.sql`t."playbookId" = ANY(${[...filter.playbookIds]}::uuid[])`);
  if (filter.outcome) where.push(Prisma.sql`t.outcome = ${filter.outcome}::"TraceOutcome"`);
  // Timestamps are UTC without time zone (Prisma's mapping), so bounds are compared in UTC. The range
  // is on when the agent ran, the time the metrics bucket by, so a chart's bucket opens the same traces.
  if (filter.from) where.push(Prisma.sql`t."timestamp" >= (${filter.from.toISOString()}::timestamptz AT TIME ZONE 'UTC')`);
  if (filter.to) where.push(Prisma.sql`t."timestamp" < (${filter.to.toISOString()}::timestamptz AT TIME ZONE 'UTC')`);
  if (filter.reflected === true) where.push(Prisma.sql`t."reflectedAt" IS NOT NULL`);
  if (filter.reflected === false) where.push(Prisma.sql`t."reflectedAt" IS NULL`);
  if (filter.experiment) where.push(Prisma.sql`t.experiment = ${filter.experiment}`);
  if (filter.variant) where.push(Prisma.sql`t.variant = ${filter.variant}`);
  if (filter.search) {
    const pattern = `%${escapeLike(filter.search)}%`;
    where.push(Prisma.sql`(t.task ILIKE ${pattern} OR t."externalId" ILIKE ${pattern})`);
  }
  if (filter.before) {
    where.push(
      Prisma.sql`(t."createdAt", t.id) < (${filter.before.createdAt.toISOString()}::timestamptz AT TIME ZONE 'UTC', ${filter.before.id}::uuid)`,
    );
  }
  return Prisma.join(where, " AND ");
}

/** A list row is exactly what the procedure returns. */
export type TraceListRow = TraceListItem;

/** Newest first; limit + 1 rows are asked for so the caller knows whether a next page exists. */
export function listTraces(db: DbOrTx, filter: TraceFilter, previewChars: number): Promise<TraceListRow[]> {
  return db.$queryRaw<TraceListRow[]>`
    SELECT t.id::text AS id, t."playbookId"::text AS "playbookId", p.name AS "playbookName", t."externalId",
      left(t.task, ${previewChars}::int) AS "taskPreview", t.outcome::text AS outcome,
      COALESCE(t."citedBulletIds", '{}') AS "citedBulletIds", t.experiment, t.variant, t."playbookVersion", t."durationMs",
      t."inputTokens", t."outputTokens", t."costUsd", t.model, t."reflectedAt", t."timestamp", t."createdAt"
    FROM "Trace" t JOIN "Playbook" p ON p.id = t."playbookId"
    WHERE ${traceFilter(filter)}
    ORDER BY t."createdAt" DESC, t.id DESC
    LIMIT ${filter.limit + 1}`;
}

/** Traces matching the filter (its keyset bound ignored), counted up to cap + 1: more is "cap+". */
export async function countTraces(db: DbOrTx, filter: Omit<TraceFilter, "before" | "limit">, cap: number): Promise<number> {
  const [row] = await db.$queryRaw<{ count: number }[]>`
    SELECT COUNT(*)::int AS count FROM (
      SELECT 1 FROM "Trace" t WHERE ${traceFilter({ ...filter, limit: 0 })} LIMIT ${cap + 1}
    ) AS matching`;
  return row?.count ?? 0;
}

export function findTrace(db: DbOrTx, traceId: string) {
  return db.trace.findUnique({
    where: { id: traceId },
    select: {
      id: true,
      playbookId: true,
      externalId: true,
      playbookVersion: true,
      task: true,
      reasoning: true,
      output: true,
      citedBulletIds: true,
      outcome: true,
      feedback: true,
      durationMs: true,
      inputTokens: true,
      outputTokens: true,
      costUsd: true,
      model: true,
      experiment: true,
      variant: true,
      metadata: true,
      unitId: true,
      redactions: true,
      reflectedAt: true,
      timestamp: true,
      createdAt: true,
      playbook: { select: { name: true } },
    },
  });
}

/** The playbook's bullets with these external ids, archived ones included. */
export function findBulletsByExternalId(db: DbOrTx, playbookId: string, externalIds: string[]) {
  if (externalIds.length === 0) return Promise.resolve([]);
  return db.bullet.findMany({
    where: { playbookId, externalId: { in: externalIds } },
    select: BULLET_SELECT,
  });
}

export interface TraceRunRow {
  id: string;
  role: "reflector" | "curator";
  status: "queued" | "running" | "succeeded" | "failed";
  provider: string;
  model: string;
  createdAt: Date;
  deltaId: string | null;
  /** Why it failed, or what a queued run waits for. */
  error: string | null;
}

/** Reflector and curator runs that read the trace, newest first; `@>` is what the GIN index on traceIds serves. */
export function findRunsOfTrace(db: DbOrTx, playbookId: string, traceId: string): Promise<TraceRunRow[]> {
  return db.$queryRaw<TraceRunRow[]>`
    SELECT r.id::text AS id, r.role::text AS role, r.status::text AS status, r.provider, r.model, r."createdAt",
      r."deltaId"::text AS "deltaId", r.error
    FROM "Run" r
    WHERE r."playbookId" = ${playbookId}::uuid AND r."traceIds" @> ARRAY[${traceId}::text]
    ORDER BY r."createdAt" DESC, r.id DESC`;
}

export async function playbookExists(db: DbOrTx, playbookId: string): Promise<boolean> {
  return (await db.playbook.count({ where: { id: playbookId } })) > 0;
}

/** The text of a playbook's newest traces, for a redaction dry run. */
export function findRecentTraceTexts(db: DbOrTx, playbookId: string, limit: number) {
  return db.trace.findMany({
    where: { playbookId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: { id: true, externalId: true, task: true, reasoning: true, output: true, feedback: true, metadata: true },
  });
}

// ---- Deleting on request ----------------------------------------------------------------------

/** A request's traces: one playbook, and each selector given (a unit id in every form it may be stored in). */
export interface StoredSelection {
  playbookId: string;
  unitIds: string[] | null;
  externalId: string | null;
  from: Date | null;
  to: Date | null;
}

function selectionWhere(selection: StoredSelection): Prisma.Sql {
  const where: Prisma.Sql[] = [Prisma.sql`t."playbookId" = ${selection.playbookId}::uuid`];
  if (selection.unitIds) where.push(Prisma.sql`t."unitId" = ANY(${selection.unitIds}::text[])`);
  if (selection.externalId) where.push(Prisma.sql`t."externalId" = ${selection.externalId}`);
  if (selection.from) where.push(Prisma.sql`t."timestamp" >= (${selection.from.toISOString()}::timestamptz AT TIME ZONE 'UTC')`);
  if (selection.to) where.push(Prisma.sql`t."timestamp" < (${selection.to.toISOString()}::timestamptz AT TIME ZONE 'UTC')`);
  return Prisma.join(where, " AND ");
}

/** The exposures a unit-only selection removes with its traces: the unit's, in the playbook's experiments. */
function unitExposuresWhere(selection: StoredSelection): Prisma.Sql {
  const unitOnly = selection.unitIds && !selection.externalId && !selection.from && !selection.to;
  if (!unitOnly) return Prisma.sql`FALSE`;
  return Prisma.sql`x."experimentId" IN (SELECT e.id FROM "Experiment" e WHERE e."playbookId" = ${selection.playbookId}::uuid)
    AND x."unitId" = ANY(${selection.unitIds}::text[])`;
}

export async function summarizeSelection(db: DbOrTx, selection: StoredSelection) {
  const [traces] = await db.$queryRaw<{ traces: number; unreflected: number; oldest: Date | null; newest: Date | null }[]>`
    SELECT count(*)::int AS traces, (count(*) FILTER (WHERE t."reflectedAt" IS NULL))::int AS unreflected,
      min(t."timestamp") AS oldest, max(t."timestamp") AS newest
    FROM "Trace" t WHERE ${selectionWhere(selection)}`;
  // A trace sent without a unit id in an experiment is a unit of its own ("trace:<id>"): it goes with the trace.
  const [exposures] = await db.$queryRaw<{ exposures: number }[]>`
    SELECT count(*)::int AS exposures FROM "ExperimentExposure" x
    WHERE (${unitExposuresWhere(selection)})
      OR (x."fromTrace" AND x."unitId" IN (SELECT 'trace:' || t.id::text FROM "Trace" t WHERE ${selectionWhere(selection)} AND t."unitId" IS NULL))`;
  return { ...(traces ?? { traces: 0, unreflected: 0, oldest: null, newest: null }), exposures: exposures?.exposures ?? 0 };
}

type ExportedTrace = Extract<TraceExportRecord, { record: "trace" }>;

/** A trace as an export reads it: the exported trace's fields, with its times as dates and its usage as columns. */
export type ExportTraceRow = Omit<ExportedTrace, "record" | "timestamp" | "receivedAt" | "usage" | "reflectedAt"> &
  ExportedTrace["usage"] & { timestamp: Date; createdAt: Date; reflectedAt: Date | null };

/** The selection's traces, oldest first, after the keyset (timestamp, id); limit + 1 rows to tell whether more follow. */
export function findSelectionPage(
  db: DbOrTx,
  selection: StoredSelection,
  after: { timestamp: Date; id: string } | null,
  limit: number,
): Promise<ExportTraceRow[]> {
  const keyset = after
    ? Prisma.sql`(t."timestamp", t.id) > (${after.timestamp.toISOString()}::timestamptz AT TIME ZONE 'UTC', ${after.id}::uuid)`
    : Prisma.sql`TRUE`;
  return db.$queryRaw<ExportTraceRow[]>`
    SELECT t.id::text AS id, p.name AS playbook, t."externalId", t."timestamp", t."createdAt", t.task, t.reasoning, t.output,
      t.outcome::text AS outcome, COALESCE(t."citedBulletIds", '{}') AS "citedBulletIds", t.feedback, t.metadata, t."durationMs",
      t."inputTokens", t."outputTokens", t."costUsd", t.model, t."playbookVersion", t.experiment, t.variant, t."unitId", t."taskId",
      t.redactions, t."reflectedAt"
    FROM "Trace" t JOIN "Playbook" p ON p.id = t."playbookId"
    WHERE ${selectionWhere(selection)} AND ${keyset}
    ORDER BY t."timestamp", t.id
    LIMIT ${limit + 1}`;
}

/** The unit's exposures a unit-only selection exports and deletes. */
export function findUnitExposures(db: DbOrTx, selection: StoredSelection) {
  return db.$queryRaw<{ experiment: string; phase: number; unitId: string; variant: string; firstSeenAt: Date; traces: number }[]>`
    SELECT e.key AS experiment, x.phase, x."unitId", x.variant, x."firstSeenAt", x.traces
    FROM "ExperimentExposure" x JOIN "Experiment" e ON e.id = x."experimentId"
    WHERE ${unitExposuresWhere(selection)}
    ORDER BY e.key, x.phase`;
}

/**
 * Deletes the selection's traces, then the unit's exposures. The triggers on "Trace" take the traces
 * off the hourly rollups and the experiment tallies, and remove the exposures of traces sent without
 * a unit id; the bullets' counters, which reflections already moved, stay as they are.
 */
export async function deleteSelection(
  tx: Tx,
  selection: StoredSelection,
): Promise<{ traces: number; exposures: number; traceIds: string[] }> {
  const [fromTraces] = await tx.$queryRaw<{ exposures: number }[]>`
    SELECT count(*)::int AS exposures FROM "ExperimentExposure" x
    WHERE x."fromTrace" AND x."unitId" IN (SELECT 'trace:' || t.id::text FROM "Trace" t WHERE ${selectionWhere(selection)} AND t."unitId" IS NULL)`;
  const deleted = await tx.$queryRaw<{ id: string }[]>`DELETE FROM "Trace" t WHERE ${selectionWhere(selection)} RETURNING t.id::text AS id`;
  const exposures = await tx.$executeRaw`DELETE FROM "ExperimentExposure" x WHERE ${unitExposuresWhere(selection)}`;
  return { traces: deleted.length, exposures: exposures + (fromTraces?.exposures ?? 0), traceIds: deleted.map((row) => row.id) };
}

export async function findPlaybookIdByName(db: DbOrTx, name: string): Promise<string | null> {
  return (await db.playbook.findUnique({ where: { name }, select: { id: true } }))?.id ?? null;
}

export async function findPlaybookName(db: DbOrTx, playbookId: string): Promise<string | null> {
  return (await db.playbook.findUnique({ where: { id: playbookId }, select: { name: true } }))?.name ?? null;
}

// ---- Copies of erased or expired traces (copies.ts) ------------------------------------------------

/** A UTC instant as the timestamp-without-zone the columns hold. */
const utcInstant = (time: Date) => Prisma.sql`(${time.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;

export interface CopyNotices {
  /** "erasure" or "retention": what Run.redactedReason records. */
  reason: string;
  /** A delta's new rationale, a format() template: %1$s traces of its evidence gone, %2$s traces, %3$s runs, %4$s operations. */
  deltaRationale: string;
  /** What an operation's rationale becomes. */
  operationRationale: string;
  /** What replaces a delta's rationale where a version's reason quoted it. */
  versionReason: string;
}

/**
 * Empties the runs of the playbook that read any of `traceIds` (prompt, answers, output; the row
 * stays, marked redacted), then rewrites the deltas that cite those traces or runs, or that those
 * runs proposed: their rationale, their operations' rationales and their evidence notes, the
 * rationale where a version's reason quoted it, and the justification of the bullets they added.
 * Ids and counts stay. Returns how many runs and deltas.
 */
export async function removeTraceCopies(
  tx: Tx,
  playbookId: string,
  traceIds: readonly string[],
  notices: CopyNotices,
  at: Date,
): Promise<{ runs: number; deltas: number }> {
  if (traceIds.length === 0) return { runs: 0, deltas: 0 };
  const ids = [...traceIds];
  const runs = await tx.$queryRaw<{ id: string; deltaId: string | null }[]>`
    UPDATE "Run" SET prompt = '[]'::jsonb, "rawResponse" = '[]'::jsonb, output = NULL,
      "redactedAt" = COALESCE("redactedAt", ${utcInstant(at)}), "redactedReason" = COALESCE("redactedReason", ${notices.reason})
    WHERE "playbookId" = ${playbookId}::uuid AND "traceIds" && ${ids}::text[]
    RETURNING id::text AS id, "deltaId"::text AS "deltaId"`;
  const runIds = runs.map((run) => run.id);
  const runDeltaIds = runs.flatMap((run) => (run.deltaId ? [run.deltaId] : []));
  const evidenceList = (key: string) =>
    Prisma.sql`(CASE WHEN jsonb_typeof(d.evidence->${key}) = 'array' THEN d.evidence->${key} ELSE '[]'::jsonb END)`;
  const [row] = await tx.$queryRaw<{ deltas: number }[]>`
    WITH hit AS (
      SELECT d.id, d.rationale,
        (SELECT count(*) FROM jsonb_array_elements_text(${evidenceList("traceIds")}) e(id) WHERE e.id = ANY(${ids}::text[]))::int AS gone
      FROM "Delta" d
      WHERE d."playbookId" = ${playbookId}::uuid AND (
        d.id = ANY(${runDeltaIds}::uuid[])
        OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(${evidenceList("traceIds")}) e(id) WHERE e.id = ANY(${ids}::text[]))
        OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(${evidenceList("runIds")}) e(id) WHERE e.id = ANY(${runIds}::text[])))
    ),
    versions AS (
      UPDATE "PlaybookVersion" v SET reason = replace(v.reason, hit.rationale, ${notices.versionReason})
      FROM hit WHERE v."deltaId" = hit.id AND hit.rationale <> '' AND strpos(v.reason, hit.rationale) > 0
      RETURNING 1
    ),
    operations AS (
      UPDATE "DeltaOperation" o SET rationale = ${notices.operationRationale}
      FROM hit WHERE o."deltaId" = hit.id AND o.rationale <> ''
      RETURNING 1
    ),
    rewritten AS (
      UPDATE "Delta" d SET
        rationale = format(${notices.deltaRationale}, hit.gone, jsonb_array_length(${evidenceList("traceIds")}),
          jsonb_array_length(${evidenceList("runIds")}), (SELECT count(*) FROM "DeltaOperation" o WHERE o."deltaId" = d.id)),
        evidence = jsonb_set(d.evidence, '{notes}', '""'::jsonb, false)
      FROM hit WHERE d.id = hit.id
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM rewritten)::int AS deltas, (SELECT count(*) FROM versions)::int AS versions,
      (SELECT count(*) FROM operations)::int AS operations`;
  // A bullet an approved delta added keeps its content (that is playbook content now), not the
  // rationale it was proposed with: that is a copy of the traces it came from.
  await tx.$executeRaw`
    UPDATE "Bullet" SET justification = ${notices.operationRationale}
    WHERE "playbookId" = ${playbookId}::uuid AND justification IS NOT NULL AND justification <> ${notices.operationRationale}
      AND ("sourceTraceId" = ANY(${ids}::uuid[]) OR "sourceRunId" = ANY(${runIds}::text[]))`;
  return { runs: runs.length, deltas: row?.deltas ?? 0 };
}
