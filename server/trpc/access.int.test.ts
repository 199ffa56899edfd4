// Deny by default, checked by calling: every mutation refuses a viewer (but the viewer's own
// account), and every procedure but the public ones refuses a caller who is not signed in, before
// its input is even read. On embedded PGlite and PostgreSQL (a refusal writes an audit entry).
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { callerAs } from "./callers";
import { OWN_ACCOUNT_MUTATIONS, procedureAt, PUBLIC_PROCEDURES, procedureTable } from "./procedure-table";

async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "OK";
  } catch (error) {
    return error instanceof TRPCError ? error.code : String(error);
  }
}

describe.each(testEngines())("access on %s", (engine) => {
  let database: TestDatabase;
  const table = procedureTable();

  beforeAll(async () => {
    database = await openTestDatabase(engine);
  });
  afterAll(async () => {
    await database?.close();
  });

  it("a viewer can call no mutation but those on their own account", async () => {
    const viewer = callerAs(database.db, "viewer", "val");
    const mutations = table.filter(
      (entry) =>
        entry.type === "mutation" && entry.access !== "public" && !(OWN_ACCOUNT_MUTATIONS as readonly string[]).includes(entry.path),
    );
    expect(mutations.length).toBeGreaterThan(20);
    const outcomes = Object.fromEntries(
      await Promise.all(mutations.map(async (entry) => [entry.path, await codeOf(procedureAt(viewer, entry.path)({}))] as const)),
    );
    expect(outcomes).toEqual(Object.fromEntries(mutations.map((entry) => [entry.path, "FORBIDDEN"])));
    // Each refusal was audited once, as the viewer.
    expect(await database.db.auditEntry.count({ where: { action: "access.denied", actorName: "val@example.test" } })).toBe(
      mutations.length,
    );
  });

  it("nobody signed in can call anything but the public procedures", async () => {
    const anonymous = callerAs(database.db, "anonymous");
    const closed = table.filter((entry) => !(PUBLIC_PROCEDURES as readonly string[]).includes(entry.path));
    const outcomes = Object.fromEntries(
      await Promise.all(closed.map(async (entry) => [entry.path, await codeOf(procedureAt(anonymous, entry.path)({}))] as const)),
    );
    expect(outcomes).toEqual(Object.fromEntries(closed.map((entry) => [entry.path, "UNAUTHORIZED"])));
  });

  it("a curator is refused the admin procedures, with the role it needs in the message", async () => {
    const curator = callerAs(database.db, "curator", "cleo");
    const adminOnly = table.filter((entry) => entry.access === "admin");
    for (const entry of adminOnly) {
      await expect(procedureAt(curator, entry.path)({}), entry.path).rejects.toThrow(/Your role is curator; this needs an admin/);
    }
  });
});
