// The audit log: who did what, to what, when and from where. Entries are appended, never edited
// (only their IP address is dropped after ACE_AUDIT_IP_DAYS).
import { z } from "zod";

export const AUDIT_ACTOR_KINDS = ["user", "apikey", "system", "local"] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/** Who acted: a signed-in user, an API key, the server itself (runs, auto-apply), or the local operator. */
export interface AuditActor {
  kind: AuditActorKind;
  /** The user's or key's id; null for the system and the local operator. */
  id: string | null;
  /** As people read it: the user's email, the key's name, "local user", "reflector". */
  name: string;
}

/**
 * Every action the log records (recordAudit takes only these, so a new one is added here, and the
 * /audit page's filter offers it). Who did it is the entry's actor; "access.denied" is a refusal.
 */
export const KNOWN_AUDIT_ACTIONS = [
  "session.sign_in",
  "session.sign_in_failed",
  "session.sign_out",
  "session.revoke",
  "user.setup",
  "user.create",
  "user.invite",
  "user.invite_accept",
  "user.role",
  "user.disable",
  "user.enable",
  "user.delete",
  "user.password",
  "apikey.create",
  "apikey.revoke",
  "apikey.transfer",
  "access.denied",
  // A person's edit, applied at once: named by what it does when all its operations do one thing.
  "bullet.add",
  "bullet.update",
  "bullet.remove",
  "bullet.restore",
  "bullet.merge",
  "bullet.tag",
  "bullet.pin",
  "bullet.unpin",
  "section.add",
  "section.rename",
  "section.move",
  "section.remove",
  "playbook.edit",
  // Proposals and their review.
  "delta.propose",
  "delta.auto_apply",
  "delta.approve",
  "delta.reject",
  "delta.edit",
  "delta.rebase",
  "delta.undo",
  "playbook.create",
  "playbook.import",
  "playbook.rollback",
  "settings.update",
  "budget.update",
  "run.reflect",
  "run.curate",
  "run.retry",
  "trace.ingest",
  "trace.delete",
  "experiment.create",
  "experiment.update",
  "experiment.start",
  "experiment.stop",
  "experiment.restart",
  "experiment.phase",
  "experiment.ship",
  "experiment.archive",
  "retention.run",
] as const;
export type AuditAction = (typeof KNOWN_AUDIT_ACTIONS)[number];

export const auditFiltersSchema = z.object({
  /** Part of the actor's name (email, key name, "local user"). */
  who: z.string().trim().max(200).optional(),
  /** An action, or a prefix ending in "." (e.g. "user."). */
  action: z.string().trim().max(80).optional(),
  playbookId: z.uuid().optional(),
  from: z.date().optional(),
  to: z.date().optional(),
});
export type AuditFilters = z.infer<typeof auditFiltersSchema>;

export const AUDIT_PAGE_SIZE = 50;

export const listAuditInput = auditFiltersSchema.extend({
  /** The id of the last entry of the previous page. */
  cursor: z.uuid().nullish(),
  limit: z.number().int().min(1).max(200).default(AUDIT_PAGE_SIZE),
});

export interface AuditEntryView {
  id: string;
  createdAt: Date;
  actorKind: AuditActorKind;
  actorId: string | null;
  actorName: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  targetLabel: string | null;
  playbookId: string | null;
  before: unknown;
  after: unknown;
  requestId: string | null;
  ip: string | null;
}

export interface AuditPage {
  entries: AuditEntryView[];
  nextCursor: string | null;
}

// ---- Filters in the URL (the /audit page and its CSV export share them) -----------------------

/** The filters as the URL holds them: ?who=&action=&playbook=&from=YYYY-MM-DD&to=YYYY-MM-DD (to is inclusive). */
export interface AuditSearch {
  who: string;
  action: string;
  playbook: string;
  from: string;
  to: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function dayStart(text: string): Date | undefined {
  if (!DAY.test(text)) return undefined;
  const date = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export function readAuditSearch(params: URLSearchParams): AuditSearch {
  const get = (name: string) => params.get(name)?.trim() ?? "";
  return { who: get("who").slice(0, 200), action: get("action").slice(0, 80), playbook: get("playbook"), from: get("from"), to: get("to") };
}

/** Filters from the URL; values that do not parse are left out rather than refused (the URL is hand-editable). */
export function parseAuditSearch(params: URLSearchParams): AuditFilters {
  const search = readAuditSearch(params);
  const to = dayStart(search.to);
  const parsed = auditFiltersSchema.safeParse({
    who: search.who || undefined,
    action: search.action || undefined,
    playbookId: z.uuid().safeParse(search.playbook).success ? search.playbook : undefined,
    from: dayStart(search.from),
    to: to ? new Date(to.getTime() + 24 * 60 * 60_000) : undefined,
  });
  return parsed.success ? parsed.data : {};
}

export function auditSearchParams(search: Partial<AuditSearch>): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ["who", "action", "playbook", "from", "to"] as const) {
    const value = search[name]?.trim();
    if (value) params.set(name, value);
  }
  return params;
}
