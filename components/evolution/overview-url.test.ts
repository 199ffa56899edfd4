import { describe, expect, it } from "vitest";
import { DEFAULT_OVERVIEW_FILTERS, firstDirection, overviewRange, parseOverviewFilters, writeOverviewFilters } from "./overview-url";

describe("studio overview in the URL", () => {
  it("round-trips range and order, leaving defaults out", () => {
    const filters = { preset: "7d" as const, sort: "change" as const, direction: "desc" as const };
    const params = writeOverviewFilters(new URLSearchParams("keep=1"), filters);
    expect(params.toString()).toBe("keep=1&range=7d&sort=change&dir=desc");
    expect(parseOverviewFilters(params)).toEqual(filters);
    expect(writeOverviewFilters(new URLSearchParams(), DEFAULT_OVERVIEW_FILTERS).toString()).toBe("");
  });

  it("falls back to the defaults for unknown values ('all' is not offered)", () => {
    expect(parseOverviewFilters(new URLSearchParams("range=all&sort=secret&dir=up"))).toEqual(DEFAULT_OVERVIEW_FILTERS);
  });

  it("sorts names A to Z first and figures largest first", () => {
    expect(firstDirection("name")).toBe("asc");
    expect(firstDirection("change")).toBe("desc");
  });

  it("uses hours for a day and days otherwise, ending with the bucket that holds now", () => {
    const now = Date.parse("2026-11-20T10:17:00Z");
    const day = overviewRange("24h", now);
    expect(day).toMatchObject({ bucket: "hour", points: 24 });
    expect(day.input.to?.toISOString()).toBe("2026-11-20T11:00:00.000Z");
    const week = overviewRange("7d", now);
    expect(week).toMatchObject({ bucket: "day", points: 7 });
    expect(week.input.from?.toISOString()).toBe("2026-11-14T00:00:00.000Z");
    expect(overviewRange("7d", now + 60_000)).toEqual(week);
  });
});
