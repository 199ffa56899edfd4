import { describe, expect, it } from "vitest";
import {
  autoBucket,
  bucketCount,
  bucketFits,
  bucketStart,
  customRange,
  DEFAULT_EVOLUTION_FILTERS,
  MAX_POINTS,
  parseEvolutionFilters,
  parseInstant,
  resolveRange,
  writeEvolutionFilters,
  type EvolutionFilters,
} from "./range";

const t = (iso: string) => Date.parse(iso);
const iso = (time: number | Date) => new Date(time).toISOString();

describe("UTC buckets", () => {
  it("start hours, days at 00:00 UTC and weeks on Monday 00:00 UTC", () => {
    const time = t("2026-11-04T17:42:10.500Z"); // a Wednesday
    expect(iso(bucketStart(time, "hour"))).toBe("2026-11-04T17:00:00.000Z");
    expect(iso(bucketStart(time, "day"))).toBe("2026-11-04T00:00:00.000Z");
    expect(iso(bucketStart(time, "week"))).toBe("2026-11-02T00:00:00.000Z");
  });

  it("put 23:59:59.999Z and the next 00:00:00Z in different days, and a Sunday in the week before Monday", () => {
    expect(bucketStart(t("2026-11-01T23:59:59.999Z"), "day")).not.toBe(bucketStart(t("2026-11-02T00:00:00.000Z"), "day"));
    expect(iso(bucketStart(t("2026-11-08T23:59:59.999Z"), "week"))).toBe("2026-11-02T00:00:00.000Z");
    expect(iso(bucketStart(t("2026-11-09T00:00:00.000Z"), "week"))).toBe("2026-11-09T00:00:00.000Z");
  });

  it("count buckets from the start of from's bucket up to the exclusive end", () => {
    expect(bucketCount(t("2026-11-01T00:00:00Z"), t("2026-11-08T00:00:00Z"), "day")).toBe(7);
    expect(bucketCount(t("2026-11-01T12:00:00Z"), t("2026-11-08T00:00:01Z"), "day")).toBe(8);
    expect(bucketCount(t("2026-11-08T00:00:00Z"), t("2026-11-01T00:00:00Z"), "day")).toBe(0);
  });

  it("choose the finest bucket that keeps a series within 500 points", () => {
    const now = t("2026-11-20T10:00:00Z");
    expect(autoBucket(now - 7 * 86_400_000, now)).toBe("hour"); // 168 points
    expect(autoBucket(now - 30 * 86_400_000, now)).toBe("day"); // 720 hours would be too many
    expect(autoBucket(now - 400 * 86_400_000, now)).toBe("day");
    expect(autoBucket(now - 600 * 86_400_000, now)).toBe("week");
    expect(bucketFits(now - 20 * 86_400_000, now, "hour")).toBe(true);
    expect(bucketFits(now - 21 * 86_400_000, now, "hour")).toBe(false);
  });
});

