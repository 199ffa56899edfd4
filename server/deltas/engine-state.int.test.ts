// The cached playbook states (engine-state.ts, state-cache.ts) against real databases: a retired
// state is never handed out, and a bound in bytes smaller than two playbooks evicts without
// getting in the way of writers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetEnv } from "@/server/config/env";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { findFigures } from "@/server/metrics/repositories/figures";
import { callerAs } from "@/server/trpc/callers";
import type { createCaller } from "@/server/trpc/root";
import { countBulletTokens, hasStateTokens, stateTokens } from "@/server/ace/tokens";
import { forgetEngineStates, freshSnapshot, loadSnapshot, similarityIndexOf } from "./engine-state";

type Caller = ReturnType<typeof createCaller>;

/** `count` bullets of 100 characters: 1,200 of them are estimated at 600 KB (state-cache.ts). */
function largePlaybook(count: number): string {
  const lines = Array.from({ length: count }, (_, i) => {
    const id = String(i + 1).padStart(5, "0");
    return `[str-${id}] helpful=0 harmful=0 :: ${`Lesson ${id} about handling the ${i % 7}th kind of paginated answer`.padEnd(100, ".")}`;
  });
  return ["## strategies_and_insights", ...lines, ""].join("\n");
}

describe.each(testEngines())("cached playbook states on %s", (engine) => {
  let database: TestDatabase;
  let alice: Caller;
  const previousBound = process.env.ACE_PLAYBOOK_CACHE_MB;

  beforeAll(async () => {
    // Read when this database's cache is made, on its first use below.
    process.env.ACE_PLAYBOOK_CACHE_MB = "1";
    resetEnv();
    database = await openTestDatabase(engine);
    alice = callerAs(database.db, "admin", "alice");
  });
  afterAll(async () => {
    if (previousBound === undefined) delete process.env.ACE_PLAYBOOK_CACHE_MB;
    else process.env.ACE_PLAYBOOK_CACHE_MB = previousBound;
    resetEnv();
    await database?.close();
  });
  beforeEach(async () => {
    forgetEngineStates(database.db);
    await database.reset();
  });

  async function playbook(name: string, content = SMALL_PLAYBOOK) {
    const { playbookId } = await alice.playbook.import({ content, format: "ace", target: { kind: "new", name } });
    return playbookId;
  }

  function tag(playbookId: string, helpful: number) {
    return alice.delta.edit({ playbookId, reason: "Counters", operations: [{ type: "tag", bulletId: "str-00001", helpful }] });
  }

  it("a loaded state takes each bullet's stored token count, except a row's that was never counted", async () => {
    const playbookId = await playbook("counts");
    await database.db
      .$executeRaw`UPDATE "Bullet" SET "tokenCount" = -1 WHERE "playbookId" = ${playbookId}::uuid AND "externalId" = 'str-00002'`;
    await database.db
      .$executeRaw`UPDATE "Bullet" SET "tokenCount" = 777 WHERE "playbookId" = ${playbookId}::uuid AND "externalId" = 'str-00001'`;
    forgetEngineStates(database.db);
    const { state } = (await loadSnapshot(database.db, playbookId)).entry;
    const bullets = [...state.bullets.values()];
    expect(bullets.length).toBeGreaterThan(2);
    // The stored count is taken as it is (777 is not what the tokenizer says); -1 leaves the state uncounted.
    expect(stateTokens(state.bullets.get("str-00001")!)).toBe(777);
    expect(hasStateTokens(state.bullets.get("str-00002")!)).toBe(false);
    for (const bullet of bullets.filter((b) => !["str-00001", "str-00002"].includes(b.externalId))) {
      expect(hasStateTokens(bullet), bullet.externalId).toBe(true);
      expect(stateTokens(bullet), bullet.externalId).toBe(countBulletTokens(bullet));
    }
  });

  it("never hands out a state that was forgotten: the next read loads a fresh one", async () => {
    const playbookId = await playbook("support");
    const forgotten = (await loadSnapshot(database.db, playbookId)).entry;
    expect((await loadSnapshot(database.db, playbookId)).entry).toBe(forgotten); // cached
    forgetEngineStates(database.db);
    expect(forgotten.retired).toBe(true);
    const { entry } = await freshSnapshot(database.db, playbookId);
    expect(entry).not.toBe(forgotten);
    expect(entry).toMatchObject({ version: forgotten.version, retired: false });
    expect(entry.state.bullets.get("str-00001")?.helpful).toBe(3);
  });

  it("gives reads of an uncached playbook made at the same time one state, so one index is built for it", async () => {
    const playbookId = await playbook("support");
    forgetEngineStates(database.db);
    const reads = await Promise.all([1, 2, 3].map(() => loadSnapshot(database.db, playbookId)));
    expect(reads[1]?.entry).toBe(reads[0]?.entry);
    expect(reads[2]?.entry).toBe(reads[0]?.entry);
    expect((await loadSnapshot(database.db, playbookId)).entry).toBe(reads[0]?.entry);
  });

  it("retires the state a commit moved on from, and the next read gets the committed version", async () => {
    const playbookId = await playbook("support");
    const before = (await loadSnapshot(database.db, playbookId)).entry;
    await tag(playbookId, 2);
    expect(before.retired).toBe(true);
    const { entry } = await loadSnapshot(database.db, playbookId);
    expect(entry).toMatchObject({ version: before.version + 1, retired: false });
    expect(entry.state.bullets.get("str-00001")?.helpful).toBe(5);
  });

  it("a state a commit moved on carries the figures stored with its version, which the next commit advances; a loaded one carries none", async () => {
    const playbookId = await playbook("support");
    expect((await loadSnapshot(database.db, playbookId)).entry.figures).toBeNull();
    for (const helpful of [2, 1]) {
      await tag(playbookId, helpful);
      const { entry } = await loadSnapshot(database.db, playbookId);
      const stored = await findFigures(database.db, playbookId, entry.version);
      expect(stored).not.toBeNull();
      expect(entry.figures).toMatchObject(stored!);
    }
    forgetEngineStates(database.db);
    expect((await loadSnapshot(database.db, playbookId)).entry.figures).toBeNull();
  });

  it("an index takes the changes of commits that searched nothing when it is next searched, in order", async () => {
    const playbookId = await playbook("support");
    const first = (await loadSnapshot(database.db, playbookId)).entry;
    const index = similarityIndexOf(first);
    const kept = "Confirm the refund amount with the customer before you issue it";
    const dropped = "Escalate every billing dispute over 500 dollars to a supervisor";
    const proposal = await alice.delta.propose({
      playbookId,
      rationale: "A lesson",
      operations: [{ operation: { type: "add", section: "strategies_and_insights", content: kept } }],
    });
    // An add (its edit searched before it committed), its removal and an approval: neither searches.
    const [droppedId] = (
      await alice.delta.edit({
        playbookId,
        reason: "Add",
        operations: [{ type: "add", section: "strategies_and_insights", content: dropped }],
      })
    ).addedIds;
    await alice.delta.edit({ playbookId, reason: "Wrong", operations: [{ type: "remove", bulletId: droppedId!, reason: "Wrong" }] });
    const [keptId] = (await alice.delta.approve({ deltaId: proposal.deltaId })).addedIds;

    const { entry } = await loadSnapshot(database.db, playbookId);
    expect(entry.index).toBe(index); // moved on with the state, not rebuilt
    expect(entry.unindexed.map((change) => change.id)).toEqual([droppedId, droppedId, keptId]);
    expect(first.unindexed).toEqual([]); // the retired state hands its lag on
    const best = (text: string) => similarityIndexOf(entry).query(text, { threshold: 0.9, limit: 1 })[0]?.bulletId ?? null;
    expect(best(kept)).toBe(keptId);
    expect(best(dropped)).toBeNull(); // added, then removed: the removal came last
    expect(entry.unindexed).toEqual([]);

    // What a person sees: a proposal of the kept lesson again is flagged against it.
    const again = await alice.delta.propose({
      playbookId,
      rationale: "Again",
      operations: [{ operation: { type: "add", section: "strategies_and_insights", content: kept } }],
    });
    const view = await alice.delta.get({ deltaId: again.deltaId });
    expect(view.operations[0]?.findings.find((finding) => finding.kind === "near_duplicate")?.message).toContain(keptId!);
  });

  it("evicts by bytes when two playbooks' states do not fit, and writers on both still commit", async () => {
    // Two states of 600 KB each under a bound of 1 MB: reading one evicts the other.
    const first = await playbook("first", largePlaybook(1_200));
    const second = await playbook("second", largePlaybook(1_200));
    const evicted = (await loadSnapshot(database.db, first)).entry;
    await loadSnapshot(database.db, second);
    const reloaded = (await loadSnapshot(database.db, first)).entry;
    expect(reloaded).not.toBe(evicted);
    expect(evicted.retired).toBe(false); // still exact for its version: whoever held it may go on
    for (let round = 1; round <= 3; round += 1) {
      for (const playbookId of [first, second]) {
        const applied = await tag(playbookId, round);
        expect(applied).toMatchObject({ status: "applied", playbookVersion: 1 + round });
      }
    }
    expect((await loadSnapshot(database.db, second)).entry.state.bullets.get("str-00001")?.helpful).toBe(6);
  });
});
