// Every database call of the audit log. There is no update or delete here but the one the retention
// rule needs (IP addresses cleared after ACE_AUDIT_IP_DAYS); a trigger refuses any other.
import { Prisma, type DbOrTx } from "@/server/db/client";
import type { AuditEntryView, AuditFilters } from "./schemas";

/** An entry as written: the columns a reader sees, less the id and time the database gives it, with before and after in one summary. */
export type NewAuditEntry = Omit<AuditEntryView, "id" | "createdAt" | "before" | "after"> & { summary: Prisma.InputJsonValue };

/**
 * The INSERT of an entry, to run on its own (insertAuditEntry) or with the rows of the change it
 * records (insertTogether). Its time is the database clock's when the statement runs.
 */
export function auditEntryInsert(entry: NewAuditEntry): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO "AuditEntry" (id, "createdAt", "actorKind", "actorId", "actorName", action, "targetType", "targetId",
      "targetLabel", "playbookId", summary, "requestId", ip)
    VALUES (gen_random_uuid(), (clock_timestamp() AT TIME ZONE 'UTC'), ${entry.actorKind}::text::"AuditActorKind", ${entry.actorId}::text,
      ${entry.actorName}::text, ${entry.action}::text, ${entry.targetType}::text, ${entry.targetId}::text, ${entry.targetLabel}::text,
      ${entry.playbookId}::uuid, ${JSON.stringify(entry.summary)}::jsonb, ${entry.requestId}::text, ${entry.ip}::text)`;
}

export async function insertAuditEntry(tx: DbOrTx, entry: NewAuditEntry): Promise<void> {
  await tx.$executeRaw(auditEntryInsert(entry));
}

const entryFields = {
  id: true,
  createdAt: true,
  actorKind: true,
  actorId: true,
  actorName: true,
  action: true,
  targetType: true,
  targetId: true,
  targetLabel: true,
  playbookId: true,
  summary: true,
  requestId: true,
  ip: true,
} as const;

function whereOf(filters: AuditFilters): Prisma.AuditEntryWhereInput {
  const action = filters.action;
  return {
    ...(filters.who ? { actorName: { contains: filters.who, mode: "insensitive" as const } } : {}),
    ...(action ? (action.endsWith(".") ? { action: { startsWith: action } } : { action }) : {}),
    ...(filters.playbookId ? { playbookId: filters.playbookId } : {}),
    ...(filters.from || filters.to
      ? { createdAt: { ...(filters.from ? { gte: filters.from } : {}), ...(filters.to ? { lt: filters.to } : {}) } }
      : {}),
  };
}

/** A stored entry as entryFields selects it: what was inserted, with its id, time and summary as read back. */
type Row = Omit<NewAuditEntry, "summary"> & { id: string; createdAt: Date; summary: Prisma.JsonValue };

function toView({ summary, ...row }: Row): AuditEntryView {
  const parts = summary && typeof summary === "object" && !Array.isArray(summary) ? summary : {};
  return { ...row, before: parts.before ?? null, after: parts.after ?? null };
}

/** Newest first; `after` is the last entry of the previous page. */
export async function listAuditEntries(db: DbOrTx, filters: AuditFilters, after: string | null, limit: number): Promise<AuditEntryView[]> {
  let where = whereOf(filters);
  if (after) {
    const last = await db.auditEntry.findUnique({ where: { id: after }, select: { createdAt: true, id: true } });
    if (last) {
      where = {
        AND: [where, { OR: [{ createdAt: { lt: last.createdAt } }, { createdAt: last.createdAt, id: { lt: last.id } }] }],
      };
    }
  }
  const rows = await db.auditEntry.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit, select: entryFields });
  return rows.map(toView);
}

export async function clearAuditIps(db: DbOrTx, before: Date): Promise<number> {
  return (await db.auditEntry.updateMany({ where: { createdAt: { lt: before }, ip: { not: null } }, data: { ip: null } })).count;
}
