// recordAudit: the one way an audit entry is written, inside the transaction of the change it
// records (a change and its entry commit together or not at all).
import type { DbOrTx, Prisma } from "@/server/db/client";
import { auditEntryInsert, insertAuditEntry, type NewAuditEntry } from "./repository";
import type { AuditAction, AuditActor } from "./schemas";

/** Who acts and from where; a tRPC context and an /api/v1 request each carry one. */
export interface AuditSource {
  actor: AuditActor;
  requestId: string | null;
  ip: string | null;
}

/**
 * Who makes a change, as services take it: the name version history records as the author, and
 * the audit log's source. A tRPC context and an /api/v1 route's context are each one.
 */
export interface Who {
  actor: string;
  audit: AuditSource;
}

/**
 * A Who, or a bare name: server code that acts on its own (the reflector, the curator, the demo
 * seed, the benchmark) is the system under that name.
 */
export type WhoOrName = Who | string;

export function systemWho(name: string): Who {
  return { actor: name, audit: { actor: { kind: "system", id: null, name }, requestId: null, ip: null } };
}

export function whoOf(who: WhoOrName): Who {
  return typeof who === "string" ? systemWho(who) : who;
}

export interface AuditRecord {
  /** e.g. "user.role", "apikey.create", "delta.approve" (server/audit/schemas.ts lists them all). */
  action: AuditAction;
  target?: { type: string; id: string | null; label?: string | null } | null;
  /** The playbook the change belongs to, for the log's playbook filter. */
  playbookId?: string | null;
  /** Small summaries of the state before and after (never a secret or a password hash). */
  before?: unknown;
  after?: unknown;
}

/** A summary larger than this is cut and marked, so one entry never holds a whole playbook. */
const MAX_SUMMARY_CHARS = 16_000;

function summaryOf(before: unknown, after: unknown): Prisma.InputJsonValue {
  // Through JSON: dates become ISO strings and undefined fields disappear, as they will be read back.
  const text = JSON.stringify({ before: before ?? null, after: after ?? null });
  if (text.length <= MAX_SUMMARY_CHARS) return JSON.parse(text) as Prisma.InputJsonValue;
  return {
    before: null,
    after: null,
    truncated: `${text.length} characters; the first ${MAX_SUMMARY_CHARS} are kept`,
    text: text.slice(0, MAX_SUMMARY_CHARS),
  };
}

function entryOf(source: AuditSource, record: AuditRecord): NewAuditEntry {
  return {
    actorKind: source.actor.kind,
    actorId: source.actor.id,
    actorName: source.actor.name.slice(0, 300),
    action: record.action,
    targetType: record.target?.type ?? null,
    targetId: record.target?.id ?? null,
    targetLabel: record.target?.label?.slice(0, 300) ?? null,
    playbookId: record.playbookId ?? null,
    summary: summaryOf(record.before, record.after),
    requestId: source.requestId,
    ip: source.ip,
  };
}

export async function recordAudit(tx: DbOrTx, source: AuditSource, record: AuditRecord): Promise<void> {
  await insertAuditEntry(tx, entryOf(source, record));
}

/** recordAudit as an INSERT to run with the rows of the change it records (insertTogether), in its transaction. */
export function auditInsert(source: AuditSource, record: AuditRecord): Prisma.Sql {
  return auditEntryInsert(entryOf(source, record));
}
