import { GrowthBook } from "@growthbook/growthbook";
import { describe, expect, it, vi } from "vitest";
import { AssignmentInputError, assignVariant, type AssignmentInput } from "./index";

// An independent FNV-1a 32 over UTF-16 code units (charCodeAt), written from the FNV definition
// (offset basis 0x811c9dc5, prime 16777619), to check what GrowthBook's SDK computes for us.
function fnv1a32Utf16(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619) >>> 0;
  return hash;
}

// The same over UTF-8 bytes, as byte-oriented FNV packages hash: differs on non-ASCII ids.
function fnv1a32Utf8(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
  return hash;
}

const hashV2 = (fnv: (text: string) => number, seed: string, unitId: string) => (fnv(String(fnv(seed + unitId))) % 10000) / 10000;

/** Variant index by the documented ranges [c, c + coverage × w), or null outside them. */
function expectedVariant(n: number, weights: readonly number[], coverage: number): number | null {
  let cumulative = 0;
  for (let i = 0; i < weights.length; i++) {
    const weight = weights[i] as number;
    if (n >= cumulative && n < cumulative + coverage * weight) return i;
    cumulative += weight;
  }
  return null;
}

const base: AssignmentInput = { key: "checkout-playbook", seed: "checkout-playbook", unitId: "agent-1", weights: [0.5, 0.5], coverage: 1 };

describe("GrowthBook hashing, version 2", () => {
  it.each([
    ["feature", "123", 0.5231],
    ["holdout", "1", 0.8043],
    ["experiment", "1", 0.4413],
  ])("hashes seed %j and unit %j to %d, as GrowthBook's test cases say", (seed, unitId, n) => {
    expect(assignVariant({ ...base, seed, unitId }).hashValue).toBe(n);
    // A unit outside the coverage still reports where it fell.
    expect(assignVariant({ ...base, seed, unitId, coverage: 0 })).toMatchObject({ inExperiment: false, variantIndex: null, hashValue: n });
  });

  it("matches an independent FNV-1a over UTF-16 code units and the documented ranges on 10,000 ids", () => {
    const weights = [0.15, 0.25, 0.6];
    const coverage = 0.85;
    const ids = [
      ...Array.from({ length: 9_990 }, (_, i) => `unit-${i}`),
      ...["émile", "ユーザー-7", "😀-42", "Ωmega", "naïve café", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "zh-用户", "ß", "Ünïcödé-1", "🚀🚀"],
    ];
    for (const unitId of ids) {
      const n = hashV2(fnv1a32Utf16, "seed-α", unitId);
      const variant = expectedVariant(n, weights, coverage);
      expect(assignVariant({ ...base, seed: "seed-α", unitId, weights, coverage }), unitId).toEqual({
        inExperiment: variant !== null,
        variantIndex: variant,
        hashValue: n,
        phase: null,
      });
    }
  });

  it("hashes UTF-16 code units, not UTF-8 bytes, so non-ASCII ids match the JS and Python SDKs", () => {
    for (const unitId of ["émile", "ユーザー-7", "😀-42"]) {
      expect(fnv1a32Utf8(unitId)).not.toBe(fnv1a32Utf16(unitId));
      expect(assignVariant({ ...base, seed: "s", unitId }).hashValue).toBe(hashV2(fnv1a32Utf16, "s", unitId));
    }
    expect(fnv1a32Utf8("agent-1")).toBe(fnv1a32Utf16("agent-1"));
  });
});

describe("split", () => {
  it("splits 100,000 units within ±1 percentage point of uneven weights", () => {
    const weights = [0.2, 0.3, 0.5];
    const counts = [0, 0, 0];
    for (let i = 0; i < 100_000; i++) {
      const { variantIndex } = assignVariant({ ...base, seed: "split", unitId: `user-${i}`, weights });
      counts[variantIndex as number] = (counts[variantIndex as number] as number) + 1;
    }
    counts.forEach((count, i) => expect(Math.abs(count / 100_000 - (weights[i] as number))).toBeLessThan(0.01));
  });

  it("lets a share of `coverage` in, split by the weights", () => {
    const weights = [0.7, 0.3];
    let inside = 0;
    let first = 0;
    for (let i = 0; i < 100_000; i++) {
      const result = assignVariant({ ...base, seed: "coverage", unitId: `user-${i}`, weights, coverage: 0.4 });
      if (result.inExperiment) inside++;
      if (result.variantIndex === 0) first++;
    }
    expect(Math.abs(inside / 100_000 - 0.4)).toBeLessThan(0.01);
    expect(Math.abs(first / inside - 0.7)).toBeLessThan(0.01);
  });

  it("lets nobody in at coverage 0 and everybody in at coverage 1", () => {
    for (let i = 0; i < 1_000; i++) {
      expect(assignVariant({ ...base, unitId: `u${i}`, coverage: 0 }).inExperiment).toBe(false);
      expect(assignVariant({ ...base, unitId: `u${i}`, coverage: 1 }).inExperiment).toBe(true);
    }
  });
});

