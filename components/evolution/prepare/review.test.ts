import { describe, expect, it } from "vitest";
import type { MetricsResult } from "@/server/metrics/schemas";
import { reviewSeries, reviewTable, reviewTotalsTable } from "./review";
import { DAYS, result, reviewBucket } from "./test-fixtures";

describe("review", () => {
  it("put deltas proposed per bucket by origin on the shared buckets", () => {
    const review: MetricsResult["review"] = {
      buckets: [
        reviewBucket(DAYS[0]!, "curator", { proposed: 3, approved: 2, rejected: 1, nearDuplicates: 1, medianDecisionMs: 60_000 }),
        reviewBucket(DAYS[0]!, "person"),
        reviewBucket(DAYS[2]!, "pruning", { proposed: 1, autoApplied: 1 }),
      ],
      byOrigin: [],
    };
    const series = reviewSeries(result({ review }));
    expect(series.origins).toEqual(["curator", "pruning"]);
    expect(series.rows.map((row) => row.proposed)).toEqual([{ curator: 3, person: 0 }, {}, { pruning: 1 }]);
    expect(reviewTable(series, "Review").rows[0]).toMatchObject({
      "proposed:curator": 3,
      "proposed:pruning": 0,
      approved: 2,
      rejected: 1,
      nearDuplicates: 1,
    });
  });

  it("total each origin that proposed something, with the interval of its acceptance rate", () => {
    const totals = (origin: "curator" | "person", proposed: number) => ({
      origin,
      proposed,
      approved: proposed,
      autoApplied: 0,
      rejected: 0,
      pending: 0,
      stale: 0,
      acceptanceRate: proposed === 0 ? null : 1,
      ci95: proposed === 0 ? null : ([0.5, 1] as [number, number]),
      medianDecisionMs: null,
      p90DecisionMs: null,
      nearDuplicates: 0,
      autoAppliedShare: 0,
    });
    const table = reviewTotalsTable({ review: { buckets: [], byOrigin: [totals("curator", 4), totals("person", 0)] } }, "Review totals");
    expect(table.rows).toEqual([
      expect.objectContaining({ origin: "Curator run", proposed: 4, acceptanceRate: 1, low: 0.5, high: 1, medianDecisionMs: null }),
    ]);
  });
});
