import { describe, expect, it } from "vitest";
import { createExperimentInput } from "@/server/experiments/schemas";
import {
  addVariant,
  draftProblems,
  initialDraft,
  parseMde,
  parsePlanned,
  removeVariant,
  splitEvenly,
  toCreateInput,
  type ExperimentDraft,
} from "./draft";

const PLAYBOOK = "3f1c2b9e-8d7a-4c6b-9e5f-1a2b3c4d5e6f";

function filled(patch: Partial<ExperimentDraft> = {}): ExperimentDraft {
  return { ...initialDraft(PLAYBOOK, 4), name: "Curated v5", key: "curated-v5", ...patch };
}

describe("the new-experiment draft", () => {
  it("starts with a pinned control and a latest variant, split evenly", () => {
    const draft = initialDraft(PLAYBOOK, 4);
    expect(draft.variants.map((v) => [v.key, v.target, v.weight])).toEqual([
      ["A", { kind: "version", version: 4 }, "50"],
      ["B", { kind: "latest" }, "50"],
    ]);
    expect(draft.guardrails).toEqual(["costUsd", "tokens", "durationMs"]);
  });

  it("adds variants with the next free key and keeps the split even, from 2 up to 10", () => {
    let draft = filled();
    draft = addVariant(draft);
    expect(draft.variants.map((v) => v.key)).toEqual(["A", "B", "C"]);
    expect(draft.variants.map((v) => v.weight)).toEqual(["33.33", "33.33", "33.34"]);
    expect(new Set(draft.variants.map((v) => v.id)).size).toBe(3);
    for (let i = 0; i < 10; i++) draft = addVariant(draft);
    expect(draft.variants).toHaveLength(10);
    draft = removeVariant(draft, draft.variants[3]!.id);
    expect(draft.variants).toHaveLength(9);
    expect(draftProblems(draft).weights).toBeUndefined();
  });

  it("never drops below two variants", () => {
    const draft = filled();
    expect(removeVariant(draft, draft.variants[0]!.id).variants).toHaveLength(2);
  });

  it("has no problems once named, keyed and on a playbook", () => {
    expect(draftProblems(filled())).toEqual({});
  });

  it("puts each problem under its field", () => {
    const draft = filled({ name: " ", key: "Bad Key", playbookId: null, coverage: "0", planned: "12.5", mde: "150", baseline: "100" });
    draft.variants[1] = { ...draft.variants[1]!, key: "A", weight: "40" };
    draft.variants[0] = { ...draft.variants[0]!, target: { kind: "version", version: null } };
    const problems = draftProblems(draft);
    expect(Object.keys(problems).sort()).toEqual(
      [
        "baseline",
        "coverage",
        "key",
        "mde",
        "name",
        "planned",
        "playbook",
        "variants.v1.key",
        "variants.v1.target",
        "variants.v2.key",
        "weights",
      ].sort(),
    );
    expect(problems.key).toContain("slug");
    expect(problems["variants.v2.key"]).toBe('Key "A" is used twice; keys are unique.');
    expect(problems.weights).toContain("90 %");
  });

  it("asks for the other playbook when a variant serves one", () => {
    const draft = filled();
    draft.variants[1] = { ...draft.variants[1]!, target: { kind: "playbook", playbookName: null } };
    expect(draftProblems(draft)["variants.v2.target"]).toBe("Choose the playbook this variant serves.");
  });

  it("becomes an input the server's schema accepts, with every target in the API's words", () => {
    let draft = addVariant(
      addVariant(filled({ hypothesis: " Curated lessons help ", seed: "", coverage: "80", planned: "1,500", mde: "5" })),
    );
    draft.variants[2] = { ...draft.variants[2]!, target: { kind: "noPlaybook" } };
    draft.variants[3] = { ...draft.variants[3]!, target: { kind: "playbook", playbookName: "Refunds" } };
    draft = splitEvenly(draft);
    const input = toCreateInput(draft, "Support", true);
    expect(input).toMatchObject({
      key: "curated-v5",
      name: "Curated v5",
      playbook: "Support",
      hypothesis: "Curated lessons help",
      status: "running",
      coverage: 0.8,
      minimumDetectableEffect: 0.05,
      plannedUnitsPerVariant: 1500,
    });
    expect(input).not.toHaveProperty("seed");
    expect(input.variants).toEqual([
      { key: "A", name: "Control", weight: 0.25, playbookVersion: 4 },
      { key: "B", name: "Curated", weight: 0.25, latest: true },
      { key: "C", weight: 0.25, noPlaybook: true },
      { key: "D", weight: 0.25, playbook: "Refunds" },
    ]);
    expect(createExperimentInput.safeParse(input).success).toBe(true);
  });

  it("sends thirds that the server adds up to 1", () => {
    const input = toCreateInput(addVariant(filled()), "Support", false);
    expect(input.status).toBe("draft");
    expect(input.variants.map((v) => v.weight)).toEqual([0.3333, 0.3333, 0.3334]);
    expect(createExperimentInput.safeParse(input).success).toBe(true);
  });

  it("reads the planned units and the MDE", () => {
    expect(parsePlanned("")).toBeNull();
    expect(parsePlanned("12 000")).toBe(12_000);
    expect(parsePlanned("0")).toBe("invalid");
    expect(parsePlanned("ten")).toBe("invalid");
    expect(parseMde("2.5")).toBe(0.025);
    expect(parseMde("0")).toBeNull();
  });
});
