import { describe, expect, it } from "vitest";
import { approximateBytes, cachePerScope, createByteBoundedCache } from "./lru";

describe("createByteBoundedCache", () => {
  const sized = (maxBytes: number, removed: string[] = []) =>
    createByteBoundedCache<string, string>({
      maxBytes,
      sizeOf: (value) => value.length,
      onRemove: (_value, key, reason) => void removed.push(`${key}:${reason}`),
    });

  it("drops the least recently used entries once the sizes pass the bound", () => {
    const removed: string[] = [];
    const cache = sized(10, removed);
    cache.set("a", "xxxx");
    cache.set("b", "xxxx");
    expect(cache.get("a")).toBe("xxxx"); // a is now the most recently used
    cache.set("c", "xxxx");
    expect([...cache.keys()].sort()).toEqual(["a", "c"]);
    expect(cache.calculatedSize).toBe(8);
    expect(removed).toEqual(["b:evict"]);
  });

  it("keeps many small entries and few large ones under the same bound", () => {
    const cache = sized(100);
    for (let i = 0; i < 50; i++) cache.set(`small${i}`, "x");
    expect(cache.size).toBe(50);
    for (let i = 0; i < 5; i++) cache.set(`large${i}`, "x".repeat(40));
    expect(cache.calculatedSize).toBeLessThanOrEqual(100);
    expect(cache.has("large4") && cache.has("large3")).toBe(true);
    expect(cache.has("large0")).toBe(false);
  });

  it("does not keep an entry larger than the whole bound", () => {
    const cache = sized(10);
    cache.set("big", "x".repeat(11));
    expect(cache.has("big")).toBe(false);
  });

  it("counts an entry estimated at zero or a fraction as at least one whole byte", () => {
    const cache = createByteBoundedCache<string, object>({ maxBytes: 2, sizeOf: () => 0.2 });
    cache.set("a", {});
    cache.set("b", {});
    cache.set("c", {});
    expect(cache.size).toBe(2);
  });

  it("refuses a bound that is not a positive whole number", () => {
    for (const maxBytes of [0, -1, 1.5, Number.NaN]) {
      expect(() => createByteBoundedCache({ maxBytes, sizeOf: () => 1 })).toThrow(/maxBytes must be a positive whole number/);
    }
  });
});

describe("cachePerScope", () => {
  it("gives each scope its own cache, the same one every time", () => {
    const cacheOf = cachePerScope<object, Map<string, number>>(() => new Map());
    const one = {};
    const two = {};
    cacheOf(one).set("x", 1);
    expect(cacheOf(one).get("x")).toBe(1);
    expect(cacheOf(two).has("x")).toBe(false);
  });
});

describe("approximateBytes", () => {
  it("grows with a string's length and an array's elements", () => {
    expect(approximateBytes("x".repeat(1000))).toBeGreaterThan(approximateBytes("x".repeat(10)) + 1900);
    expect(approximateBytes([1, 2, 3, 4])).toBeGreaterThan(approximateBytes([1, 2]));
  });

  it("counts a typed array by its bytes", () => {
    const vector = new Float32Array(1536);
    expect(approximateBytes(vector)).toBeGreaterThanOrEqual(1536 * 4);
    expect(approximateBytes(vector)).toBeLessThan(1536 * 4 + 200);
  });

  it("walks objects, maps and sets, and counts an object reached twice once", () => {
    const shared = { content: "y".repeat(500) };
    const once = approximateBytes({ a: shared });
    const twice = approximateBytes({ a: shared, b: shared });
    expect(twice - once).toBeLessThan(50);
    expect(approximateBytes(new Map([["k", shared]]))).toBeGreaterThan(1000);
    expect(approximateBytes(new Set([shared]))).toBeGreaterThan(1000);
  });

  it("ends on a cycle", () => {
    const node: { self?: unknown; text: string } = { text: "loop" };
    node.self = node;
    expect(approximateBytes(node)).toBeGreaterThan(0);
  });
});
