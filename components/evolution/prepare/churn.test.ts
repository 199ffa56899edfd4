import { describe, expect, it } from "vitest";
import type { MetricsResult } from "@/server/metrics/schemas";
import { toCsv } from "../data-table";
import { churnSeries, churnTable } from "./churn";
import { DAYS } from "./test-fixtures";

describe("churn", () => {
  const churn: MetricsResult["churn"] = [
    { start: DAYS[0]!, operations: { add: 2, tag: 30 }, byOrigin: { curator: { add: 2 }, reflector: { tag: 30 } } },
    { start: DAYS[1]!, operations: {}, byOrigin: {} },
    { start: DAYS[2]!, operations: { update: 1, remove: 1 }, byOrigin: { person: { update: 1, remove: 1 } } },
  ];

  it("stack operations by type, leaving counter tags out unless every version is shown", () => {
    const series = churnSeries({ churn }, "type", false);
    expect(series.keys).toEqual(["add", "update", "remove"]);
    expect(series.rows.map((row) => row.total)).toEqual([2, 0, 2]);
    expect(churnSeries({ churn }, "type", true).keys).toContain("tag");
    const csv = toCsv(churnTable(series, "Churn")).split("\r\n");
    expect(csv[0]).toBe("Bucket start,Add,Update,Archive,Total");
    expect(csv[1]).toBe(`${DAYS[0]},2,0,0,2`);
  });

  it("stack them by origin on the toggle", () => {
    const series = churnSeries({ churn }, "origin", false);
    expect(series.keys).toEqual(["person", "curator"]);
    expect(series.rows[0]!.values).toEqual({ curator: 2 });
    expect(churnSeries({ churn }, "origin", true).rows[0]!.values).toEqual({ reflector: 30, curator: 2 });
  });
});
