// Deleting on request (issue 16 §3): a person's traces, found by unit id, external id or time range
// in one playbook, exported as JSON Lines for a subject-access request, then deleted with the unit's
// experiment exposures, in one audited transaction. Counters the traces moved stay as they are.
import { recordAudit, type Who } from "@/server/audit/record";
import type { Db, DbOrTx } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import { removeTraceCopies } from "./copies";
import { decodeCursor, encodeCursor } from "./cursor";
import { storedUnitIds } from "./redaction";
import * as repo from "./repository";
import {
  TRACE_EXPORT_PAGE,
  type TraceDeletionResult,
  type TraceExportPage,
  type TraceExportRecord,
  type TraceSelection,
  type TraceSelectionSummary,
} from "./schemas";

/** A selection over HTTP or the CLI names its playbook; it is resolved to the tRPC form here. */
export async function selectionByName(
  db: DbOrTx,
  { playbook, ...selectors }: Omit<TraceSelection, "playbookId"> & { playbook: string },
): Promise<TraceSelection> {
  const found = await repo.findPlaybookIdByName(db, playbook);
  if (!found) throw new AppError("NOT_FOUND", `No playbook named "${playbook}". Names are case-sensitive.`);
  return { playbookId: found, ...selectors };
}

/** The unit id matches as sent and as the keyed hash an email or phone number is stored under. */
async function storedSelection(db: DbOrTx, selection: TraceSelection): Promise<repo.StoredSelection> {
  if (!(await repo.playbookExists(db, selection.playbookId))) throw notFound("The playbook");
  const hashed = selection.unitId ? (await storedUnitIds(db, [selection.unitId])).get(selection.unitId) : undefined;
  return {
    playbookId: selection.playbookId,
    unitIds: selection.unitId ? [selection.unitId, ...(hashed ? [hashed] : [])] : null,
    externalId: selection.externalId ?? null,
    from: selection.from ?? null,
    to: selection.to ?? null,
  };
}

export async function summarizeSelection(db: Db, selection: TraceSelection): Promise<TraceSelectionSummary> {
  return repo.summarizeSelection(db, await storedSelection(db, selection));
}

function traceRecord(row: repo.ExportTraceRow): TraceExportRecord {
  const { createdAt, inputTokens, outputTokens, costUsd, timestamp, reflectedAt, ...fields } = row;
  return {
    record: "trace",
    ...fields,
    timestamp: timestamp.toISOString(),
    receivedAt: createdAt.toISOString(),
    usage: { inputTokens, outputTokens, costUsd },
    reflectedAt: reflectedAt?.toISOString() ?? null,
  };
}

/**
 * One page of the selection's export, oldest trace first; the unit's exposures come on the first
 * page. What is exported is what is stored: redacted at ingestion, a personal unit id as its hash.
 */
export async function exportSelectionPage(db: Db, selection: TraceSelection, cursor?: string | null): Promise<TraceExportPage> {
  const stored = await storedSelection(db, selection);
  const decoded = cursor ? decodeCursor(cursor, "export") : null;
  const after = decoded ? { timestamp: decoded.at, id: decoded.id } : null;
  const rows = await repo.findSelectionPage(db, stored, after, TRACE_EXPORT_PAGE);
  const page = rows.slice(0, TRACE_EXPORT_PAGE);
  const exposures = after ? [] : await repo.findUnitExposures(db, stored);
  const last = page.at(-1);
  return {
    records: [
      ...page.map(traceRecord),
      ...exposures.map((exposure): TraceExportRecord => ({
        record: "exposure",
        ...exposure,
        firstSeenAt: exposure.firstSeenAt.toISOString(),
      })),
    ],
    nextCursor: rows.length > TRACE_EXPORT_PAGE && last ? encodeCursor(last.timestamp, last.id) : null,
  };
}

/**
 * The whole export as JSON Lines, one record a line, read a page at a time. The first page is read
 * before the stream is handed out, so a bad selection is an error response, not a cut-off body.
 */
export async function exportSelectionLines(db: Db, selection: TraceSelection): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  let page: TraceExportPage | null = await exportSelectionPage(db, selection);
  return new ReadableStream({
    async pull(controller) {
      if (!page) return controller.close();
      const text = page.records.map((record) => `${JSON.stringify(record)}\n`).join("");
      if (text) controller.enqueue(encoder.encode(text));
      page = page.nextCursor ? await exportSelectionPage(db, selection, page.nextCursor) : null;
    },
  });
}

/** A long selection on the embedded engine takes a while; the default 5 s would cut it off. */
const DELETE_TRANSACTION = { maxWait: 10_000, timeout: 120_000 } as const;

/**
 * Deletes the selection's traces (and, for a unit id alone, the unit's experiment exposures) in one
 * transaction with their copies (copies.ts) and its audit entry. The entry names the selection, a
 * personal unit id only as its hash, and counts, so the log does not keep what was deleted.
 */
export async function deleteSelection(db: Db, who: Who, selection: TraceSelection): Promise<TraceDeletionResult> {
  const stored = await storedSelection(db, selection);
  return db.$transaction(async (tx) => {
    const { traceIds, ...deleted } = await repo.deleteSelection(tx, stored);
    const copies = await removeTraceCopies(tx, stored.playbookId, traceIds, "erasure");
    const removed: TraceDeletionResult = { ...deleted, runsEmptied: copies.runs, deltasRewritten: copies.deltas };
    const playbook = await repo.findPlaybookName(tx, stored.playbookId);
    await recordAudit(tx, who.audit, {
      action: "trace.delete",
      target: { type: "playbook", id: stored.playbookId, label: playbook },
      playbookId: stored.playbookId,
      before: {
        selection: {
          unitId: stored.unitIds?.at(-1) ?? null,
          externalId: stored.externalId,
          from: stored.from?.toISOString() ?? null,
          to: stored.to?.toISOString() ?? null,
        },
      },
      after: removed,
    });
    return removed;
  }, DELETE_TRANSACTION);
}
