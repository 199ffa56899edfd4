import pg from "pg";
import { messages } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { AppError } from "./app-error";
import { DISK_FULL_SQLSTATE, isStorageFull } from "./storage-full";

const TEXT = 'could not extend file "base/16384/16397": No space left on device';

/** An error as the driver builds it from the server's ErrorResponse: message, then the fields it parsed. */
function driverError<E extends Error>(make: (message: string) => E, fields: Record<string, string>): E {
  return Object.assign(make(TEXT), { severity: "ERROR", ...fields });
}

describe("recognising a full disk", () => {
  it("in pg's and PGlite's own errors, by SQLSTATE 53100 or their text", () => {
    const fromPg = driverError((message) => new pg.DatabaseError(message, 120, "error"), { code: DISK_FULL_SQLSTATE });
    const fromPglite = driverError((message) => new messages.DatabaseError(message, 120, "error"), { code: DISK_FULL_SQLSTATE });
    expect(isStorageFull(fromPg)).toBe(true);
    expect(isStorageFull(fromPglite)).toBe(true);
    expect(isStorageFull(new pg.DatabaseError(TEXT, 120, "error"))).toBe(true);
  });

  it("wrapped as Prisma's driver adapters wrap them, and in Node's ENOSPC", () => {
    const adapter = { name: "DriverAdapterError", cause: { kind: "postgres", originalCode: "53100", originalMessage: TEXT } };
    expect(isStorageFull({ name: "PrismaClientKnownRequestError", code: "P2010", meta: { driverAdapterError: adapter } })).toBe(true);
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28 });
    expect(isStorageFull(new Error("export failed", { cause: enospc }))).toBe(true);
  });

  it("not in other errors, nor in a cycle of causes", () => {
    const unique = Object.assign(new pg.DatabaseError("duplicate key value violates unique constraint", 1, "error"), { code: "23505" });
    expect(isStorageFull(unique)).toBe(false);
    expect(isStorageFull(new AppError("CONFLICT", "Someone else changed the playbook."))).toBe(false);
    const looped: { cause?: unknown } = {};
    looped.cause = looped;
    expect(isStorageFull(looped)).toBe(false);
    expect(isStorageFull(null)).toBe(false);
  });
});
