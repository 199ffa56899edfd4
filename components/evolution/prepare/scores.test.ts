import { describe, expect, it } from "vitest";
import { toCsv } from "../data-table";
import { scoreBins, scoreTable } from "./scores";

describe("score distribution", () => {
  it("draw a histogram bar per score, gaps included, and bin a wide spread", () => {
    expect(
      scoreBins([
        [-2, 3],
        [1, 5],
      ]),
    ).toEqual([
      { label: "−2", from: -2, to: -2, bullets: 3 },
      { label: "−1", from: -1, to: -1, bullets: 0 },
      { label: "0", from: 0, to: 0, bullets: 0 },
      { label: "1", from: 1, to: 1, bullets: 5 },
    ]);
    const bins = scoreBins(
      [
        [-10, 1],
        [0, 2],
        [89, 4],
      ],
      10,
    );
    expect(bins).toHaveLength(10);
    expect(bins[0]).toEqual({ label: "−10 to −1", from: -10, to: -1, bullets: 1 });
    expect(bins[1]!.bullets).toBe(2);
    expect(bins.at(-1)).toEqual({ label: "80 to 89", from: 80, to: 89, bullets: 4 });
    expect(bins.reduce((sum, bin) => sum + bin.bullets, 0)).toBe(7);
    expect(scoreBins([])).toEqual([]);
  });

  it("name the version on every line of the table", () => {
    const csv = toCsv(scoreTable(scoreBins([[2, 3]]), 12, "Scores"));
    expect(csv).toBe("Version,Score from,Score to,Bullets\r\n12,2,2,3\r\n");
  });
});
