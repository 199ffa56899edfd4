// The audit log as CSV (RFC 4180: quoted when needed, CRLF line ends). A cell that a spreadsheet
// would run as a formula (=, +, -, @, tab, CR at its start) is prefixed with an apostrophe: entries
// hold names people typed.
import type { AuditEntryView } from "./schemas";

export const AUDIT_CSV_COLUMNS = [
  "time",
  "actor_kind",
  "actor",
  "actor_id",
  "action",
  "target_type",
  "target_id",
  "target",
  "playbook_id",
  "before",
  "after",
  "request_id",
  "ip",
] as const;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = value instanceof Date ? value.toISOString() : typeof value === "string" ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}

export function auditCsvHeader(): string {
  return csvRow(AUDIT_CSV_COLUMNS);
}

export function auditCsvRow(entry: AuditEntryView): string {
  return csvRow([
    entry.createdAt,
    entry.actorKind,
    entry.actorName,
    entry.actorId,
    entry.action,
    entry.targetType,
    entry.targetId,
    entry.targetLabel,
    entry.playbookId,
    entry.before,
    entry.after,
    entry.requestId,
    entry.ip,
  ]);
}
