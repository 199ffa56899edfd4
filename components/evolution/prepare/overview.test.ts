import { describe, expect, it } from "vitest";
import type { OverviewRow } from "@/server/metrics/schemas";
import { overviewTable, sortOverview, sparkline } from "./overview";

describe("studio overview order", () => {
  const row = (name: string, successRate: number | null, change: number | null, traces: number, pendingDeltas = 0): OverviewRow => ({
    playbookId: `id-${name}`,
    name,
    traces,
    success: 0,
    failure: 0,
    unknown: 0,
    successRate,
    ci95: null,
    previousSuccessRate: null,
    previousTraces: 0,
    change,
    pendingDeltas,
    series: [],
  });
  const rows = [row("beta", 0.5, 0.1, 10, 2), row("Alpha", 0.8, null, 40), row("gamma", null, null, 0, 5), row("delta", 0.5, -0.2, 3)];

  it("sort by any column, missing values last in both directions, the name breaking ties", () => {
    expect(sortOverview(rows, "name", "asc").map((r) => r.name)).toEqual(["Alpha", "beta", "delta", "gamma"]);
    expect(sortOverview(rows, "successRate", "desc").map((r) => r.name)).toEqual(["Alpha", "beta", "delta", "gamma"]);
    expect(sortOverview(rows, "successRate", "asc").map((r) => r.name)).toEqual(["beta", "delta", "Alpha", "gamma"]);
    expect(sortOverview(rows, "change", "asc").map((r) => r.name)).toEqual(["delta", "beta", "Alpha", "gamma"]);
    expect(sortOverview(rows, "pendingDeltas", "desc").map((r) => r.name)).toEqual(["gamma", "beta", "Alpha", "delta"]);
  });

  it("list the table's figures without the sparkline series", () => {
    expect(overviewTable([row("beta", 0.5, 0.1, 10, 2)], "Overview").rows).toEqual([
      { name: "beta", successRate: 0.5, previousSuccessRate: null, change: 0.1, traces: 10, previousTraces: 0, pendingDeltas: 2 },
    ]);
  });
});

describe("sparklines", () => {
  it("run from 0 % at the bottom to 100 % at the top, breaking at buckets without a rate", () => {
    const line = sparkline(
      [{ successRate: 0 }, { successRate: 1 }, { successRate: null }, { successRate: 0.5 }, { successRate: null }],
      44,
      24,
      2,
    );
    expect(line.path).toBe("M2,22L12,2");
    // A lone rated bucket is a dot, and the last rate gets the end dot.
    expect(line.dots).toEqual([{ x: 32, y: 12 }]);
    expect(line.last).toEqual({ x: 32, y: 12 });
    expect(sparkline([{ successRate: null }], 44, 24)).toEqual({ path: "", dots: [], last: null });
  });
});
