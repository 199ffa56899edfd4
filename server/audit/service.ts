// Reading the audit log: pages for the /audit page, every matching entry for the CSV export, and
// the retention rule (IP addresses dropped after ACE_AUDIT_IP_DAYS; the rest stays).
import type { DbOrTx } from "@/server/db/client";
import { auditCsvHeader, auditCsvRow } from "./csv";
import * as repo from "./repository";
import { listAuditInput, type AuditFilters, type AuditPage } from "./schemas";
import type { z } from "zod";

export async function listAudit(db: DbOrTx, raw: z.input<typeof listAuditInput>): Promise<AuditPage> {
  const { cursor, limit, ...filters } = listAuditInput.parse(raw);
  const entries = await repo.listAuditEntries(db, filters, cursor ?? null, limit + 1);
  const page = entries.slice(0, limit);
  return { entries: page, nextCursor: entries.length > limit ? (page.at(-1)?.id ?? null) : null };
}

const CSV_BATCH = 500;

/** The matching entries as CSV, newest first, read in batches so a long log is never held at once. */
export function auditCsv(db: DbOrTx, filters: AuditFilters): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: string | null = null;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(auditCsvHeader()));
        return;
      }
      const entries = await repo.listAuditEntries(db, filters, cursor, CSV_BATCH);
      if (entries.length > 0) controller.enqueue(encoder.encode(entries.map(auditCsvRow).join("")));
      if (entries.length < CSV_BATCH) controller.close();
      else cursor = entries.at(-1)?.id ?? null;
    },
  });
}

const DAY_MS = 24 * 60 * 60_000;

export async function dropOldAuditIps(db: DbOrTx, days: number, now = new Date()): Promise<number> {
  return repo.clearAuditIps(db, new Date(now.getTime() - days * DAY_MS));
}
