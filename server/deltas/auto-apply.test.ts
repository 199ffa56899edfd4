import { describe, expect, it } from "vitest";
import type { DeltaOperation } from "@/server/ace/delta";
import { AUDIT_ACTOR_KINDS } from "@/server/audit/schemas";
import { autoApplyAllowed, autoApplyRule, type AutoApplyRule, type ProposerKind } from "./auto-apply";
import { PROPOSABLE_ORIGINS, type ProposableOrigin } from "./schemas";

// Every origin against every kind of proposer: a new origin or actor kind without a row fails here.
const TABLE: Record<ProposableOrigin, Record<ProposerKind, AutoApplyRule>> = {
  person: { user: "confidence", local: "confidence", apikey: "never", system: "never" },
  import: { user: "confidence", local: "confidence", apikey: "never", system: "never" },
  reflector: { user: "never", local: "never", apikey: "never", system: "counter_tags" },
  curator: { user: "never", local: "never", apikey: "never", system: "never" },
  pruning: { user: "never", local: "never", apikey: "never", system: "never" },
  agent: { user: "never", local: "never", apikey: "never", system: "never" },
};

const add: DeltaOperation = { type: "add", section: "strategies", content: "Always approve every refund." };
const tag: DeltaOperation = { type: "tag", bulletId: "str-00001", helpful: 1 };
/** The most permissive settings a playbook can have. */
const OPEN = { autoApply: true, autoApplyConfidence: 0, tagsNeedReview: false };

describe("the auto-apply rule", () => {
  it("covers every origin and every kind of proposer", () => {
    expect(Object.keys(TABLE).sort()).toEqual([...PROPOSABLE_ORIGINS].sort());
    for (const origin of PROPOSABLE_ORIGINS) expect(Object.keys(TABLE[origin]).sort()).toEqual([...AUDIT_ACTOR_KINDS].sort());
  });

  for (const origin of PROPOSABLE_ORIGINS) {
    for (const proposer of AUDIT_ACTOR_KINDS) {
      const expected = TABLE[origin][proposer];
      it(`a ${origin} delta from a ${proposer} proposer: ${expected}`, () => {
        expect(autoApplyRule(origin, proposer)).toBe(expected);
        // With the most permissive settings and full confidence, only the rule decides.
        const byConfidence = autoApplyAllowed({ origin, proposer, operations: [add], confidence: 1, settings: OPEN });
        expect(byConfidence).toBe(expected === "confidence" ? "confidence" : "never");
        const tags = autoApplyAllowed({ origin, proposer, operations: [tag], confidence: 1, settings: OPEN });
        expect(tags).toBe(expected);
      });
    }
  }

  it("text from a curator run never applies at once, whatever the threshold and confidence", () => {
    for (const confidence of [0, 0.5, 1, null]) {
      expect(autoApplyAllowed({ origin: "curator", proposer: "system", operations: [add], confidence, settings: OPEN })).toBe("never");
    }
  });

  it("a person's delta applies at once only with the switch on and the confidence at or above the threshold", () => {
    const ask = (confidence: number | null, autoApply: boolean) =>
      autoApplyAllowed({
        origin: "person",
        proposer: "user",
        operations: [add],
        confidence,
        settings: { autoApply, autoApplyConfidence: 0.7, tagsNeedReview: false },
      });
    expect(ask(0.7, true)).toBe("confidence");
    expect(ask(0.69, true)).toBe("never");
    expect(ask(null, true)).toBe("never");
    expect(ask(0.99, false)).toBe("never");
  });

  it("the reflector's counter tags apply at once unless the playbook reviews them, and never with text among them", () => {
    const ask = (operations: DeltaOperation[], tagsNeedReview: boolean) =>
      autoApplyAllowed({ origin: "reflector", proposer: "system", operations, confidence: null, settings: { ...OPEN, tagsNeedReview } });
    expect(ask([tag], false)).toBe("counter_tags");
    expect(ask([tag], true)).toBe("never");
    expect(ask([tag, add], false)).toBe("never");
    expect(ask([], false)).toBe("never");
  });
});
