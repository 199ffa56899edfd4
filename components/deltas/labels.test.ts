import { describe, expect, it } from "vitest";
import { deltaTitle } from "./labels";

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
