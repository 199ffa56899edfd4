import { describe, expect, it } from "vitest";
import { updateExperimentFields, type VariantView } from "@/server/experiments/schemas";
import { checkReweight, reweightDraft, variantBack } from "./reweight";

const VARIANTS: VariantView[] = [
  { key: "A", name: "Control", weight: 0.5, target: { kind: "version", playbookVersion: 4 }, playbookVersion: 4 },
  { key: "B", name: "Curated", weight: 0.3, target: { kind: "latest" }, latest: true },
  { key: "C", name: "Bare", weight: 0.2, target: { kind: "noPlaybook" }, noPlaybook: true },
];

const RUNNING = { variants: VARIANTS, coverage: 1, status: "running" as const };

describe("re-weighting an experiment", () => {
  it("opens with the weights and coverage as percentages", () => {
    expect(reweightDraft(RUNNING)).toEqual({ weights: ["50", "30", "20"], coverage: "100" });
  });

  it("sends every variant back with its own target and only the weights new", () => {
    const check = checkReweight(RUNNING, { weights: ["40", "40", "20"], coverage: "100" });
    expect(check).toEqual({
      ok: true,
      changed: true,
      newPhase: true,
      patch: {
        variants: [
          { key: "A", name: "Control", weight: 0.4, playbookVersion: 4 },
          { key: "B", name: "Curated", weight: 0.4, latest: true },
          { key: "C", name: "Bare", weight: 0.2, noPlaybook: true },
        ],
      },
    });
    if (check.ok && check.changed) expect(updateExperimentFields.safeParse({ ...check.patch, confirmNewPhase: true }).success).toBe(true);
  });

  it("sends only the coverage when only the coverage changed", () => {
    expect(checkReweight(RUNNING, { weights: ["50", "30", "20"], coverage: "80" })).toMatchObject({
      ok: true,
      changed: true,
      patch: { coverage: 0.8 },
    });
    const check = checkReweight(RUNNING, { weights: ["50", "30", "20"], coverage: "80" });
    if (check.ok && check.changed) expect(check.patch).not.toHaveProperty("variants");
  });

  it("starts a new phase only for a running experiment", () => {
    expect(checkReweight({ ...RUNNING, status: "draft" }, { weights: ["34", "33", "33"], coverage: "100" })).toMatchObject({
      changed: true,
      newPhase: false,
    });
  });

  it("keeps thirds as stored while their fields still read 33.33", () => {
    const thirds = { ...RUNNING, variants: VARIANTS.map((variant) => ({ ...variant, weight: 1 / 3 })) };
    expect(checkReweight(thirds, reweightDraft(thirds))).toEqual({ ok: true, changed: false });
    const check = checkReweight(thirds, { weights: ["33.33", "33.33", "33.33"], coverage: "50" });
    expect(check).toMatchObject({ changed: true, patch: { coverage: 0.5 } });
    if (check.ok && check.changed) expect(check.patch).not.toHaveProperty("variants");
  });

  it("says when nothing changed, and what is wrong", () => {
    expect(checkReweight(RUNNING, { weights: ["50", "30", "20"], coverage: "100" })).toEqual({ ok: true, changed: false });
    expect(checkReweight(RUNNING, { weights: ["50", "30", "30"], coverage: "0" })).toMatchObject({
      ok: false,
      weights: expect.stringContaining("110 %"),
      coverage: expect.stringContaining("above 0"),
    });
  });

  it("keeps another playbook's name as the target", () => {
    const other: VariantView = {
      key: "D",
      name: "D",
      weight: 1,
      target: { kind: "playbook", playbook: "Refunds", playbookId: "x" },
      playbook: "Refunds",
    };
    expect(variantBack(other, 0.25)).toEqual({ key: "D", name: "D", weight: 0.25, playbook: "Refunds" });
  });
});
