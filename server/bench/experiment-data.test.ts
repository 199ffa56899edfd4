import { describe, expect, it } from "vitest";
import { assignVariant } from "@/server/ace/experiments";
import { experimentTraceColumns, unitId, type ExperimentPlan } from "./experiment-data";

const from = new Date("2026-03-01T00:00:00Z");
const plan: ExperimentPlan = {
  key: "refund-wording",
  phase: { number: 1, seed: "refund-wording", weights: [0.5, 0.5], coverage: 1 },
  variants: [
    { key: "control", playbookVersion: 1 },
    { key: "treatment", playbookVersion: 2 },
  ],
  units: 4_000,
  tracesPerUnit: 5,
  tasks: 300,
  from,
  to: new Date(from.getTime() + 14 * 86_400_000),
};

describe("experimentTraceColumns", () => {
  const columns = experimentTraceColumns(plan);
  const rows = columns.timestampMs.map((_, i) => i);

  it("gives each unit its traces, in unit order, in the variant GrowthBook's hashing assigns it", () => {
    expect(rows).toHaveLength(20_000);
    expect(columns.unitId).toEqual(Array.from({ length: 4_000 }, (_, unit) => Array(5).fill(unitId(unit))).flat());
    for (let unit = 0; unit < 4_000; unit += 97) {
      const expected = assignVariant({
        key: plan.key,
        seed: plan.phase.seed,
        unitId: unitId(unit),
        weights: [0.5, 0.5],
        coverage: 1,
        phase: "1",
      });
      const variant = plan.variants[expected.variantIndex as number];
      expect(columns.variant?.[unit * 5]).toBe(variant?.key);
      expect(columns.playbookVersion[unit * 5]).toBe(variant?.playbookVersion);
    }
    const control = rows.filter((i) => columns.variant?.[i] === "control").length / rows.length;
    expect(Math.abs(control - 0.5)).toBeLessThan(0.03);
  });

  it("labels every trace with the experiment and phase, within the range, on the task set", () => {
    expect(columns.experiment?.every((key) => key === plan.key)).toBe(true);
    expect(columns.experimentPhase?.every((phase) => phase === 1)).toBe(true);
    expect(columns.timestampMs.every((time) => time >= from.getTime() && time < plan.to.getTime())).toBe(true);
    expect(new Set(columns.taskId).size).toBeLessThanOrEqual(300);
    expect(new Set(columns.taskId).size).toBeGreaterThan(250);
  });

  it("makes the treatment succeed more often than the control", () => {
    const rate = (variant: string) => {
      const decided = rows.filter((i) => columns.variant?.[i] === variant && columns.outcome[i] !== "unknown");
      return decided.filter((i) => columns.outcome[i] === "success").length / decided.length;
    };
    expect(rate("treatment") - rate("control")).toBeGreaterThan(0.015);
  });
});
