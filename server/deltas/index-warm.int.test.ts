// The near-duplicate index built in the background when a playbook is opened or first searched
// (engine-state.ts), against real databases: it ends up the index of the current state whatever
// happens meanwhile, deltas search an exact word-scan index until then, and whoever needs the index
// itself finishes it.
import { setImmediate as nextTurn } from "node:timers/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { buildSimilarityIndex, type SimilarityIndex } from "@/server/ace/similarity";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { callerAs } from "@/server/trpc/callers";
import type { createCaller } from "@/server/trpc/root";
import { forgetEngineStates, loadSnapshot, searchableIndexOf, similarityIndexOf, warmSimilarityIndex } from "./engine-state";
import type { EngineEntry } from "./state-cache";

type Caller = ReturnType<typeof createCaller>;

// Which opening starts a build: the real one, watched.
const warmed = vi.hoisted(() => vi.fn());
vi.mock("./engine-state", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./engine-state")>();
  return {
    ...actual,
    warmInBackground: (db: Parameters<typeof actual.warmInBackground>[0], playbookId: string) => {
      warmed(db, playbookId);
      actual.warmInBackground(db, playbookId);
    },
  };
});

const BULLETS = 2_000; // several slices of the build, several turns of the event loop

function largePlaybook(): string {
  const lines = Array.from({ length: BULLETS }, (_, i) => {
    const id = String(i + 1).padStart(5, "0");
    return `[str-${id}] helpful=0 harmful=0 :: Lesson ${id}: handle the ${i % 7}th kind of paginated answer by ${i % 3 ? "retrying" : "checking"} page ${i}.`;
  });
  return ["## strategies_and_insights", ...lines, ""].join("\n");
}

const QUERIES = [
  "Lesson 00001: handle the 0th kind of paginated answer by checking page 0.",
  `Lesson ${String(BULLETS).padStart(5, "0")}: handle the 4th kind of paginated answer by retrying page ${BULLETS - 1}.`,
  "Always read the rate limit headers before the next call.",
  "handle paginated answers by retrying",
];

/** The index answers every query as an index built afresh from the entry's state does. */
function expectIndexOf(index: SimilarityIndex, entry: EngineEntry, thresholds = [0.5, 0.85]): void {
  const fresh = buildSimilarityIndex(entry.state.bullets.values());
  expect(index.size).toBe(fresh.size);
  for (const query of QUERIES) {
    for (const threshold of thresholds) {
      expect(index.query(query, { threshold, limit: 50 })).toEqual(fresh.query(query, { threshold, limit: 50 }));
    }
  }
}

