import { describe, expect, it } from "vitest";
import { cumulativeRows, dayLabel } from "./cumulative";

function point(date: string, variants: [key: string, success: number, decided: number][]) {
  return {
    date,
    variants: variants.map(([key, success, decided]) => ({ key, success, decided, successRate: decided === 0 ? null : success / decided })),
  };
}

describe("cumulativeRows", () => {
  it("gives every day a figure per variant, in date order", () => {
    const rows = cumulativeRows(
      [
        point("2026-11-02", [
          ["A", 4, 6],
          ["B", 2, 4],
        ]),
        point("2026-11-01", [
          ["A", 1, 2],
          ["B", 2, 2],
        ]),
      ],
      ["A", "B"],
    );
    expect(rows.map((row) => row.date)).toEqual(["2026-11-01", "2026-11-02"]);
    expect(rows[0]!.variants.B).toEqual({ success: 2, decided: 2, rate: 1 });
    expect(rows[1]!.variants.A).toEqual({ success: 4, decided: 6, rate: 4 / 6 });
  });

  it("has no rate before a variant's first decided trace, and carries figures over days it is missing", () => {
    const rows = cumulativeRows(
      [
        point("2026-11-01", [
          ["A", 1, 1],
          ["B", 0, 0],
        ]),
        point("2026-11-02", [["A", 1, 2]]),
        point("2026-11-03", [["B", 0, 1]]),
      ],
      ["A", "B"],
    );
    expect(rows.map((row) => row.variants.B!.rate)).toEqual([null, null, 0]);
    expect(rows.map((row) => row.variants.A!.rate)).toEqual([1, 0.5, 0.5]);
  });

  it("ignores variants it was not asked about", () => {
    expect(cumulativeRows([point("2026-11-01", [["Z", 5, 5]])], ["A"])).toEqual([
      { date: "2026-11-01", variants: { A: { success: 0, decided: 0, rate: null } } },
    ]);
  });

  it("labels a UTC day by its date whatever the reader's zone", () => {
    expect(dayLabel("2026-11-03")).toBe("Nov 3");
  });
});
