import { describe, expect, it } from "vitest";
import { applyDelta, createPlaybookState, LayeredMap, type DeltaOperation } from "@/server/ace/delta";
import { bullet, STRATEGIES } from "@/server/ace/delta/test-fixtures";
import { buildSimilarityIndex } from "@/server/ace/similarity";
import type { VersionChange } from "@/server/ace/history";
import type { ExportBulletExtras } from "@/server/playbooks/repositories/bullet-states";
import {
  carryExtras,
  carrySizes,
  createEngineStateCache,
  entryBytes,
  recountEntry,
  type EngineEntry,
  type EntryExtras,
} from "./state-cache";

/** A state of `count` active bullets of 100 characters each. */
function entryOf(count: number, version = 1): EngineEntry {
  const bullets = Array.from({ length: count }, (_, i) =>
    bullet(`str-${String(i + 1).padStart(5, "0")}`, `Bullet ${String(i).padStart(4, "0")} `.padEnd(100, "x"), { position: i }),
  );
  return {
    version,
    state: createPlaybookState([STRATEGIES], bullets),
    index: null,
    unindexed: [],
    tokens: null,
    figures: null,
    extras: null,
    retired: false,
  };
}

function withIndex(entry: EngineEntry): EngineEntry {
  entry.index = buildSimilarityIndex(entry.state.bullets.values());
  return entry;
}

describe("entryBytes", () => {
  it("counts a bullet's object and its content, and the similarity index once it is built", () => {
    // 100 bullets: 300 B + 2 × 100 characters each, and 2,600 B + 15 × 100 more with the index.
    expect(entryBytes(entryOf(100))).toBe(100 * (300 + 200));
    expect(entryBytes(withIndex(entryOf(100)))).toBe(100 * (300 + 200 + 2_600 + 1_500));
  });

  it("counts archived bullets in the state but not in the index, which holds active bullets only", () => {
    const entry = entryOf(2);
    const archived = { ...entry.state.bullets.get("str-00002")!, status: "archived" as const };
    const state = createPlaybookState([STRATEGIES], [entry.state.bullets.get("str-00001")!, archived]);
    expect(entryBytes(withIndex({ ...entry, state }))).toBe(2 * 500 + 4_100);
  });
});

describe("carrySizes", () => {
  it("sizes the state a delta made from its predecessor's sizes and the changes, as a count of every bullet would", () => {
    const entry = withIndex(entryOf(50));
    entryBytes(entry); // counted, so the next state's sizes are carried
    let state = entry.state;
    // Over several deltas: an addition, rewrites to other lengths, an archival and a merge.
    const deltas: DeltaOperation[][] = [
      [
        { type: "add", section: "strategies_and_insights", content: "A new bullet of a length of its own." },
        { type: "update", bulletId: "str-00001", content: "Shorter." },
      ],
      [{ type: "remove", bulletId: "str-00002", reason: "Obsolete" }],
      [
        {
          type: "merge",
          bulletIds: ["str-00003", "str-00004"],
          into: "str-00003",
          content: "Merged into one, longer than either of the two it replaces.",
        },
        { type: "update", bulletId: "str-00001", content: "Longer again, rewritten a second time by a later delta." },
      ],
    ];
    // The bullets a delta replaced stay in the layers of the map it made, and count until a copy.
    let held = 0;
    for (const ops of deltas) {
      const result = applyDelta(state, ops, { newSectionId: () => "new" });
      carrySizes(state, result.state, result.changes);
      expect(result.state.bullets).toBeInstanceOf(LayeredMap);
      for (const change of result.changes) if (change.entity === "bullet" && change.before) held += 300 + 2 * change.before.content.length;
      const carried = entryBytes({ ...entry, state: result.state });
      // A copy of the state is a new object, counted bullet by bullet.
      expect(carried).toBe(entryBytes({ ...entry, state: { ...result.state } }) + held);
      expect(entryBytes({ ...entry, index: null, state: result.state })).toBe(
        entryBytes({ ...entry, index: null, state: { ...result.state } }) + held,
      );
      state = result.state;
    }
    expect(entryBytes({ ...entry, state })).not.toBe(entryBytes(entry));
  });
});

