// Trace rules: ingest what agents send (idempotent per playbook and external id, all or nothing),
// and browse what was received.
import type { PlaybookScope } from "@/server/access/restriction";
import { extractBulletIds } from "@/server/ace/ids";
import { recordAudit, type Who } from "@/server/audit/record";
import type { Db } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import { planTraceExperiments, type TraceExperimentPlan } from "@/server/experiments/ingest";
import { STUDIO_DEFAULT_KEYS } from "@/server/playbooks/manage";
import { redactorFor } from "@/server/ace/redaction/settings";
import type { Redactor } from "@/server/ace/redaction/detectors";
import { onTracesStored } from "@/server/runs/triggers";
import { redactorsOf, redactTrace, storedUnitIds } from "./redaction";
import { decodeCursor, encodeCursor } from "./cursor";
import * as repo from "./repository";
import {
  TASK_PREVIEW_CHARS,
  TRACE_COUNT_CAP,
  type CitedBullet,
  type IngestResult,
  type listTracesInput,
  type TraceDetail,
  type TraceInput,
  type TracePage,
  type TraceRedactions,
  REDACTION_PREVIEW_EXAMPLES,
  REDACTION_PREVIEW_TRACES,
  type RedactionPreview,
  type redactionPreviewInput,
} from "./schemas";
import type { z } from "zod";

/** Where traces came from, named in the server log when the after-ingest trigger fails. */
export type TraceSource = "api" | "studio" | "cli";

/** Large batches on the embedded engine take a while; the default 5 s would cut them off. */
const WRITE_TRANSACTION = { maxWait: 10_000, timeout: 60_000 } as const;

/**
 * Time-ordered ids (UUID version 7, RFC 9562): the millisecond, then the trace's place in the batch
 * (24 bits of the counter the RFC allows in place of random bits), then 48 random bits. Traces of one batch share their createdAt, so "newest first" (createdAt, id)
 * lists them last sent first, as if they had arrived one by one.
 */
function timeOrderedIds(count: number): string[] {
  if (count >= 2 ** 24) throw new Error("At most 16,777,215 ids per call.");
  const time = Date.now().toString(16).padStart(12, "0");
  return Array.from({ length: count }, (_, index) => {
    const sequence = index.toString(16).padStart(6, "0");
    const tail = Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex");
    // Version nibble 7; variant bits 10 with the next two bits 0, so the sequence alone orders the ids.
    return `${time.slice(0, 8)}-${time.slice(8)}-7${sequence.slice(0, 3)}-8${sequence.slice(3)}-${tail}`;
  });
}

/** Ids the agent named, or else the ones cited in its reasoning and output, in order of first citation. */
export function citedIdsOf(trace: Pick<TraceInput, "citedBulletIds" | "reasoning" | "output">): string[] {
  if (trace.citedBulletIds) return [...new Set(trace.citedBulletIds)];
  return [...new Set([...extractBulletIds(trace.reasoning ?? ""), ...extractBulletIds(trace.output ?? "")])];
}

function unknownPlaybooksError(items: TraceInput[], missing: string[]): AppError {
  const named = missing.map((name) => {
    if (items.length === 1) return `"${name}"`;
    const indexes = items.flatMap((item, index) => (item.playbook === name ? [index] : []));
    const shown = indexes.slice(0, 5).join(", ") + (indexes.length > 5 ? ` and ${indexes.length - 5} more` : "");
    return `"${name}" (${indexes.length === 1 ? "trace" : "traces"} ${shown})`;
  });
  return new AppError(
    "NOT_FOUND",
    `No playbook named ${named.join(", ")}. Names are case-sensitive; create or import the playbook in ACE Studio first. Nothing was stored.`,
    { details: { playbooks: missing } },
  );
}

const keyOf = (playbookId: string, externalId: string) => `${playbookId}\u0000${externalId}`;

/** What the rows are written with besides the traces themselves. */
interface RowPlan {
  playbooks: Map<string, string>;
  experiments: TraceExperimentPlan[];
  /** Per playbook id: what its settings redact. */
  redactors: Map<string, Redactor>;
  /** Personal unit ids and the keyed hash they are stored as. */
  unitIds: Map<string, string>;
}

