"use client";
// The session as the root layout read it on the server, for client components: who is looking and
// what their role allows. Pages hide what a role cannot do; the server checks it regardless.
import { createContext, useContext, type ReactNode } from "react";
import { roleAtLeast, type Role, type SessionState } from "@/server/auth/schemas";

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ value, children }: { value: SessionState; children: ReactNode }) {
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession() needs <SessionProvider> (the root layout provides it).");
  return session;
}

/** Whether the person looking holds `role` or more (the local operator is an admin). */
export function useCan(role: Role): boolean {
  const { identity } = useSession();
  return identity.kind !== "anonymous" && roleAtLeast(identity.role, role);
}
