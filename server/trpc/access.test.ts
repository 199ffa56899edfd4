// Deny by default: every procedure of the app router declares who may call it, and no viewer-level
// procedure changes anything beyond the caller's own account.
import { describe, expect, it } from "vitest";
import { OWN_ACCOUNT_MUTATIONS, PUBLIC_PROCEDURES, procedureTable } from "./procedure-table";

const ACCESS = ["public", "account", "viewer", "curator", "admin"];

describe("the procedure-role table", () => {
  const table = procedureTable();

  it("lists every procedure of every router", () => {
    expect(table.length).toBeGreaterThan(40);
    for (const router of ["playbook", "delta", "history", "traces", "context", "runs", "auth", "users", "apiKeys", "audit"]) {
      expect(
        table.some((entry) => entry.path.startsWith(`${router}.`)),
        router,
      ).toBe(true);
    }
  });

  it("has no procedure without a declared role", () => {
    const undeclared = table.filter((entry) => entry.access === null || !ACCESS.includes(entry.access)).map((entry) => entry.path);
    expect(undeclared, "build these with viewerProcedure, curatorProcedure or adminProcedure (server/trpc/init.ts)").toEqual([]);
  });

  it("has public procedures only for signing in and the first admin", () => {
    const open = table.filter((entry) => entry.access === "public").map((entry) => entry.path);
    expect(open).toEqual([...PUBLIC_PROCEDURES]);
  });

  it("lets no viewer call a mutation, except on their own account", () => {
    const viewerMutations = table
      .filter((entry) => entry.type === "mutation" && (entry.access === "viewer" || entry.access === "account"))
      .map((entry) => entry.path);
    expect(viewerMutations).toEqual([...OWN_ACCOUNT_MUTATIONS]);
  });

  it("keeps users, API keys and the audit log for admins", () => {
    const wrong = table
      .filter((entry) => /^(users|apiKeys|audit)\./.test(entry.path) && entry.access !== "admin")
      .map((entry) => entry.path);
    expect(wrong).toEqual([]);
  });
});
