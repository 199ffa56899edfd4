// Who a request acts for, and the one check every route and procedure runs: may this principal do
// something that needs this role (optionally on this playbook)?
import type { AuditActor } from "@/server/audit/schemas";
import type { ApiScope } from "@/server/apikeys/schemas";
import { roleAtLeast, type Identity, type Role, type SessionState } from "./schemas";

export type Principal =
  | { kind: "anonymous" }
  | { kind: "user"; userId: string; email: string; name: string; role: Role; sessionId: string | null }
  /** The operator of this computer: laptop mode, ACE_AUTH=off, or the CLI on the database itself. Acts as an admin. */
  | { kind: "local"; name: string }
  | {
      kind: "apikey";
      keyId: string;
      name: string;
      scopes: readonly ApiScope[];
      playbookIds: readonly string[] | "all";
      /** Why the key's admin scope is left out of `scopes`: its creator is no longer an admin. */
      adminWithheld?: string;
    }
  /** The server itself: background runs, auto-apply. */
  | { kind: "system"; name: string };

export const ANONYMOUS: Principal = Object.freeze({ kind: "anonymous" });

/** The local operator's name in version history and the audit log. */
export const LOCAL_USER = "local user";

/** The name version history and the audit log show for the principal. */
export function actorName(principal: Principal): string {
  switch (principal.kind) {
    case "user":
      return principal.name || principal.email;
    case "apikey":
      return `API key "${principal.name}"`;
    case "local":
    case "system":
      return principal.name;
    case "anonymous":
      return "anonymous";
  }
}

export function auditActor(principal: Principal): AuditActor {
  switch (principal.kind) {
    case "user":
      return { kind: "user", id: principal.userId, name: principal.email };
    case "apikey":
      return { kind: "apikey", id: principal.keyId, name: principal.name };
    case "local":
      return { kind: "local", id: null, name: principal.name };
    case "system":
      return { kind: "system", id: null, name: principal.name };
    case "anonymous":
      return { kind: "system", id: null, name: "anonymous" };
  }
}

export function identityOf(principal: Principal): Identity {
  if (principal.kind === "user") {
    return { kind: "user", userId: principal.userId, email: principal.email, name: principal.name, role: principal.role };
  }
  if (principal.kind === "local") return { kind: "local", name: principal.name, role: "admin" };
  return { kind: "anonymous" };
}

/** What pages and components are told about the session (auth.session, the layouts). */
export function sessionState(principal: Principal, usersExist: boolean): SessionState {
  const anonymous = principal.kind === "anonymous";
  return {
    identity: identityOf(principal),
    gate: anonymous ? (usersExist ? "sign-in" : "first-admin") : "open",
    localMode: principal.kind === "local",
    setupNeedsToken: principal.kind !== "local",
    usersExist,
  };
}

export type Verdict = { ok: true } | { ok: false; code: "UNAUTHORIZED" | "FORBIDDEN"; message: string };

const NEEDS: Record<Role, string> = {
  viewer: "a viewer",
  curator: "a curator or an admin",
  admin: "an admin",
};

/**
 * May the principal do something that needs `role`? The playbook, when the action has one, is
 * where per-playbook roles will be looked up; today a role holds for every playbook, and an API
 * key's playbook list is the only per-playbook limit.
 */
export function authorize(principal: Principal, role: Role, playbookId?: string): Verdict {
  switch (principal.kind) {
    case "anonymous":
      return { ok: false, code: "UNAUTHORIZED", message: "Sign in to ACE Studio first; your session may have ended." };
    case "local":
    case "system":
      return { ok: true };
    case "user":
      if (roleAtLeast(principal.role, role)) return { ok: true };
      return {
        ok: false,
        code: "FORBIDDEN",
        message: `Your role is ${principal.role}; this needs ${NEEDS[role]}. Ask an admin to change your role if you need it.`,
      };
    case "apikey": {
      // Keys reach the studio's own API (tRPC) only as admins, for the CLI; agents use /api/v1.
      if (!principal.scopes.includes("admin")) {
        if (principal.adminWithheld) return { ok: false, code: "FORBIDDEN", message: principal.adminWithheld };
        return {
          ok: false,
          code: "FORBIDDEN",
          message: `API key "${principal.name}" has no admin scope, which the studio's own API needs. Agents use the /api/v1 routes.`,
        };
      }
      if (playbookId && principal.playbookIds !== "all" && !principal.playbookIds.includes(playbookId)) {
        return { ok: false, code: "FORBIDDEN", message: `API key "${principal.name}" may not touch this playbook.` };
      }
      return { ok: true };
    }
  }
}
