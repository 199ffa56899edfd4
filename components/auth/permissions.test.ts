import { describe, expect, it } from "vitest";
import type { Identity } from "@/server/auth/schemas";
import { appRouter } from "@/server/trpc/root";
import { ACTIONS, allows, roleNeeded, type Action } from "./permissions";

const person = (role: "viewer" | "curator" | "admin"): Identity => ({ kind: "user", userId: "u1", email: "a@example.com", name: "", role });

describe("what the pages let each role do", () => {
  it("asks for the very role each action's procedures declare on the server", () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: { access?: string } } }>;
    const mismatched = Object.entries(ACTIONS).flatMap(([action, { role, procedures: paths }]) =>
      paths.filter((path) => procedures[path]?._def.meta?.access !== role).map((path) => `${action}: ${path}`),
    );
    expect(mismatched).toEqual([]);
  });

  it("lets a viewer change nothing, a curator curate, and only an admin administer", () => {
    const allowed = (identity: Identity) => (Object.keys(ACTIONS) as Action[]).filter((action) => allows(identity, action));
    expect(allowed(person("viewer"))).toEqual([]);
    expect(allowed(person("curator"))).toEqual((Object.keys(ACTIONS) as Action[]).filter((action) => ACTIONS[action].role === "curator"));
    expect(allowed(person("admin"))).toEqual(Object.keys(ACTIONS));
    expect(allowed({ kind: "local", name: "Local admin", role: "admin" })).toEqual(Object.keys(ACTIONS));
    expect(allowed({ kind: "anonymous" })).toEqual([]);
  });

  it("says which role a control needs and which one the person has", () => {
    expect(roleNeeded(person("viewer"), "bullet.edit")).toBe("Needs the curator role; you are a viewer.");
    expect(roleNeeded(person("curator"), "playbook.settings")).toBe("Needs the admin role; you are a curator.");
    expect(roleNeeded({ kind: "anonymous" }, "audit.read")).toBe("Sign in as an admin to do this.");
  });
});
