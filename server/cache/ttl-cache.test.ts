import { describe, expect, it } from "vitest";
import { TtlCache } from "./ttl-cache";

function cacheAt(clock: { now: number }, maxBytes = 1_000) {
  return new TtlCache<string>({ ttlMs: 100, maxBytes, sizeOf: (value) => value.length, now: () => clock.now });
}

describe("TtlCache", () => {
  it("serves an entry until its time to live has passed, then forgets it", () => {
    const clock = { now: 0 };
    const cache = cacheAt(clock);
    cache.set("a", "x");
    clock.now = 99;
    expect(cache.get("a")).toBe("x");
    clock.now = 100;
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.totalBytes).toBe(0);
  });

  it("forgets an entry when the clock is set back, instead of keeping it until the clock catches up", () => {
    const clock = { now: 1_000 };
    const cache = cacheAt(clock);
    cache.set("a", "x");
    clock.now = 999;
    expect(cache.get("a")).toBeUndefined();
  });

  it("drops the least recently used entries once the bytes pass the bound, and never keeps one larger than it", () => {
    const clock = { now: 0 };
    const cache = cacheAt(clock, 30);
    cache.set("a", "0123456789"); // 2 + 10 bytes
    cache.set("b", "0123456789");
    expect(cache.totalBytes).toBe(24);
    cache.set("c", "0123456789");
    expect(cache.get("a")).toBeUndefined();
    expect([cache.get("b"), cache.get("c")]).toEqual(["0123456789", "0123456789"]);
    expect(cache.totalBytes).toBe(24);
    cache.set("d", "x".repeat(40));
    expect(cache.get("d")).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it("replacing an entry restarts its time and counts its bytes once", () => {
    const clock = { now: 0 };
    const cache = cacheAt(clock);
    cache.set("a", "x");
    clock.now = 90;
    cache.set("a", "yy");
    clock.now = 150;
    expect(cache.get("a")).toBe("yy");
    expect(cache.totalBytes).toBe(4);
  });

  it("deletes every entry a predicate matches", () => {
    const cache = cacheAt({ now: 0 });
    cache.set("a", "key-1");
    cache.set("b", "key-1");
    cache.set("c", "key-2");
    cache.deleteWhere((value) => value === "key-1");
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([undefined, undefined, "key-2"]);
    expect(cache.totalBytes).toBe(7);
  });
});
