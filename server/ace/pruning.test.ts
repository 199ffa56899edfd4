import { describe, expect, it } from "vitest";
import { createPlaybookState } from "./delta/state";
import { STRATEGIES, bullet } from "./delta/test-fixtures";
import type { BulletState } from "./history";
import { DEFAULT_PRUNING_POLICY, proposePruning, type PruningPolicy } from "./pruning";

const stateOf = (...bullets: BulletState[]) => createPlaybookState([STRATEGIES], bullets);
const counted = (id: string, helpful: number, harmful: number, neutral = 0, extra: Partial<BulletState> = {}) =>
  bullet(id, `Bullet ${id}`, { helpful, harmful, neutral, position: Number(id.slice(-2)), ...extra });
const prunedIds = (bullets: BulletState[], policy: PruningPolicy = DEFAULT_PRUNING_POLICY) =>
  proposePruning(stateOf(...bullets), policy).map((op) => op.bulletId);

describe("the harmful-share rule (LangChain ACE middleware)", () => {
  it("proposes removing a bullet marked harmful in more than half of at least 3 votes, with a readable reason", () => {
    expect(proposePruning(stateOf(counted("str-00001", 1, 2)), DEFAULT_PRUNING_POLICY)).toEqual([
      {
        type: "remove",
        bulletId: "str-00001",
        reason: "Marked harmful in 2 of 3 votes (67 %), more than the 50 % allowed once a bullet has 3 votes.",
      },
    ]);
  });

  it("keeps a bullet at exactly half harmful, and one with fewer than 3 votes", () => {
    expect(prunedIds([counted("str-00001", 2, 2), counted("str-00002", 0, 2)])).toEqual([]);
  });
});

describe("the success-ratio rule (ACE plugin)", () => {
  it("proposes removing a bullet helpful in under 30 % of at least 10 uses", () => {
    const [proposal] = proposePruning(stateOf(counted("str-00001", 2, 0, 8)), DEFAULT_PRUNING_POLICY);
    expect(proposal?.reason).toBe("Helpful in only 2 of 10 uses (20 %), under the 30 % success ratio required after 10 uses.");
  });

  it("keeps a bullet at exactly 30 %, and one with fewer than 10 uses", () => {
    expect(prunedIds([counted("str-00001", 3, 0, 7), counted("str-00002", 0, 0, 9)])).toEqual([]);
  });
});

describe("which bullets are judged", () => {
  it("gives a bullet that breaks both ratio rules one proposal, with the first rule's reason", () => {
    const proposals = proposePruning(stateOf(counted("str-00001", 1, 3, 10)), DEFAULT_PRUNING_POLICY);
    expect(proposals).toHaveLength(1);
    expect(proposals[0]?.reason).toMatch(/^Marked harmful/);
  });

  it("skips archived bullets and bullets whose counters are unknown", () => {
    expect(
      prunedIds([counted("str-00001", 0, 5, 0, { status: "archived" }), counted("str-00002", 0, 5, 0, { countersKnown: false })]),
    ).toEqual([]);
  });

  it("proposes nothing when pruning is disabled", () => {
    expect(prunedIds([counted("str-00001", 0, 5)], { ...DEFAULT_PRUNING_POLICY, enabled: false })).toEqual([]);
  });
});

describe("the bullet cap", () => {
  const policy: PruningPolicy = { ...DEFAULT_PRUNING_POLICY, maxBullets: 2 };

  it("removes the lowest scores (helpful − harmful) until the cap holds", () => {
    const proposals = proposePruning(
      stateOf(counted("str-00001", 5, 0), counted("str-00002", 1, 0), counted("str-00003", 3, 1), counted("str-00004", 0, 0)),
      policy,
    );
    expect(proposals.map((op) => op.bulletId)).toEqual(["str-00004", "str-00002"]);
    expect(proposals[0]?.reason).toBe(
      "The playbook keeps at most 2 active bullets and this one ranks among the lowest (helpful − harmful = 0).",
    );
  });

  it("breaks score ties by age, oldest (lowest id number) first", () => {
    expect(
      prunedIds([counted("str-00003", 1, 0), counted("str-00001", 1, 0), counted("str-00002", 1, 0)], { ...policy, maxBullets: 1 }),
    ).toEqual(["str-00001", "str-00002"]);
  });

  it("takes age from a caller's createdAt when given", () => {
    const createdAt: Record<string, number> = { "str-00001": 300, "str-00002": 100, "str-00003": 200 };
    const state = stateOf(counted("str-00001", 1, 0), counted("str-00002", 1, 0), counted("str-00003", 1, 0));
    const ids = proposePruning(state, { ...policy, maxBullets: 1 }, (b) => createdAt[b.externalId] ?? 0).map((op) => op.bulletId);
    expect(ids).toEqual(["str-00002", "str-00003"]);
  });

  it("counts bullets the ratio rules already remove, once, and bullets without counters with a score of 0", () => {
    const proposals = proposePruning(
      stateOf(
        counted("str-00001", 0, 4),
        counted("str-00002", 2, 0),
        counted("str-00003", 0, 0, 0, { countersKnown: false }),
        counted("str-00004", 1, 0),
      ),
      policy,
    );
    expect(proposals.map((op) => op.bulletId)).toEqual(["str-00001", "str-00003"]);
  });
});