describe("agreement with the GrowthBook SDK", () => {
  it("gives the variant a GrowthBook instance's run() gives, on 10,000 ids with uneven weights and coverage < 1", () => {
    const weights = [0.1, 0.3, 0.6];
    const coverage = 0.7;
    let inside = 0;
    for (let i = 0; i < 10_000; i++) {
      const unitId = i % 100 === 0 ? `ユニット-${i}` : `agent-${i}`;
      const sdk = new GrowthBook({ attributes: { id: unitId } });
      const result = sdk.run({ key: "exp", seed: "exp-seed", hashVersion: 2, variations: ["a", "b", "c"], weights, coverage });
      const ours = assignVariant({ key: "exp", seed: "exp-seed", unitId, weights, coverage });
      expect(ours.inExperiment, unitId).toBe(result.inExperiment);
      expect(ours.variantIndex, unitId).toBe(result.inExperiment ? result.variationId : null);
      if (result.inExperiment) {
        expect(ours.hashValue, unitId).toBe(result.bucket);
        inside++;
      }
      sdk.destroy();
    }
    expect(inside).toBeGreaterThan(6_500);
    expect(inside).toBeLessThan(7_500);
  });
});

describe("stability", () => {
  it("gives the same unit the same variant after a restart (a fresh load of the module)", async () => {
    const before = Array.from({ length: 1_000 }, (_, i) =>
      assignVariant({ ...base, unitId: `agent-${i}`, weights: [0.3, 0.7], coverage: 0.9 }),
    );
    vi.resetModules();
    const reloaded = await import("./assignment");
    const after = Array.from({ length: 1_000 }, (_, i) =>
      reloaded.assignVariant({ ...base, unitId: `agent-${i}`, weights: [0.3, 0.7], coverage: 0.9 }),
    );
    expect(after).toEqual(before);
  });

  it("re-randomises with a new seed (a new phase), and reports the phase", () => {
    const ids = Array.from({ length: 1_000 }, (_, i) => `agent-${i}`);
    const moved = ids.filter(
      (unitId) =>
        assignVariant({ ...base, unitId, seed: "phase-1" }).variantIndex !==
        assignVariant({ ...base, unitId, seed: "phase-2" }).variantIndex,
    );
    expect(moved.length).toBeGreaterThan(400);
    expect(moved.length).toBeLessThan(600);
    expect(assignVariant({ ...base, phase: "2" }).phase).toBe("2");
    // The phase label alone does not move anyone: the seed does.
    expect(assignVariant({ ...base, phase: "2" }).variantIndex).toBe(assignVariant(base).variantIndex);
  });
});

describe("bad definitions", () => {
  it.each<[string, Partial<AssignmentInput>, RegExp]>([
    ["weights summing to 0.98", { weights: [0.49, 0.49] }, /weights must sum to 1 \(±0.001\), got 0.98/],
    ["weights summing to 1.002", { weights: [0.502, 0.5] }, /weights must sum to 1/],
    ["a single variant", { weights: [1] }, /weights must list 2 to 10 variants, got 1/],
    ["eleven variants", { weights: Array.from({ length: 11 }, () => 1 / 11) }, /got 11/],
    ["a weight of 0", { weights: [1, 0] }, /weights\[1\] must be a number > 0, got 0/],
    ["a negative weight", { weights: [1.2, -0.2] }, /weights\[1\] must be a number > 0/],
    ["a weight that is not a number", { weights: [0.5, Number.NaN] }, /weights\[1\]/],
    ["coverage above 1", { coverage: 1.5 }, /coverage must be between 0 and 1, got 1.5/],
    ["negative coverage", { coverage: -0.1 }, /coverage must be between 0 and 1/],
    ["coverage that is not a number", { coverage: Number.NaN }, /coverage/],
    ["an empty unit id", { unitId: "" }, /unitId must be a non-empty string/],
    ["an empty seed", { seed: "" }, /seed must be a non-empty string/],
    ["an empty key", { key: "" }, /key must be a non-empty string/],
  ])("refuses %s", (_, change, message) => {
    expect(() => assignVariant({ ...base, ...change })).toThrow(AssignmentInputError);
    expect(() => assignVariant({ ...base, ...change })).toThrow(message);
  });

  it("accepts weights within 0.001 of 1", () => {
    expect(assignVariant({ ...base, weights: [0.3333, 0.3333, 0.3333] }).inExperiment).toBeTypeOf("boolean");
  });
});
