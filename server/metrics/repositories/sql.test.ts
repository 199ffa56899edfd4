// The durations and latencies the metrics read as text, and their quantiles (linear interpolation,
// NumPy's default: numpy.quantile([1, …, 10], [0.5, 0.95]) = [5.5, 9.55]).
import { describe, expect, it } from "vitest";
import { quantiles } from "@/server/ace/stats";
import { medianAndP95, parseIntegerList } from "./sql";

describe("parseIntegerList", () => {
  it("reads PostgreSQL's comma-joined integers, negative ones too", () => {
    expect([...parseIntegerList("12,0,-3,456,2147483647")]).toEqual([12, 0, -3, 456, 2147483647]);
    expect([...parseIntegerList("7")]).toEqual([7]);
  });

  it("reads nothing from null or an empty text", () => {
    expect(parseIntegerList(null)).toHaveLength(0);
    expect(parseIntegerList("")).toHaveLength(0);
  });
});

describe("medianAndP95", () => {
  it("gives each group's p50 and p95 and those of every value together", () => {
    const groups = [
      { key: "a", values: Int32Array.from([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]) },
      { key: "b", values: Int32Array.from([100]) },
      { key: "c", values: new Int32Array(0) },
    ];
    const { byKey, all } = medianAndP95(groups);
    expect(byKey.get("a")?.[0]).toBe(5.5);
    expect(byKey.get("a")?.[1]).toBeCloseTo(9.55, 12);
    expect(byKey.get("b")).toEqual([100, 100]);
    expect(byKey.has("c")).toBe(false);
    expect(all).toEqual(quantiles([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100], [0.5, 0.95]));
    expect(all?.[0]).toBe(6);
  });

  it("is null for no values at all", () => {
    expect(medianAndP95([]).all).toBeNull();
  });
});
