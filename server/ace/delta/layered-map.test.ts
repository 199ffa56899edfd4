import { describe, expect, it } from "vitest";
import { LayeredMap, MAX_LAYERS } from "./layered-map";

/** What a delta's new map was before layers: a copy of the input with the changes set on it. */
function copied(base: ReadonlyMap<string, number>, top: ReadonlyMap<string, number>): Map<string, number> {
  const copy = new Map(base);
  for (const [key, value] of top) copy.set(key, value);
  return copy;
}

function expectSameMap(map: ReadonlyMap<string, number>, expected: ReadonlyMap<string, number>, where: string): void {
  expect(map.size, where).toBe(expected.size);
  expect([...map], where).toEqual([...expected]);
  expect([...map.keys()], where).toEqual([...expected.keys()]);
  expect([...map.values()], where).toEqual([...expected.values()]);
  const seen: [string, number][] = [];
  map.forEach((value, key, self) => {
    expect(self).toBe(map);
    seen.push([key, value]);
  });
  expect(seen, where).toEqual([...expected]);
}

describe("a map in layers", () => {
  it("reads, counts and iterates as the copies it replaces, through more layers than it keeps", () => {
    for (let seed = 1; seed <= 12; seed += 1) {
      let draw = seed;
      const next = () => (draw = (draw * 48_271) % 2_147_483_647) / 2_147_483_647;
      // Large enough that changes of 1 to 4 keys a round often stay in layers up to MAX_LAYERS.
      let expected = new Map<string, number>(Array.from({ length: 300 }, (_, i) => [`k${i}`, i] as const));
      let map: ReadonlyMap<string, number> = new Map(expected);
      let keys = 300;
      let deepest = 0;
      for (let round = 0; round < MAX_LAYERS * 3; round += 1) {
        // Some existing keys changed, some new ones, some set twice in a row.
        const top = new Map<string, number>();
        for (let change = 0; change < 1 + Math.floor(next() * 4); change += 1) {
          const key = next() < 0.6 ? `k${Math.floor(next() * keys)}` : `k${keys++}`;
          top.set(key, Math.floor(next() * 1_000));
        }
        map = LayeredMap.over(map, top);
        expected = copied(expected, top);
        const where = `seed ${seed}, round ${round}`;
        if (map instanceof LayeredMap) {
          expect(map.layers, where).toBeLessThanOrEqual(MAX_LAYERS);
          expect(map.held, where).toBeLessThanOrEqual(map.size / 2);
          deepest = Math.max(deepest, map.layers);
        }
        // The keys just set, and others, present or not.
        const asked = [...top.keys(), ...Array.from({ length: 20 }, () => `k${Math.floor(next() * (keys + 5))}`)];
        expect(
          asked.map((key) => [map.get(key), map.has(key)]),
          where,
        ).toEqual(asked.map((key) => [expected.get(key), expected.has(key)]));
        expect(map.size, where).toBe(expected.size);
        // Now and then a reader walks the whole map (a page, a compile), which flattens it.
        if (next() < 0.05) expectSameMap(map, expected, where);
      }
      expectSameMap(map, expected, `seed ${seed}, at the end`);
      expect(deepest, `seed ${seed}`).toBeGreaterThan(3);
    }
  });

  it("keeps the map it was made from as it was", () => {
    const base = new Map([
      ["a", 1],
      ["b", 2],
    ]);
    const first = LayeredMap.over(base, new Map([["b", 20]]));
    const second = LayeredMap.over(first, new Map([["c", 3]]));
    expect([...second]).toEqual([
      ["a", 1],
      ["b", 20],
      ["c", 3],
    ]);
    expect([...first]).toEqual([
      ["a", 1],
      ["b", 20],
    ]);
    expect([...base]).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
  });
});