/**
 * The rows to insert, one per trace except repeats inside the batch: `firstOf[i]` is the index of the
 * first trace with the same playbook and external id (i itself for the first). Text fields are
 * redacted here, so nothing stored (or later sent to a model) holds what the redactor finds.
 */
function planRows(items: TraceInput[], ids: string[], { playbooks, experiments, redactors, unitIds }: RowPlan) {
  const firstOfKey = new Map<string, number>();
  const firstOf: number[] = [];
  const rows: repo.NewTraceRow[] = [];
  items.forEach((item, index) => {
    const playbookId = playbooks.get(item.playbook) as string;
    const key = item.externalId ? keyOf(playbookId, item.externalId) : null;
    const first = key === null ? undefined : firstOfKey.get(key);
    firstOf.push(first ?? index);
    if (first !== undefined) return;
    if (key !== null) firstOfKey.set(key, index);
    const { trace, redactions } = redactTrace(
      {
        task: item.task,
        reasoning: item.reasoning ?? "",
        output: item.output ?? "",
        feedback: item.feedback ?? {},
        metadata: item.metadata ?? {},
      },
      redactors.get(playbookId) as Redactor,
    );
    const hashedUnitId = item.unitId ? unitIds.get(item.unitId) : undefined;
    const recorded: TraceRedactions | null = hashedUnitId
      ? { counts: redactions?.counts ?? {}, fields: redactions?.fields ?? [], unitIdHashed: true }
      : redactions;
    rows.push({
      id: ids[index] as string,
      playbookId,
      externalId: item.externalId ?? null,
      playbookVersion: item.playbookVersion ?? null,
      task: trace.task,
      reasoning: trace.reasoning,
      output: trace.output,
      // From what the agent sent: a bullet id is never redacted, and the ids must not depend on settings.
      citedBulletIds: citedIdsOf(item),
      outcome: item.outcome ?? "unknown",
      feedback: trace.feedback,
      durationMs: item.durationMs ?? null,
      inputTokens: item.usage?.inputTokens ?? null,
      outputTokens: item.usage?.outputTokens ?? null,
      costUsd: item.usage?.costUsd ?? null,
      model: item.model ?? null,
      // Normalised to UTC here; null takes the receipt time in the insert.
      timestamp: item.timestamp ? new Date(item.timestamp).toISOString() : null,
      experiment: item.experiment ?? null,
      // As sent, or assigned by the server for a unitId without a variant (server/experiments/ingest.ts).
      variant: experiments[index]?.variant ?? null,
      experimentPhase: experiments[index]?.experimentPhase ?? null,
      unitId: hashedUnitId ?? item.unitId ?? null,
      taskId: item.taskId ?? null,
      metadata: trace.metadata,
      redactions: recorded,
    });
  });
  return { rows, firstOf };
}

/**
 * Stores traces in one transaction: all of them or, on any error, none. A trace whose external id
 * its playbook already holds (stored before, or earlier in the same batch) is not stored again and
 * comes back as a duplicate with the id stored the first time. In the same transaction the runs
 * domain queues the new traces' reflection (onTracesStored).
 *
 * `who`: a person uploading traces in the studio, whose upload is audited with the traces. Agents'
 * posts (POST /api/v1/traces) are data arriving by the thousand, not a change someone made: they are
 * not audited one by one (README, "The audit log").
 */
