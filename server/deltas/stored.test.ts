import { describe, expect, it } from "vitest";
import type { DeltaOperation } from "@/server/ace/delta";
import { AppError } from "@/server/errors/app-error";
import { readStoredOperation } from "./stored";

const EVERY_TYPE: DeltaOperation[] = [
  { type: "add", section: "strategies_and_insights", content: "Check the page size." },
  { type: "update", bulletId: "str-00001", content: "Edited.", section: "mistakes", position: 2 },
  { type: "update", bulletId: "str-00001" },
  { type: "remove", bulletId: "str-00002", reason: "Outdated." },
  { type: "restore", bulletId: "str-00002" },
  { type: "merge", bulletIds: ["str-00003", "str-00004"], into: "str-00003", content: "Both.", reason: "Same lesson." },
  { type: "tag", bulletId: "str-00001", helpful: 2, harmful: -1 },
  { type: "add_section", name: "Edge cases", slug: "edge" },
  { type: "rename_section", section: "Edge cases", name: "Corner cases" },
  { type: "move_section", section: "Corner cases", position: 0 },
  { type: "remove_section", section: "Corner cases" },
];

describe("readStoredOperation", () => {
  it("reads every operation type back as stored", () => {
    for (const op of EVERY_TYPE) expect(readStoredOperation(JSON.parse(JSON.stringify(op)), { position: 0 })).toEqual(op);
  });

  it("reads what the server wrote past the wire limits: a merge of 150 bullets, an empty reason, a long section name", () => {
    const merge = { type: "merge", bulletIds: Array.from({ length: 150 }, (_, i) => `str-${i}`), into: "str-0", content: "All." };
    expect(readStoredOperation(merge, { position: 0 })).toEqual(merge);
    expect(readStoredOperation({ type: "remove", bulletId: "str-1", reason: "" }, { position: 0 })).toMatchObject({ reason: "" });
    const name = "x".repeat(500);
    expect(readStoredOperation({ type: "add_section", name }, { position: 0 })).toEqual({ type: "add_section", name });
  });

  it("keeps a field it does not know, so an operation that gains one is read back whole", () => {
    const add = { type: "add", section: "s", content: "c", helpful: 3 };
    expect(readStoredOperation(add, { position: 0 })).toEqual(add);
  });

  it("names the delta, the operation and the field of a payload that cannot be read", () => {
    const read = (stored: unknown, column?: "payload" | "originalPayload") =>
      readStoredOperation(stored, { deltaId: "7f1c", position: 2, ...(column ? { column } : {}) });
    expect(() => read({ type: "add", section: "s", content: 42 })).toThrow(
      /^Operation 3 of delta 7f1c has a stored payload that cannot be read \(content: .*expected string.*\)\. The database row/,
    );
    expect(() => read({ type: "teleport", bulletId: "str-1" })).toThrow(/Operation 3 of delta 7f1c .*\(type: /);
    expect(() => read(null)).toThrow(/Operation 3 of delta 7f1c has a stored payload that cannot be read/);
    expect(() => read("add", "originalPayload")).toThrow(
      /has an original payload \(as proposed, before a reviewer's edit\) that cannot be read/,
    );
    try {
      read({ type: "merge", bulletIds: "str-1", into: "str-1", content: "c" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: "INTERNAL", details: { deltaId: "7f1c", position: 2 } });
      expect((error as Error).message).toContain("(bulletIds: ");
    }
  });
});
