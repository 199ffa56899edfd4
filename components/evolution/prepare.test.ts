import { describe, expect, it } from "vitest";
import type { MetricsResult, Mover, OverviewRow, VersionPoint } from "@/server/metrics/schemas";
import { toCsv } from "./data-table";
import {
  churnSeries,
  churnTable,
  counterRows,
  coverage,
  describeOperations,
  llmRows,
  llmTable,
  llmTotalsTable,
  MAX_SECTION_SERIES,
  OTHER_SECTIONS,
  outcomeSeries,
  outcomeTable,
  reviewSeries,
  reviewTable,
  scoreBins,
  sizeSeries,
  sizeTable,
  sortOverview,
  sparkline,
  topMovers,
  versionMarkers,
} from "./prepare";

const DAYS = ["2026-11-01T00:00:00.000Z", "2026-11-02T00:00:00.000Z", "2026-11-03T00:00:00.000Z"];

function figures(success: number, failure: number, unknown = 0): MetricsResult["totals"] {
  const decided = success + failure;
  return {
    traces: success + failure + unknown,
    success,
    failure,
    unknown,
    successRate: decided === 0 ? null : success / decided,
    ci95: decided === 0 ? null : ([0.1, 0.9] as [number, number]),
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    p50DurationMs: null,
    p95DurationMs: null,
  };
}

function bucket(start: string, success: number, failure: number, unknown = 0) {
  return { start, ...figures(success, failure, unknown) };
}

function version(number: number, createdAt: string, extra: Partial<VersionPoint> = {}): VersionPoint {
  return {
    version: number,
    createdAt,
    origin: "curator",
    author: "curator-model",
    reason: "",
    deltaId: null,
    contentChanged: true,
    countersChanged: false,
    operations: { add: 1 },
    activeBullets: 10 + number,
    archivedBullets: 0,
    sections: [{ id: "s1", name: "strategies", activeBullets: 10 + number }],
    helpful: 0,
    harmful: 0,
    neutral: 0,
    tokens: 100 * number,
    ...extra,
  };
}

function result(patch: Partial<MetricsResult> = {}): MetricsResult {
  const outcomes = [bucket(DAYS[0]!, 30, 8, 2), bucket(DAYS[1]!, 0, 0, 0), bucket(DAYS[2]!, 5, 5)];
  return {
    playbook: "Support",
    playbookId: "0f8fad5b-d9cb-469f-a165-70867728950e",
    bucket: "day",
    from: DAYS[0]!,
    to: "2026-11-04T00:00:00.000Z",
    timezone: "UTC",
    experiment: null,
    variant: null,
    contentOnly: true,
    earliest: DAYS[0]!,
    tokenBudget: 8000,
    totals: figures(35, 13, 2),
    outcomes,
    outcomesByVariant: [],
    versions: [],
    versionsOmitted: 0,
    previousVersion: null,
    counters: [],
    scores: null,
    movers: { rose: [], fell: [] },
    churn: [],
    review: { buckets: [], byOrigin: [] },
    llm: { buckets: [], byRole: [] },
    ...patch,
  };
}

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
});

describe("version markers", () => {
  const rows = DAYS.map((start) => ({ start }));

  it("group versions by the bucket they were made in and open the diff across them", () => {
    const markers = versionMarkers(
      [
        version(7, "2026-11-03T08:00:00.000Z"),
        version(5, "2026-11-01T23:59:59.999Z", { origin: "person", operations: { update: 2, add: 1 } }),
        version(6, "2026-11-01T00:00:00.000Z"),
        version(9, "2026-11-04T00:00:00.000Z"),
      ],
      rows,
      "day",
    );
    expect(markers.map((marker) => [marker.start, marker.compare, marker.label])).toEqual([
      [DAYS[0], { from: 4, to: 6 }, "v5–v6 (2 versions)"],
      [DAYS[2], { from: 6, to: 7 }, "v7"],
    ]);
    expect(markers[0]!.details[0]).toBe("v5 · Person · 1 add · 2 update");
  });

  it("say what a version without operations changed", () => {
    expect(describeOperations({ operations: {}, contentChanged: false, countersChanged: true })).toBe("counters only");
    expect(describeOperations({ operations: { tag: 3 }, contentChanged: false, countersChanged: true })).toBe("3 counters");
  });
});

describe("size series", () => {
  const rows = DAYS.map((start) => ({ start }));

  it("carry the version in force at the end of each bucket, starting from the version before the range", () => {
    const series = sizeSeries(
      result({
        previousVersion: version(2, "2026-10-20T00:00:00.000Z"),
        versions: [version(3, "2026-11-02T12:00:00.000Z"), version(4, "2026-11-02T13:00:00.000Z")],
      }),
      rows,
    );
    expect(series.rows.map((row) => [row.version, row.activeBullets, row.tokens])).toEqual([
      [2, 12, 200],
      [4, 14, 400],
      [4, 14, 400],
    ]);
    expect(series.tokenBudget).toBe(8000);
  });

  it("leave the buckets before the first version empty", () => {
    const series = sizeSeries(result({ versions: [version(1, "2026-11-02T12:00:00.000Z")] }), rows);
    expect(series.rows.map((row) => row.version)).toEqual([null, 1, 1]);
    expect(sizeTable(series, "Size").rows[0]).toMatchObject({ activeBullets: null, "section:s1": null, tokenBudget: 8000 });
  });

  it("fold the smallest sections into one band beyond the maximum", () => {
    const sections = Array.from({ length: MAX_SECTION_SERIES + 2 }, (_, index) => ({
      id: `s${index}`,
      name: `section ${index}`,
      activeBullets: index + 1,
    }));
    const series = sizeSeries(result({ versions: [version(1, DAYS[0]!, { sections })] }), rows);
    expect(series.sections).toHaveLength(MAX_SECTION_SERIES);
    expect(series.sections[0]!.name).toBe(`section ${MAX_SECTION_SERIES + 1}`);
    expect(series.sections.at(-1)).toEqual({ key: OTHER_SECTIONS, name: "Other sections (3)" });
    // The three smallest: 1 + 2 + 3 bullets.
    expect(series.rows[0]!.sections[OTHER_SECTIONS]).toBe(6);
  });
});