export async function ingestTraces(
  db: Db,
  items: TraceInput[],
  { source, who }: { source: TraceSource; who?: Who },
): Promise<IngestResult> {
  const ids = timeOrderedIds(items.length);
  // Before the transaction: the first call may read (or create) the studio key.
  const unitIds = await storedUnitIds(
    db,
    items.map((item) => item.unitId),
  );
  const { traces, created, committed } = await db.$transaction(async (tx) => {
    const names = [...new Set(items.map((item) => item.playbook))];
    const { playbooks: locked, settingsByKey } = await repo.lockPlaybooksByName(tx, names, STUDIO_DEFAULT_KEYS);
    const playbooks = new Map(locked.map((row) => [row.name, row.id]));
    const missing = names.filter((name) => !playbooks.has(name));
    if (missing.length > 0) throw unknownPlaybooksError(items, missing);
    const redactors = redactorsOf(locked, settingsByKey);

    const experiments = await planTraceExperiments(tx, items, unitIds);
    const { rows, firstOf } = planRows(items, ids, { playbooks, experiments, redactors, unitIds });
    const inserted = await repo.insertTraces(tx, rows);
    // Rows the insert skipped hit an external id stored before: look up the id it was stored under.
    const skipped = rows.flatMap((row) =>
      !inserted.has(row.id) && row.externalId !== null ? [{ playbookId: row.playbookId, externalId: row.externalId }] : [],
    );
    const stored = new Map((await repo.findTraceIds(tx, skipped)).map((row) => [keyOf(row.playbookId, row.externalId), row.id]));

    const traces = items.map((item, index): IngestResult["traces"][number] => {
      const firstId = ids[firstOf[index] as number] as string;
      const id = inserted.has(firstId) ? firstId : stored.get(keyOf(playbooks.get(item.playbook) as string, item.externalId ?? ""));
      if (!id) throw new Error(`Trace ${index} was neither stored nor found by its external id.`);
      const status = id === ids[index] ? "created" : "duplicate";
      return { id, externalId: item.externalId ?? null, playbook: item.playbook, status };
    });
    const created = rows.filter((row) => inserted.has(row.id));
    if (who) {
      const onlyPlaybook = names.length === 1 ? playbooks.get(names[0] as string) : undefined;
      await recordAudit(tx, who.audit, {
        action: "trace.ingest",
        target: onlyPlaybook ? { type: "playbook", id: onlyPlaybook, label: names[0] } : { type: "traces", id: null, label: null },
        playbookId: onlyPlaybook ?? null,
        after: { playbooks: names, received: items.length, created: created.length, duplicates: items.length - created.length, source },
      });
    }
    // The settings the traces were stored under (read under the lock) decide whether they are reflected.
    const settingsById = new Map(locked.map((row) => [row.id, row.settings]));
    const byPlaybook = new Map<string, string[]>();
    for (const row of created) {
      const list = byPlaybook.get(row.playbookId) ?? [];
      list.push(row.id);
      byPlaybook.set(row.playbookId, list);
    }
    const committed =
      byPlaybook.size === 0
        ? undefined
        : await onTracesStored(
            db,
            tx,
            [...byPlaybook].map(([playbookId, traceIds]) => ({ playbookId, traceIds, settings: settingsById.get(playbookId) })),
          );
    return { traces, created, committed };
  }, WRITE_TRANSACTION);
  committed?.();
  return { traces, created: created.length, duplicates: traces.length - created.length };
}

// ---- Browsing ----------------------------------------------------------------------------

export async function listTraces(db: Db, query: z.output<typeof listTracesInput>, scope: PlaybookScope = "all"): Promise<TracePage> {
  const filter = {
    playbookId: query.playbookId,
    playbookIds: scope === "all" ? undefined : scope,
    outcome: query.outcome,
    from: query.from,
    to: query.to,
    reflected: query.reflected,
    experiment: query.experiment,
    variant: query.variant,
    search: query.search,
  };
  const cursor = query.cursor ? decodeCursor(query.cursor, "page") : undefined;
  const before = cursor ? { createdAt: cursor.at, id: cursor.id } : undefined;
  const [rows, total] = await Promise.all([
    repo.listTraces(db, { ...filter, before, limit: query.limit }, TASK_PREVIEW_CHARS),
    before ? null : repo.countTraces(db, filter, TRACE_COUNT_CAP),
  ]);
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > query.limit && last ? encodeCursor(last.createdAt, last.id) : null, total };
}

