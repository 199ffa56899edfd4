"use client";
// The session as the root layout read it on the server, for client components: who is looking and
// what their role allows. Pages hide what a role cannot do; the server checks it regardless.
import { createContext, useContext, type ReactNode } from "react";
import type { SessionState } from "@/server/auth/schemas";
import { allows, roleNeeded, type Action } from "./permissions";

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ value, children }: { value: SessionState; children: ReactNode }) {
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession() needs <SessionProvider> (the root layout provides it).");
  return session;
}

/** Whether the person looking may take the action (see permissions.ts for what each needs). */
export function useCan(action: Action): boolean {
  return allows(useSession().identity, action);
}

/** Whether the action is allowed, and if not, the sentence that says which role it needs. */
export function usePermission(action: Action): { allowed: true; reason: null } | { allowed: false; reason: string } {
  const { identity } = useSession();
  return allows(identity, action) ? { allowed: true, reason: null } : { allowed: false, reason: roleNeeded(identity, action) };
}