describe("the range in the URL", () => {
  it("round-trips through search params, leaving defaults out", () => {
    const filters: EvolutionFilters = {
      ...DEFAULT_EVOLUTION_FILTERS,
      preset: "7d",
      bucket: "day",
      variant: "B",
      allVersions: true,
      churn: "origin",
      scoresAt: 12,
    };
    const params = writeEvolutionFilters(new URLSearchParams("keep=1"), filters);
    expect(params.toString()).toBe("keep=1&range=7d&bucket=day&variant=B&versions=all&churn=origin&at=12");
    expect(parseEvolutionFilters(params)).toEqual(filters);
    expect(writeEvolutionFilters(new URLSearchParams(), DEFAULT_EVOLUTION_FILTERS).toString()).toBe("");
  });

  it("keeps a custom range as ISO instants and drops the preset", () => {
    const filters = customRange(DEFAULT_EVOLUTION_FILTERS, t("2026-11-01T00:00:00Z"), t("2026-11-03T00:00:00Z"));
    const params = writeEvolutionFilters(new URLSearchParams("range=90d"), filters);
    expect(params.get("range")).toBeNull();
    expect(params.get("from")).toBe("2026-11-01T00:00:00.000Z");
    expect(parseEvolutionFilters(params)).toMatchObject({ preset: null, from: "2026-11-01T00:00:00.000Z", to: "2026-11-03T00:00:00.000Z" });
  });

  it("ignores malformed values, so a hand-edited link still opens", () => {
    const filters = parseEvolutionFilters(new URLSearchParams("range=1y&bucket=minute&from=2026-02-30&to=yesterday&at=-3&versions=some"));
    expect(filters).toEqual(DEFAULT_EVOLUTION_FILTERS);
    // A range that ends before it starts is no range.
    expect(parseEvolutionFilters(new URLSearchParams("from=2026-11-03&to=2026-11-01")).preset).toBe("30d");
  });

  it("reads instants with a zone and UTC days, and nothing in the server's zone", () => {
    expect(parseInstant("2026-11-01T10:30:00+01:00")).toBe(t("2026-11-01T09:30:00Z"));
    expect(parseInstant("2026-11-01")).toBe(t("2026-11-01T00:00:00Z"));
    expect(parseInstant("2026-11-01T10:30:00")).toBeNull();
    expect(parseInstant("2026-02-30")).toBeNull();
  });
});

describe("resolving a range", () => {
  const now = t("2026-11-20T10:17:00Z");

  it("ends a preset with the bucket that holds now, so a few seconds later asks for the same buckets", () => {
    const range = resolveRange(DEFAULT_EVOLUTION_FILTERS, now);
    expect(range.bucket).toBe("day");
    expect(iso(range.to)).toBe("2026-11-21T00:00:00.000Z");
    expect(iso(range.from)).toBe("2026-10-22T00:00:00.000Z");
    expect(range.points).toBe(30);
    expect(resolveRange(DEFAULT_EVOLUTION_FILTERS, now + 60_000)).toEqual(range);
  });

  it("gives 24 h in 24 hourly buckets, the current hour last", () => {
    const range = resolveRange({ ...DEFAULT_EVOLUTION_FILTERS, preset: "24h" }, now);
    expect(range).toMatchObject({ bucket: "hour", points: 24, autoBucket: true });
    expect(iso(range.to)).toBe("2026-11-20T11:00:00.000Z");
  });

  it("keeps the reader's bucket unless it makes more than 500 points", () => {
    expect(resolveRange({ ...DEFAULT_EVOLUTION_FILTERS, preset: "90d", bucket: "week" }, now)).toMatchObject({
      bucket: "week",
      autoBucket: false,
    });
    const widened = resolveRange({ ...DEFAULT_EVOLUTION_FILTERS, preset: "90d", bucket: "hour" }, now);
    expect(widened).toMatchObject({ bucket: "day", bucketWidened: true, autoBucket: true });
    expect(widened.points).toBeLessThanOrEqual(MAX_POINTS);
  });

  it("starts 'all' at the earliest trace or version, truncated to its bucket", () => {
    const range = resolveRange({ ...DEFAULT_EVOLUTION_FILTERS, preset: "all" }, now, t("2026-06-03T15:00:00Z"));
    expect(range.bucket).toBe("day");
    expect(iso(range.from)).toBe("2026-06-03T00:00:00.000Z");
    // Nothing yet: still a range, an hour long.
    expect(resolveRange({ ...DEFAULT_EVOLUTION_FILTERS, preset: "all" }, now, null).points).toBeGreaterThanOrEqual(1);
  });

  it("truncates a custom range's start to its bucket and keeps its end", () => {
    const filters = customRange(DEFAULT_EVOLUTION_FILTERS, t("2026-11-01T06:00:00Z"), t("2026-11-15T00:00:00Z"));
    const range = resolveRange(filters, now);
    expect(range.bucket).toBe("hour");
    expect(iso(range.from)).toBe("2026-11-01T06:00:00.000Z");
    expect(iso(range.to)).toBe("2026-11-15T00:00:00.000Z");
    expect(range.points).toBe(14 * 24 - 6);
  });
});
