// In-process callers acting as someone: tests act as a role (callerAs(db, "curator", "alice")),
// the CLI acts as the local operator on its own database.
import { randomUUID } from "node:crypto";
import { LOCAL_USER, type Principal } from "@/server/auth/principal";
import type { RequestInfo } from "@/server/auth/request";
import type { Role } from "@/server/auth/schemas";
import type { Db } from "@/server/db/client";
import { contextFor, type Context } from "./init";
import { createCaller } from "./root";

export type Acting = Role | "anonymous" | "local";

/** A principal for tests: a user of that role named `name` (its email derived from the name), the local operator, or nobody. */
export function principalAs(acting: Acting, name?: string): Principal {
  if (acting === "anonymous") return { kind: "anonymous" };
  if (acting === "local") return { kind: "local", name: name ?? LOCAL_USER };
  const person = name ?? acting;
  const email = `${
    person
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ".")
      .replace(/^\.|\.$/g, "") || "user"
  }@example.test`;
  return { kind: "user", userId: randomUUID(), email, name: person, role: acting, sessionId: null };
}

export function contextAs(
  db: Db,
  acting: Acting | Principal,
  options: { name?: string; request?: RequestInfo; resHeaders?: Headers } = {},
): Context {
  const principal = typeof acting === "string" ? principalAs(acting, options.name) : acting;
  return contextFor(db, principal, { request: options.request, resHeaders: options.resHeaders ?? new Headers() });
}

/** createCaller acting as a role: callerAs(db, "curator", "alice") records "alice" as the author of changes. */
export function callerAs(db: Db, acting: Acting | Principal, name?: string) {
  return createCaller(contextAs(db, acting, { name }));
}
