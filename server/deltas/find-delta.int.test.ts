// The delta a review reads, from one statement: the same record Prisma's relation query returned,
// whatever the delta went through (proposed with evidence, edited, partly approved, rejected).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";
import { findDelta } from "./repository";

/** What findDelta returned as a Prisma relation query, before it became one statement. */
function findWithPrisma(db: Db, deltaId: string) {
  const operation = {
    id: true,
    deltaId: true,
    position: true,
    type: true,
    status: true,
    payload: true,
    flags: true,
    rationale: true,
    targetIds: true,
    targetSectionIds: true,
    originalPayload: true,
    editedBy: true,
  } as const;
  return db.delta.findUnique({
    where: { id: deltaId },
    select: {
      id: true,
      playbookId: true,
      status: true,
      origin: true,
      author: true,
      rationale: true,
      confidence: true,
      baseVersion: true,
      appliedVersion: true,
      evidence: true,
      reviewNote: true,
      decidedBy: true,
      decidedAt: true,
      createdAt: true,
      playbook: { select: { name: true, version: true } },
      operations: { orderBy: { position: "asc" }, select: operation },
    },
  });
}

describe.each(testEngines())("reading a delta, on %s", (engine) => {
  let database: TestDatabase;
  let playbookId: string;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    await database.reset();
    ({ playbookId } = await callerAs(database.db, "admin", "ada").playbook.import({
      content: SMALL_PLAYBOOK,
      format: "ace",
      target: { kind: "new", name: "support" },
    }));
  });

  const add = (content: string) => ({ type: "add" as const, section: "strategies_and_insights", content });

  async function propose(contents: string[]) {
    const curator = callerAs(database.db, "curator", "cleo");
    const { deltaId } = await curator.delta.propose({
      playbookId,
      operations: contents.map((content, i) => ({ operation: add(content), rationale: `Lesson ${i + 1} «quoted» \\ "x"` })),
      rationale: "From the week's traces",
      confidence: 0.42,
      evidence: { traceIds: [crypto.randomUUID()], notes: "two failures" },
    });
    return deltaId;
  }

  async function expectSameRecord(deltaId: string) {
    const expected = await findWithPrisma(database.db, deltaId);
    expect(expected).not.toBeNull();
    expect(await findDelta(database.db, deltaId)).toEqual(expected);
  }

  it("reads a pending proposal with its evidence, confidence and operations in order", async () => {
    const deltaId = await propose(["Check the docs first.", "Paginate every list call.", "Retry a 429 after its Retry-After."]);
    await expectSameRecord(deltaId);
  });

  it("reads a delta partly approved, with an edited operation, and one rejected", async () => {
    const deltaId = await propose(["Check the docs first.", "Paginate every list call.", "Retry a 429 after its Retry-After."]);
    const before = await findDelta(database.db, deltaId);
    const [first, second] = before?.operations ?? [];
    await callerAs(database.db, "curator", "cleo").delta.approve({
      deltaId,
      operationIds: [first!.id, second!.id],
      edits: [{ operationId: second!.id, operation: add("Paginate every list call until next_cursor is null.") }],
      note: "Edited the second",
    });
    const read = await findDelta(database.db, deltaId);
    expect(read?.operations.map((op) => op.status)).toEqual(["approved", "approved", "rejected"]);
    expect(read?.decidedAt).toBeInstanceOf(Date);
    await expectSameRecord(deltaId);

    const rejected = await propose(["Log every request id."]);
    await callerAs(database.db, "curator", "cleo").delta.reject({ deltaId: rejected, reason: "Too noisy" });
    await expectSameRecord(rejected);
  });

  it("reads nothing for an unknown delta", async () => {
    expect(await findDelta(database.db, crypto.randomUUID())).toBeNull();
  });
});
