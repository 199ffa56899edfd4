import { describe, expect, it } from "vitest";
import { placeAt } from "./placement";

const at = (positions: number[], index: number) => {
  const { position, shifted } = placeAt(positions, index, (item) => item);
  return { position, shifted: shifted.map((entry) => `${entry.item}→${entry.position}`) };
};

describe("placeAt", () => {
  it("uses a gap when there is one, moving nothing", () => {
    expect(at([0, 5, 9], 1)).toEqual({ position: 1, shifted: [] });
  });

  it("shifts only the items up to the first one already past the new position", () => {
    expect(at([0, 1, 2, 7], 1)).toEqual({ position: 1, shifted: ["1→2", "2→3"] });
  });

  it("places at the front at 0 and at the end after the last item", () => {
    expect(at([0, 1], 0)).toEqual({ position: 0, shifted: ["0→1", "1→2"] });
    expect(at([3, 4], 0)).toEqual({ position: 0, shifted: [] });
    expect(at([0, 4], 9)).toEqual({ position: 5, shifted: [] });
    expect(at([], 0)).toEqual({ position: 0, shifted: [] });
  });

  it("separates equal positions after the inserted item", () => {
    expect(at([0, 1, 1, 2], 1)).toEqual({ position: 1, shifted: ["1→2", "1→3", "2→4"] });
  });
});
