import { describe, expect, it } from "vitest";
import { intervalScale, niceCeiling, positionOn } from "./interval-scale";

describe("interval scale", () => {
  it("rounds up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect(niceCeiling(0.031)).toBe(0.05);
    expect(niceCeiling(0.02)).toBeCloseTo(0.02, 12);
    expect(niceCeiling(0.022)).toBe(0.025);
    expect(niceCeiling(7)).toBe(10);
    expect(niceCeiling(1_200)).toBe(2_000);
  });

  it("is symmetric around zero and holds every interval with room to spare", () => {
    const scale = intervalScale([
      [0.01, 0.05],
      [-0.07, 0.02],
    ]);
    expect(scale.domain).toEqual([-0.1, 0.1]);
    expect(scale.ticks).toEqual([-0.1, -0.05, 0, 0.05, 0.1]);
  });

  it("counts point estimates and skips missing intervals", () => {
    expect(intervalScale([null, undefined, 0.3]).domain).toEqual([-0.5, 0.5]);
  });

  it("falls back to a default half-width when there is nothing to draw", () => {
    expect(intervalScale([]).domain).toEqual([-0.1, 0.1]);
    expect(intervalScale([null], 2).domain).toEqual([-2, 2]);
    expect(intervalScale([[0, 0]]).domain).toEqual([-0.1, 0.1]);
  });

  it("places values between the edges, zero in the middle", () => {
    const scale = intervalScale([[-0.04, 0.04]]);
    expect(positionOn(scale, 0)).toBe(0.5);
    expect(positionOn(scale, scale.domain[1])).toBe(1);
    expect(positionOn(scale, 99)).toBe(1);
    expect(positionOn(scale, -99)).toBe(0);
  });
});
