import { describe, expect, it } from "vitest";
import { applyDelta, type DeltaOperation } from "@/server/ace/delta";
import { testOptions } from "@/server/ace/delta/test-fixtures";
import { diffStates } from "@/server/ace/diff";
import { buildSimilarityIndex } from "@/server/ace/similarity";
import { curationCorpus, deltaSource, DELTA_MIX, expectedDiff, newBullets, OPERATIONS_PER_DELTA } from "./curation-data";
import { syntheticPlaybook } from "./synthetic";

const corpus = curationCorpus(syntheticPlaybook({ bullets: 2_000 }));

function bulletsOf(op: DeltaOperation): string[] {
  if (op.type === "merge") return [...op.bulletIds, op.into];
  return "bulletId" in op ? [op.bulletId] : [];
}

describe("deltaSource", () => {
  it("makes deltas of 50 operations in the stated mix", () => {
    const ops = deltaSource(corpus).next();
    expect(ops).toHaveLength(OPERATIONS_PER_DELTA);
    expect(OPERATIONS_PER_DELTA).toBe(50);
    const count = (predicate: (op: DeltaOperation) => boolean) => ops.filter(predicate).length;
    expect(count((op) => op.type === "update" && op.content !== undefined)).toBe(DELTA_MIX.edit);
    expect(count((op) => op.type === "update" && op.section !== undefined)).toBe(DELTA_MIX.move);
    expect(count((op) => op.type === "tag")).toBe(DELTA_MIX.tag);
    expect(count((op) => op.type === "add")).toBe(DELTA_MIX.add);
    expect(count((op) => op.type === "remove")).toBe(DELTA_MIX.remove);
    expect(count((op) => op.type === "merge")).toBe(DELTA_MIX.merge);
  });

  it("applies delta after delta without errors or no-op warnings, and the diff counts what they did", () => {
    const source = deltaSource(corpus);
    let state = corpus.state;
    for (let i = 0; i < 5; i++) {
      const result = applyDelta(state, source.next(), testOptions());
      expect(result.warnings.filter((finding) => finding.kind === "no_change")).toEqual([]);
      state = result.state;
    }
    expect(diffStates(corpus.state, state).totals).toMatchObject(expectedDiff(5));
  });

  it("never touches a bullet twice, and says so when the playbook runs out", () => {
    const source = deltaSource(corpus);
    const touched = Array.from({ length: source.capacity }, () => source.next().flatMap(bulletsOf));
    const all = touched.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(source.made).toBe(source.capacity);
    expect(() => source.next()).toThrow(/untouched bullets/);
  });
});

describe("newBullets", () => {
  const bullets = newBullets(corpus, { count: 200, rewordings: 30, seed: 1 });

  it("gives different bullets, none already in the playbook, the stated share rewording one", () => {
    const existing = new Set(corpus.bullets.map((bullet) => bullet.content));
    expect(new Set(bullets.map((bullet) => bullet.content)).size).toBe(200);
    expect(bullets.filter((bullet) => existing.has(bullet.content))).toEqual([]);
    expect(bullets.filter((bullet) => bullet.rewords !== null)).toHaveLength(30);
  });

  it("rewords closely enough for the index to find the original, and new lessons mostly match nothing", () => {
    const index = buildSimilarityIndex(corpus.state.bullets.values());
    const best = bullets.map((bullet) => index.query(bullet.content, { threshold: 0.85, limit: 1 })[0]?.bulletId ?? null);
    const found = bullets.filter((bullet, i) => bullet.rewords !== null && best[i] === bullet.rewords).length;
    const matchedNew = bullets.filter((bullet, i) => bullet.rewords === null && best[i] !== null).length;
    expect(found).toBeGreaterThanOrEqual(27);
    expect(matchedNew).toBeLessThanOrEqual(5);
  });
});