describe.each(testEngines())("the near-duplicate index built in the background on %s", (engine) => {
  let database: TestDatabase;
  let alice: Caller;
  let playbookId: string;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    alice = callerAs(database.db, "admin", "alice");
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    forgetEngineStates(database.db);
    await database.reset();
    ({ playbookId } = await alice.playbook.import({ content: largePlaybook(), format: "ace", target: { kind: "new", name: "large" } }));
    forgetEngineStates(database.db);
  });

  it("is built a slice per turn, so requests go on meanwhile, and is the state's index when done", async () => {
    const { entry } = await loadSnapshot(database.db, playbookId);
    const building = warmSimilarityIndex(database.db, playbookId);
    await nextTurn();
    expect(entry.index).toBeNull(); // not in one go
    await building;
    expect(entry.index).not.toBeNull();
    expectIndexOf(entry.index!, entry);
    // Built or being built: asking again starts nothing.
    await warmSimilarityIndex(database.db, playbookId);
    expect((await loadSnapshot(database.db, playbookId)).entry.index).toBe(entry.index);
  });

  it("builds only small slices while the server is busy answering requests, and still ends", async () => {
    const { entry } = await loadSnapshot(database.db, playbookId);
    // Busy for three looks, then free, with nothing built while busy: the whole build is one slice,
    // so had it been built while busy it would have ended before the fourth look.
    let looks = 0;
    await warmSimilarityIndex(database.db, playbookId, { slice: BULLETS + 1, busySlice: 0, busy: () => (looks += 1) <= 3 });
    expect(looks).toBe(4);
    expectIndexOf(entry.index!, entry);

    // Busy all along: a quarter at a time, so four busy slices and a last look find it done.
    forgetEngineStates(database.db);
    const next = (await loadSnapshot(database.db, playbookId)).entry;
    looks = 0;
    await warmSimilarityIndex(database.db, playbookId, { busySlice: BULLETS / 4, busy: () => (looks += 1) > 0 });
    expect(looks).toBe(5);
    expectIndexOf(next.index!, next);
  });

  it("moves on with a commit made while it is built: the finished index is the committed state's", async () => {
    const before = (await loadSnapshot(database.db, playbookId)).entry;
    // One bullet a turn: the edit below commits long before the last one.
    const building = warmSimilarityIndex(database.db, playbookId, { slice: 1 });
    await nextTurn();
    expect(before.index).toBeNull();
    // Removes a bullet indexed already and one not yet read. A removal searches no near-duplicates,
    // so the edit commits without the index and hands the build on.
    await alice.delta.edit({
      playbookId,
      reason: "Retire two lessons",
      operations: [
        { type: "remove", bulletId: "str-00001", reason: "Superseded" },
        { type: "remove", bulletId: `str-${String(BULLETS).padStart(5, "0")}`, reason: "Superseded" },
      ],
    });
    expect(before.retired).toBe(true);
    expect(before.index).toBeNull(); // the build was still under way: it was handed on
    await building;
    const { entry } = await loadSnapshot(database.db, playbookId);
    expect(entry.version).toBe(before.version + 1);
    expect(entry.index).not.toBeNull();
    expectIndexOf(entry.index!, entry);
    expect(entry.index!.has("str-00001")).toBe(false);
    expect(entry.index!.size).toBe(BULLETS - 2);
  });

  it("is finished by whoever needs the index itself (MCP search), which does not wait for the slices", async () => {
    const before = (await loadSnapshot(database.db, playbookId)).entry;
    const building = warmSimilarityIndex(database.db, playbookId);
    await nextTurn();
    expect(before.index).toBeNull();
    const index = similarityIndexOf(before);
    expect(before.index).toBe(index);
    expectIndexOf(index, before);
    await building; // gives up: there is nothing left to build

    const outcome = await alice.delta.edit({
      playbookId,
      reason: "A lesson again",
      operations: [{ type: "add", section: "strategies_and_insights", content: QUERIES[0]! }],
    });
    expect(outcome.findings).toMatchObject([{ kind: "near_duplicate", matchedBulletId: "str-00001" }]);
  });

  it("is started by a first edit that searches, which searches an exact word-scan index instead of waiting for it", async () => {
    const content = QUERIES[0]!;
    const expected = buildSimilarityIndex((await loadSnapshot(database.db, playbookId)).entry.state.bullets.values()).query(content, {
      threshold: 0.85,
      limit: 1,
    })[0]!;
    forgetEngineStates(database.db);
    const outcome = await alice.delta.edit({
      playbookId,
      reason: "A lesson again",
      operations: [{ type: "add", section: "strategies_and_insights", content }],
    });
    expect(outcome.findings).toMatchObject([{ kind: "near_duplicate", matchedBulletId: expected.bulletId, similarity: expected.score }]);
    await expect.poll(async () => (await loadSnapshot(database.db, playbookId)).entry.index, { timeout: 20_000 }).not.toBeNull();
    const { entry } = await loadSnapshot(database.db, playbookId);
    // Read as deltas read it: a build that ended before the edit committed lags by the edit's changes
    // until the next search applies them (engine-state.ts builtIndexOf).
    expectIndexOf(similarityIndexOf(entry), entry);
    expect(searchableIndexOf(entry)).toBe(entry.index);
  });

  it("lets deltas search the word-scan index until the build ends, moved on with each commit", async () => {
    const before = (await loadSnapshot(database.db, playbookId)).entry;
    // A build that waits for a server never free: it goes on only when finished below.
    let started = () => {};
    const underWay = new Promise<void>((resolve) => (started = resolve));
    const building = warmSimilarityIndex(database.db, playbookId, { busySlice: 0, busy: () => (started(), true) });
    await underWay;
    const quick = searchableIndexOf(before);
    expect(before.index).toBeNull(); // searching built nothing of the index itself
    expect(searchableIndexOf(before)).toBe(quick);
    // At the default threshold: a low one scores most bullets in full, which finishes the build (below).
    expectIndexOf(quick, before, [0.85]);
    await alice.delta.edit({
      playbookId,
      reason: "Retire a lesson, learn one",
      operations: [
        { type: "remove", bulletId: "str-00001", reason: "Superseded" },
        { type: "add", section: "strategies_and_insights", content: QUERIES[2]! },
      ],
    });
    const { entry } = await loadSnapshot(database.db, playbookId);
    expect(entry.version).toBe(before.version + 1);
    expect(entry.index).toBeNull();
    expect(searchableIndexOf(entry)).toBe(quick);
    expectIndexOf(quick, entry, [0.85]);
    expect(quick.has("str-00001")).toBe(false);
    expectIndexOf(similarityIndexOf(entry), entry);
    await building;
    expect(searchableIndexOf(entry)).toBe(entry.index);
  });

  it("is finished by a search once the word-scan index has scored a quarter of the bullets in full", async () => {
    const { entry } = await loadSnapshot(database.db, playbookId);
    let started = () => {};
    const underWay = new Promise<void>((resolve) => (started = resolve));
    const building = warmSimilarityIndex(database.db, playbookId, { busySlice: 0, busy: () => (started(), true) });
    await underWay;
    const quick = searchableIndexOf(entry);
    // A threshold this low rules out almost nothing on words: each search scores most bullets in full.
    const low = { threshold: 0.05, limit: 5 };
    const fresh = buildSimilarityIndex(entry.state.bullets.values());
    expect(quick.query(QUERIES[3]!, low)).toEqual(fresh.query(QUERIES[3]!, low));
    expect(entry.index).toBeNull();
    expect(quick.query(QUERIES[3]!, low)).toEqual(fresh.query(QUERIES[3]!, low));
    expect(entry.index).not.toBeNull();
    expectIndexOf(entry.index!, entry);
    await building;
  });

  it("is started when someone who may edit the playbook opens it, not when a viewer does", async () => {
    warmed.mockClear();
    await callerAs(database.db, "viewer", "victor").playbook.get({ playbookId });
    expect(warmed).not.toHaveBeenCalled();

    await alice.playbook.get({ playbookId });
    expect(warmed).toHaveBeenCalledTimes(1);
    // Compared by identity: a deep comparison of the database client never ends.
    expect(warmed.mock.calls[0]?.[0]).toBe(database.db);
    expect(warmed.mock.calls[0]?.[1]).toBe(playbookId);
    await expect.poll(async () => (await loadSnapshot(database.db, playbookId)).entry.index, { timeout: 20_000 }).not.toBeNull();
    const { entry } = await loadSnapshot(database.db, playbookId);
    expectIndexOf(entry.index!, entry);
  });

  it("gives up when the state is dropped, and the next one is built afresh", async () => {
    const dropped = (await loadSnapshot(database.db, playbookId)).entry;
    const building = warmSimilarityIndex(database.db, playbookId);
    await nextTurn();
    forgetEngineStates(database.db);
    await building;
    expect(dropped.index).toBeNull();
    await warmSimilarityIndex(database.db, playbookId);
    const { entry } = await loadSnapshot(database.db, playbookId);
    expect(entry).not.toBe(dropped);
    expectIndexOf(entry.index!, entry);
  });
});