describe("counters", () => {
  it("give helpful − harmful per bucket, null before the first version", () => {
    const rows = counterRows(
      result({
        counters: [
          { start: DAYS[0]!, version: null, helpful: null, harmful: null, neutral: null },
          { start: DAYS[1]!, version: 3, helpful: 40, harmful: 12, neutral: 1 },
        ],
      }),
    );
    expect(rows.map((row) => row.score)).toEqual([null, 28]);
  });

  it("order top movers by the size of the move, then by tags, then by id", () => {
    const mover = (bulletId: string, helpfulChange: number, harmfulChange: number): Mover => ({
      bulletId,
      section: "s",
      content: "c",
      status: "active",
      helpful: 0,
      harmful: 0,
      helpfulChange,
      harmfulChange,
      scoreChange: helpfulChange - harmfulChange,
    });
    const movers = topMovers({
      rose: [mover("b", 3, 0), mover("a", 3, 0), mover("c", 5, 1), mover("d", 4, 1), mover("z", 0, 0)],
      fell: [mover("e", 0, 2), mover("f", 1, 6), mover("g", 2, 4)],
    });
    expect(movers.rose.map((m) => m.bulletId)).toEqual(["c", "d", "a", "b"]);
    expect(movers.fell.map((m) => m.bulletId)).toEqual(["f", "g", "e"]);
  });

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
});

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
    expect(toCsv(churnTable(series, "Churn")).split("\r\n")[0]).toBe("Bucket start,Add,Update,Archive,Total");
  });

  it("stack them by origin on the toggle", () => {
    const series = churnSeries({ churn }, "origin", false);
    expect(series.keys).toEqual(["person", "curator"]);
    expect(series.rows[0]!.values).toEqual({ curator: 2 });
    expect(churnSeries({ churn }, "origin", true).rows[0]!.values).toEqual({ reflector: 30, curator: 2 });
  });
});

describe("review and LLM cost", () => {
  it("put deltas proposed per bucket by origin on the shared buckets", () => {
    const review: MetricsResult["review"] = {
      buckets: [
        {
          start: DAYS[0]!,
          origin: "curator",
          proposed: 3,
          approved: 2,
          autoApplied: 0,
          rejected: 1,
          pending: 0,
          stale: 0,
          nearDuplicates: 1,
          medianDecisionMs: 60_000,
        },
        {
          start: DAYS[0]!,
          origin: "person",
          proposed: 0,
          approved: 0,
          autoApplied: 0,
          rejected: 0,
          pending: 0,
          stale: 0,
          nearDuplicates: 0,
          medianDecisionMs: null,
        },
        {
          start: DAYS[2]!,
          origin: "pruning",
          proposed: 1,
          approved: 0,
          autoApplied: 1,
          rejected: 0,
          pending: 0,
          stale: 0,
          nearDuplicates: 0,
          medianDecisionMs: null,
        },
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

  it("sum tokens and cost per bucket and role, the agents' own usage included", () => {
    const llm: MetricsResult["llm"] = {
      buckets: [
        {
          start: DAYS[0]!,
          role: "reflector",
          runs: 4,
          failed: 1,
          retried: 0,
          inputTokens: 1000,
          outputTokens: 200,
          costUsd: 0.01,
          uncosted: 0,
          p50LatencyMs: 900,
          p95LatencyMs: 1500,
        },
        {
          start: DAYS[0]!,
          role: "agent",
          runs: 40,
          failed: null,
          retried: null,
          inputTokens: 60000,
          outputTokens: 7000,
          costUsd: 0.044,
          uncosted: 0,
          p50LatencyMs: 1200,
          p95LatencyMs: 2000,
        },
      ],
      byRole: [
        {
          role: "agent",
          runs: 40,
          failed: null,
          retried: null,
          inputTokens: 60000,
          outputTokens: 7000,
          costUsd: 0.044,
          uncosted: 2,
          p50LatencyMs: 1200,
          p95LatencyMs: 2000,
        },
      ],
    };
    const rows = llmRows(result({ llm }));
    expect(rows).toHaveLength(3);
    expect(rows[0]!.tokens).toEqual({ reflector: 1200, curator: 0, agent: 67000 });
    expect(rows[0]!.costUsd.agent).toBe(0.044);
    expect(llmTable(rows, "LLM").rows[0]).toMatchObject({ "agent:runs": 40, "agent:tokens": 67000, "reflector:cost": 0.01 });
    const totals = llmTotalsTable(result({ llm }), "LLM totals").rows;
    expect(totals.map((row) => row.role)).toEqual(["Reflector", "Curator", "Agent"]);
    expect(totals[2]).toMatchObject({ runs: 40, failed: null, uncosted: 2 });
    expect(totals[0]).toMatchObject({ runs: 0, costUsd: 0 });
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
