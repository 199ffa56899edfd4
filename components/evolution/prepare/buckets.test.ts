import { describe, expect, it } from "vitest";
import { rowsOnBuckets } from "./buckets";

describe("rowsOnBuckets", () => {
  const buckets = [{ start: "2026-03-01T00:00:00.000Z" }, { start: "2026-03-02T00:00:00.000Z" }, { start: "2026-03-03T00:00:00.000Z" }];
  const sum = (figures: { start: string; n: number }[]) =>
    rowsOnBuckets(
      buckets,
      figures,
      (start) => ({ start, n: 0 }),
      (row, figure) => {
        row.n += figure.n;
      },
    );

  it("keep every bucket in order, empty ones at their start value", () => {
    expect(sum([])).toEqual([
      { start: "2026-03-01T00:00:00.000Z", n: 0 },
      { start: "2026-03-02T00:00:00.000Z", n: 0 },
      { start: "2026-03-03T00:00:00.000Z", n: 0 },
    ]);
  });

  it("add each figure to the bucket starting at the same instant, however the time is written, and leave out the others", () => {
    const rows = sum([
      { start: "2026-03-02T00:00:00Z", n: 2 },
      { start: "2026-03-02T01:00:00+01:00", n: 3 },
      { start: "2026-03-03T00:00:00.000Z", n: 1 },
      { start: "2026-03-04T00:00:00.000Z", n: 100 },
      { start: "2026-03-02T12:00:00.000Z", n: 100 },
    ]);
    expect(rows.map((row) => row.n)).toEqual([0, 5, 1]);
    expect(rows[1]!.start).toBe("2026-03-02T00:00:00.000Z");
  });
});
