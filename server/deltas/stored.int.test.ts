// A delta whose stored operation was changed outside ACE Studio (stored.ts): every read that needs
// the operation says which delta and operation cannot be read, and the delta can still be rejected.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";
import type { createCaller } from "@/server/trpc/root";

type Caller = ReturnType<typeof createCaller>;

describe.each(testEngines())("stored operations that cannot be read on %s", (engine) => {
  let database: TestDatabase;
  let alice: Caller;
  let playbookId: string;
  let deltaId: string;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    alice = callerAs(database.db, "admin", "alice");
  });
  afterAll(async () => database?.close());
  beforeEach(async () => {
    await database.reset();
    ({ playbookId } = await alice.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "support" } }));
    ({ deltaId } = await alice.delta.propose({
      playbookId,
      rationale: "Two lessons",
      operations: [
        { operation: { type: "update", bulletId: "str-00002", content: "Retry failed API calls with exponential backoff." } },
        { operation: { type: "tag", bulletId: "str-00001", helpful: 1 } },
      ],
    }));
    // What a hand-edited row or a broken restore leaves: the second operation's content is a number.
    await database.db.$executeRaw`
      UPDATE "DeltaOperation" SET payload = '{"type": "update", "bulletId": "str-00001", "content": 42}'::jsonb
      WHERE "deltaId" = ${deltaId}::uuid AND position = 1`;
  });

  const unreadable = (id: string) =>
    new RegExp(`^Operation 2 of delta ${id} has a stored payload that cannot be read \\(content: .*expected string.*\\)\\.`);

  it("the delta view and an approval name the delta, the operation and the field", async () => {
    await expectAppError(alice.delta.get({ deltaId }), "INTERNAL_SERVER_ERROR", unreadable(deltaId));
    await expectAppError(alice.delta.approve({ deltaId }), "INTERNAL_SERVER_ERROR", unreadable(deltaId));
    expect((await alice.playbook.bullet({ playbookId, externalId: "str-00002" })).content).toBe(
      "Retry failed API calls immediately without any backoff.",
    );
  });

  it("the bullet's lineage names the delta too", async () => {
    await expectAppError(alice.history.lineage({ playbookId, bulletId: "str-00001" }), "INTERNAL_SERVER_ERROR", unreadable(deltaId));
  });

  it("the delta can still be rejected: rejecting does not read the operations", async () => {
    const rejected = await alice.delta.reject({ deltaId, reason: "Its row was damaged." });
    expect(rejected).toMatchObject({ status: "rejected" });
    const [row] = await database.db.$queryRaw<{ status: string }[]>`SELECT status::text FROM "Delta" WHERE id = ${deltaId}::uuid`;
    expect(row?.status).toBe("rejected");
  });
});
