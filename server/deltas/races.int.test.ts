// Concurrent writers on PostgreSQL (and PGlite, which serialises them): counter increments commute
// and all apply, never refused; approvals of one delta at once leave exactly one winner, and each
// loser gets a 409 naming the decision, never a 400 with the wrong advice.
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";

const PEOPLE = Array.from({ length: 20 }, (_, index) => `user-${index + 1}`);

describe.each(testEngines())("concurrent writers on %s", (engine) => {
  let database: TestDatabase;
  let playbookId: string;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
  });
  afterAll(async () => database?.close());
  beforeEach(async () => {
    await database.reset();
    const admin = callerAs(database.db, "admin", "ada");
    ({ playbookId } = await admin.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "support" } }));
  });

  const helpful = async () =>
    (await database.db.bullet.findFirstOrThrow({ where: { playbookId, externalId: "str-00001" }, select: { helpful: true } })).helpful;

  it("20 concurrent counter increments all apply, each a version, none refused", async () => {
    const before = await helpful();
    const outcomes = await Promise.allSettled(
      PEOPLE.map((name) =>
        callerAs(database.db, "curator", name).delta.edit({
          playbookId,
          reason: "Helped in a run",
          // Each names the version it saw: counter increments apply on a newer one anyway.
          expectedVersion: 1,
          operations: [{ type: "tag", bulletId: "str-00001", helpful: 1 }],
        }),
      ),
    );
    const refused = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [String(outcome.reason)] : []));
    expect(refused).toEqual([]);
    expect(await helpful()).toBe(before + 20);
    const versions = await callerAs(database.db, "viewer", "val").history.versions({ playbookId, limit: 50 });
    expect(versions.currentVersion).toBe(21);
    expect(new Set(versions.items.filter((item) => item.number > 1).map((item) => item.author))).toEqual(new Set(PEOPLE));
    // Each increment is audited once, under its person.
    expect(await database.db.auditEntry.count({ where: { action: "bullet.tag" } })).toBe(20);
  });

  it("20 concurrent approvals of tag deltas all apply (they commute)", async () => {
    const proposer = callerAs(database.db, "curator", "cleo");
    const deltas = [];
    for (const _ of PEOPLE)
      deltas.push(
        await proposer.delta.propose({ playbookId, operations: [{ operation: { type: "tag", bulletId: "str-00001", helpful: 1 } }] }),
      );
    const before = await helpful();
    const outcomes = await Promise.allSettled(
      deltas.map(({ deltaId }, index) => callerAs(database.db, "curator", PEOPLE[index]).delta.approve({ deltaId })),
    );
    expect(
      outcomes.filter((outcome) => outcome.status === "rejected").map((outcome) => String((outcome as PromiseRejectedResult).reason)),
    ).toEqual([]);
    expect(await helpful()).toBe(before + 20);
  });

  it("20 people approving one delta at once: one wins, every other gets a 409 naming the decision", async () => {
    const { deltaId } = await callerAs(database.db, "curator", "cleo").delta.propose({
      playbookId,
      operations: [{ operation: { type: "update", bulletId: "str-00002", content: "Back off before retrying a failed call." } }],
    });
    const outcomes = await Promise.allSettled(PEOPLE.map((name) => callerAs(database.db, "curator", name).delta.approve({ deltaId })));
    const winners = outcomes.flatMap((outcome, index) => (outcome.status === "fulfilled" ? [PEOPLE[index]] : []));
    expect(winners).toHaveLength(1);
    const losers = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason as unknown] : []));
    expect(losers).toHaveLength(19);
    for (const error of losers) {
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code, (error as TRPCError).message).toBe("CONFLICT");
      expect((error as TRPCError).message).toMatch(
        new RegExp(`(just decided \\(approved by ${winners[0]}\\)|already approved by ${winners[0]})`),
      );
    }
    expect(await database.db.auditEntry.count({ where: { action: "delta.approve" } })).toBe(1);
  });

  it("a delta read while its decision lands (its row before, its operations after) is a 409, not a 400", async () => {
    const { deltaId } = await callerAs(database.db, "curator", "cleo").delta.propose({
      playbookId,
      operations: [{ operation: { type: "update", bulletId: "str-00002", content: "Back off before retrying a failed call." } }],
    });
    // What a reader sees half-way through someone's approval: operations decided, the delta not yet.
    await database.db.deltaOperation.updateMany({ where: { deltaId }, data: { status: "approved" } });
    await expectAppError(
      callerAs(database.db, "curator", "bob").delta.approve({ deltaId }),
      "CONFLICT",
      /changed by someone else a moment ago/,
    );
    await database.db.delta.update({ where: { id: deltaId }, data: { status: "applied", decidedBy: "ada", decidedAt: new Date() } });
    await expectAppError(
      callerAs(database.db, "curator", "bob").delta.reject({ deltaId, reason: "No" }),
      "CONFLICT",
      /already approved by ada/,
    );
  });
});
