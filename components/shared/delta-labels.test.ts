import { describe, expect, it } from "vitest";
import { deltaTitle, startingCounters } from "./delta-labels";

describe("deltaTitle", () => {
  const delta = { author: "alice", counts: { total: 3, pending: 3, approved: 0, rejected: 0 }, types: { remove: 3 } };

  it("names a pruning delta by what it prunes, not by the person who asked for it", () => {
    expect(deltaTitle({ ...delta, origin: "pruning" })).toBe("Pruning: 3 bullets to archive");
    expect(deltaTitle({ ...delta, origin: "pruning", counts: { ...delta.counts, total: 1 }, types: { remove: 1 } })).toBe(
      "Pruning: 1 bullet to archive",
    );
  });

  it("names other deltas by their proposer", () => {
    expect(deltaTitle({ ...delta, origin: "curator", author: "curator (offline)", types: { add: 3 } })).toBe(
      "3 operations from curator (offline)",
    );
    expect(deltaTitle({ ...delta, origin: "reflector", author: "reflector (offline)" })).toBe("Counter tags from reflector (offline)");
  });
});

describe("startingCounters", () => {
  const add = { type: "add" as const, section: "tools", content: "Prefer the bulk endpoint." };

  it("reads an added bullet's counters as they start: helpful up, harmful down, neutral as a count", () => {
    expect(startingCounters({ ...add, helpful: 3, harmful: 1 })).toBe("+3 helpful / −1 harmful");
    expect(startingCounters({ ...add, neutral: 2 })).toBe("2 neutral");
  });

  it("says nothing for a bullet that starts at 0, or for other operations", () => {
    expect(startingCounters(add)).toBeNull();
    expect(startingCounters({ ...add, helpful: 0, harmful: 0 })).toBeNull();
    expect(startingCounters({ type: "tag", bulletId: "str-00001", helpful: 3 })).toBeNull();
  });
});