describe("carryExtras", () => {
  const row: ExportBulletExtras = {
    origin: "import",
    sourceTraceId: null,
    sourceRunId: null,
    justification: null,
    evidence: null,
    extra: null,
    blankLinesBefore: 0,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
  const extrasOf = (count: number): EntryExtras => ({
    rows: new Map(Array.from({ length: count }, (_, i) => [`str-${i}`, row])),
    stale: new Set(),
    rowBytes: 100,
  });
  const bulletChange = (id: string): VersionChange => ({ entity: "bullet", id, before: null, after: null });

  it("marks the bullets a version changed as stale, without touching the extras it came from", () => {
    const extras = extrasOf(10);
    const once = carryExtras(extras, [bulletChange("str-1"), { entity: "section", id: "s", before: null, after: null }])!;
    const twice = carryExtras(once, [bulletChange("str-1"), bulletChange("str-new")])!;
    expect([...once.stale]).toEqual(["str-1"]);
    expect([...twice.stale]).toEqual(["str-1", "str-new"]);
    expect(extras.stale.size).toBe(0);
    expect(twice.rows).toBe(extras.rows);
    // A version that changed no bullet, or only stale ones, carries the same extras.
    expect(carryExtras(once, [bulletChange("str-1")])).toBe(once);
    expect(carryExtras(null, [bulletChange("str-1")])).toBeNull();
  });

  it("drops the extras once more than 2,000 bullets are stale: reading them by id costs about a whole read", () => {
    const extras = extrasOf(5_000);
    const changes = (from: number, count: number) => Array.from({ length: count }, (_, i) => bulletChange(`str-${from + i}`));
    const nearly = carryExtras(extras, changes(0, 2_000));
    expect(nearly?.stale.size).toBe(2_000);
    expect(carryExtras(nearly, changes(2_000, 1))).toBeNull();
  });

  it("counts the rows in the entry's bytes, and the ones a later read laid over them until a copy lets them go", () => {
    const entry = entryOf(100);
    const bare = entryBytes(entry);
    const extras = extrasOf(100);
    expect(entryBytes({ ...entry, extras })).toBe(bare + 100 * 100);
    const layered = LayeredMap.over(
      extras.rows,
      new Map([
        ["str-1", row],
        ["str-new", row],
      ]),
    );
    expect(entryBytes({ ...entry, extras: { ...extras, rows: layered } })).toBe(bare + (101 + 2) * 100);
  });
});

describe("createEngineStateCache", () => {
  it("drops the least recently used playbook states once their sizes pass the bound in bytes", () => {
    // 100 bullets without their index: 50,000 B estimated; three fit in 160,000 B, four do not.
    const cache = createEngineStateCache(160_000);
    const entries = ["a", "b", "c", "d"].map(() => entryOf(100));
    cache.remember("a", entries[0]!);
    cache.remember("b", entries[1]!);
    cache.remember("c", entries[2]!);
    expect(cache.get("a")).toBe(entries[0]); // a is now used more recently than b
    cache.remember("d", entries[3]!);
    expect(cache.get("b")).toBeUndefined();
    expect([cache.get("a"), cache.get("c"), cache.get("d")]).toEqual([entries[0], entries[2], entries[3]]);
    expect(cache.bytes).toBe(150_000);
    // Evicted to make room, the state stays exact for its version: whoever holds it may go on.
    expect(entries[1]!.retired).toBe(false);
  });

  it("counts an entry again once its index is built, and then evicts by the larger size", () => {
    const cache = createEngineStateCache(600_000);
    const first = entryOf(100);
    const second = entryOf(100);
    cache.remember("first", first);
    cache.remember("second", second);
    expect(cache.bytes).toBe(100_000);
    withIndex(second);
    recountEntry(second);
    expect(cache.bytes).toBe(50_000 + 460_000);
    withIndex(first);
    recountEntry(first); // 920,000 B do not fit: the least recently used, second, goes
    expect(cache.get("second")).toBeUndefined();
    expect(cache.get("first")).toBe(first);
    expect(cache.bytes).toBe(460_000);
  });

  it("does not put back an entry that left the cache when it is counted again", () => {
    const cache = createEngineStateCache(600_000);
    const old = entryOf(100, 1);
    cache.remember("p", old);
    cache.remember("p", entryOf(100, 2));
    recountEntry(withIndex(old));
    expect(cache.get("p")?.version).toBe(2);
    expect(cache.bytes).toBe(50_000);
  });

  it("keeps an entry usable that outgrew the whole bound, though the cache no longer holds it", () => {
    const cache = createEngineStateCache(100_000);
    const entry = entryOf(100);
    cache.remember("p", entry);
    recountEntry(withIndex(entry)); // 460,000 B > 100,000 B
    expect(cache.get("p")).toBeUndefined();
    expect(entry.retired).toBe(false);
  });

  it("retires the entry a newer version replaces and ignores an older version", () => {
    const cache = createEngineStateCache(1_000_000);
    const v2 = entryOf(10, 2);
    cache.remember("p", v2);
    cache.remember("p", entryOf(10, 1));
    expect(cache.get("p")).toBe(v2);
    const v3 = entryOf(10, 3);
    cache.remember("p", v3);
    expect(v2.retired).toBe(true);
    expect(cache.get("p")).toBe(v3);
  });

  it("keeps the entry remembered first when another of the same version comes, and hands it back", () => {
    const cache = createEngineStateCache(1_000_000);
    const first = entryOf(10, 2);
    const second = entryOf(10, 2);
    expect(cache.remember("p", first)).toBe(first);
    expect(cache.remember("p", second)).toBe(first);
    expect(cache.get("p")).toBe(first);
    expect(first.retired).toBe(false);
    // An older version is not cached; whoever loaded it still uses it (exact for its version).
    const older = entryOf(10, 1);
    expect(cache.remember("p", older)).toBe(older);
    expect(cache.get("p")).toBe(first);
  });

  it("retires every entry it forgets, so that nobody goes on writing into a dropped state", () => {
    const cache = createEngineStateCache(1_000_000);
    const entries = [entryOf(10), entryOf(10)];
    cache.remember("a", entries[0]!);
    cache.remember("b", entries[1]!);
    cache.clear();
    expect(entries.map((entry) => entry.retired)).toEqual([true, true]);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});