export async function getTrace(db: Db, traceId: string): Promise<TraceDetail> {
  const trace = await repo.findTrace(db, traceId);
  if (!trace) throw notFound("The trace");
  const cited = trace.citedBulletIds ?? [];
  const [bullets, runs] = await Promise.all([
    repo.findBulletsByExternalId(db, trace.playbookId, cited),
    repo.findRunsOfTrace(db, trace.playbookId, trace.id),
  ]);
  const byId = new Map(bullets.map((bullet) => [bullet.externalId, bullet]));
  const citedBullets = cited.map((externalId): CitedBullet => {
    const bullet = byId.get(externalId);
    if (!bullet) {
      return {
        externalId,
        exists: false,
        content: null,
        sectionName: null,
        helpful: null,
        harmful: null,
        neutral: null,
        countersKnown: null,
        status: null,
      };
    }
    const { section, ...fields } = bullet;
    return { ...fields, exists: true, sectionName: section.name };
  });
  const { playbook, feedback, metadata, redactions, ...fields } = trace;
  return {
    ...fields,
    citedBulletIds: cited,
    playbookName: playbook.name,
    feedback: asObject(feedback),
    metadata: asObject(metadata),
    redactions: readRedactions(redactions),
    citedBullets,
    runs,
  };
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The stored redaction record, or null when there is none (or it is unreadable). */
function readRedactions(value: unknown): TraceRedactions | null {
  const record = asObject(value);
  const counts = asObject(record.counts);
  if (!Array.isArray(record.fields)) return null;
  return {
    counts: Object.fromEntries(Object.entries(counts).filter((entry): entry is [string, number] => typeof entry[1] === "number")),
    fields: record.fields.filter((field): field is string => typeof field === "string"),
    ...(record.unitIdHashed === true ? { unitIdHashed: true } : {}),
  };
}

// ---- Redaction dry run -------------------------------------------------------------------------

const EXCERPT_CHARS = 80;

/** The text around the first replacement, as it would be stored. */
function excerptOf(text: string): string {
  const at = text.indexOf("[REDACTED:");
  const start = Math.max(0, at - EXCERPT_CHARS);
  const end = Math.min(text.length, text.indexOf("]", at) + 1 + EXCERPT_CHARS);
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

/** A redacted object key as stored: a mark, numbered when keys redacted alike ([REDACTED:secret]#2). */
const REDACTED_KEY = /^\[REDACTED:[^\]]+\](?:#\d+)?$/;

/** A string of a redacted trace by its field path (task, feedback.notes, metadata.keys.0 …); for a redacted key, the key and its string value. */
function fieldText(trace: Record<string, unknown>, path: string): string {
  let value: unknown = trace;
  for (const key of path.split("."))
    value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  const last = path.slice(path.lastIndexOf(".") + 1);
  if (REDACTED_KEY.test(last)) return typeof value === "string" ? `${last}: ${value}` : last;
  return typeof value === "string" ? value : "";
}

/**
 * What these redaction settings would replace in the playbook's newest traces, before they are
 * saved. Stored traces were redacted with the settings of their time, so only what those left is seen.
 */
export async function previewRedaction(db: Db, input: z.output<typeof redactionPreviewInput>): Promise<RedactionPreview> {
  if (!(await repo.playbookExists(db, input.playbookId))) throw notFound("The playbook");
  const redactor = redactorFor(input.redaction);
  const rows = await repo.findRecentTraceTexts(db, input.playbookId, REDACTION_PREVIEW_TRACES);
  const counts: Record<string, number> = {};
  const examples: RedactionPreview["examples"] = [];
  let tracesMatched = 0;
  for (const row of rows) {
    const { trace, redactions } = redactTrace(
      { task: row.task, reasoning: row.reasoning, output: row.output, feedback: asObject(row.feedback), metadata: asObject(row.metadata) },
      redactor,
    );
    if (!redactions) continue;
    tracesMatched++;
    for (const [kind, count] of Object.entries(redactions.counts)) counts[kind] = (counts[kind] ?? 0) + count;
    for (const field of redactions.fields) {
      if (examples.length >= REDACTION_PREVIEW_EXAMPLES) break;
      examples.push({
        traceId: row.id,
        externalId: row.externalId,
        field,
        excerpt: excerptOf(fieldText(trace as unknown as Record<string, unknown>, field)),
      });
    }
  }
  return { scanned: rows.length, tracesMatched, counts, examples };
}
