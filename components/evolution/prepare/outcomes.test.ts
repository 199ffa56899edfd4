import { describe, expect, it } from "vitest";
import { toCsv } from "../data-table";
import { coverage, outcomeSeries, outcomeTable } from "./outcomes";
import { bucket, DAYS, figures, result } from "./test-fixtures";

describe("outcome series", () => {
  it("keep every bucket, with the rate and its band, and a series per variant sorted by name", () => {
    const series = outcomeSeries(
      result({
        outcomesByVariant: [
          { variant: "B", totals: figures(1, 1), outcomes: [bucket(DAYS[0]!, 10, 5)] },
          { variant: "A", totals: figures(1, 1), outcomes: [bucket(DAYS[0]!, 20, 3), bucket(DAYS[2]!, 5, 5)] },
        ],
      }),
    );
    expect(series.variants).toEqual(["A", "B"]);
    expect(series.rows.map((row) => [row.traces, row.success, row.failure, row.unknown])).toEqual([
      [40, 30, 8, 2],
      [0, 0, 0, 0],
      [10, 5, 5, 0],
    ]);
    expect(series.rows[0]!.rate).toBeCloseTo(30 / 38);
    expect(series.rows[1]!.rate).toBeNull();
    expect(series.rows[1]!.band).toBeNull();
    // A bucket a variant has no entry for reads as empty, not as missing.
    expect(series.rows[2]!.variants.B).toMatchObject({ traces: 0, rate: null });
    expect(series.rows[0]!.variants.A).toMatchObject({ success: 20, failure: 3 });
    expect(series.ratedBuckets).toBe(2);
  });

  it("link each non-zero count of a bucket to its traces, by outcome and variant", () => {
    const series = outcomeSeries(
      result({ outcomesByVariant: [{ variant: "A", totals: figures(1, 1), outcomes: [bucket(DAYS[0]!, 20, 0), bucket(DAYS[2]!, 0, 3)] }] }),
    );
    const table = outcomeTable(series, "Outcomes", (start, filter) => `${start}|${filter.outcome ?? "any"}|${filter.variant ?? "all"}`);
    expect(table.links?.[0]).toEqual({
      traces: `${DAYS[0]}|any|all`,
      success: `${DAYS[0]}|success|all`,
      failure: `${DAYS[0]}|failure|all`,
      unknown: `${DAYS[0]}|unknown|all`,
      "A:traces": `${DAYS[0]}|any|A`,
      "A:success": `${DAYS[0]}|success|A`,
    });
    expect(table.links?.[1]).toEqual({});
    expect(outcomeTable(series, "Outcomes").links).toBeUndefined();
  });

  it("draw no variant series when the reader filtered to one variant", () => {
    const series = outcomeSeries(result({ variant: "A", outcomesByVariant: [{ variant: "A", totals: figures(1, 1), outcomes: [] }] }));
    expect(series.variants).toEqual([]);
  });

  it("list the same numbers in the table and the CSV", () => {
    const table = outcomeTable(outcomeSeries(result()), "Outcomes");
    expect(table.rows[0]).toMatchObject({ start: DAYS[0], traces: 40, success: 30, failure: 8, unknown: 2, low: 0.1, high: 0.9 });
    const csv = toCsv(table).split("\r\n");
    expect(csv[0]).toBe("Bucket start,Traces,Success,Failure,Unknown,Success rate,95 % low,95 % high");
    expect(csv[1]).toBe(`${DAYS[0]},40,30,8,2,${30 / 38},0.1,0.9`);
    expect(csv[2]).toBe(`${DAYS[1]},0,0,0,0,,,`);
  });

  it("give each variant its own columns after the total's, without unknown outcomes", () => {
    const series = outcomeSeries(
      result({ outcomesByVariant: [{ variant: "A", totals: figures(1, 1), outcomes: [bucket(DAYS[0]!, 20, 5)] }] }),
    );
    const table = outcomeTable(series, "Outcomes");
    expect(table.columns.slice(8).map((column) => column.label)).toEqual([
      "A: traces",
      "A: success",
      "A: failure",
      "A: success rate",
      "A: 95 % low",
      "A: 95 % high",
    ]);
    expect(table.rows[0]).toMatchObject({ "A:traces": 25, "A:rate": 0.8, "A:low": 0.1 });
    expect(table.rows[1]).toMatchObject({ "A:traces": 0, "A:rate": null, "A:high": null });
  });
});

describe("coverage", () => {
  it("call a range without traces empty and one with few decided outcomes sparse", () => {
    expect(coverage(result({ totals: { ...result().totals, traces: 0, success: 0, failure: 0 } }), 0)).toBe("empty");
    expect(coverage(result({ totals: { ...result().totals, traces: 12, success: 6, failure: 4 } }), 5)).toBe("sparse");
    expect(coverage(result({ totals: { ...result().totals, traces: 400, success: 300, failure: 90 } }), 2)).toBe("sparse");
    expect(coverage(result({ totals: { ...result().totals, traces: 400, success: 300, failure: 90 } }), 14)).toBe("enough");
  });
});
