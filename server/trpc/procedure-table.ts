// Every procedure of the app router with its type and declared access, for the tests that hold
// the line "deny by default" (access.test.ts, access.int.test.ts) and that every mutation is
// audited (audit.int.test.ts), and the playbook restriction (server/access/restriction.int.test.ts).
import type { PlaybookAddress } from "@/server/access/restriction";
import type { Access, ProcedureMeta } from "./init";
import { appRouter } from "./root";

export interface ProcedureEntry {
  path: string;
  type: "query" | "mutation" | "subscription";
  access: Access | null;
  /** How its input addresses playbooks; null: undeclared (refused to a restricted caller). */
  playbook: readonly PlaybookAddress[] | null;
}

interface ProcedureLike {
  _def: { type?: string; meta?: ProcedureMeta; procedure?: boolean };
}

export function procedureTable(): ProcedureEntry[] {
  const procedures = appRouter._def.procedures as unknown as Record<string, ProcedureLike>;
  return Object.entries(procedures)
    .map(([path, procedure]) => ({
      path,
      type: procedure._def.type as ProcedureEntry["type"],
      access: procedure._def.meta?.access ?? null,
      playbook: addressesOf(procedure._def.meta?.playbook),
    }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

function addressesOf(declared: ProcedureMeta["playbook"]): readonly PlaybookAddress[] | null {
  if (declared === undefined) return null;
  return typeof declared === "string" ? [declared] : declared;
}

/** A caller's procedure by its path: caller["delta"]["approve"] for "delta.approve". */
export function procedureAt(caller: unknown, path: string): (input?: unknown) => Promise<unknown> {
  let current: unknown = caller;
  for (const part of path.split(".")) current = (current as Record<string, unknown>)[part];
  if (typeof current !== "function") throw new Error(`No procedure at ${path}`);
  return current as (input?: unknown) => Promise<unknown>;
}

/** Procedures anyone may call: signing in, the first admin, invite links, the session itself, signing out. */
export const PUBLIC_PROCEDURES = [
  "auth.acceptInvite",
  "auth.inviteInfo",
  "auth.session",
  "auth.setup",
  "auth.signIn",
  "auth.signOut",
] as const;

/** Mutations a viewer may call: only on their own account. */
export const OWN_ACCOUNT_MUTATIONS = ["auth.changePassword", "auth.endSession"] as const;
