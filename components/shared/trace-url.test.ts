import { describe, expect, it } from "vitest";
import { EMPTY_TRACE_FILTERS, hasTraceFilters, parseTraceFilters, traceListInput, tracesHref, writeTraceFilters } from "./trace-url";

const PLAYBOOK = "0f8fad5b-d9cb-469f-a165-70867728950e";

describe("trace filters in the URL", () => {
  it("round-trip through search params, leaving empty ones out", () => {
    const filters = {
      ...EMPTY_TRACE_FILTERS,
      playbookId: PLAYBOOK,
      outcome: "failure" as const,
      reflected: "no" as const,
      search: "refund",
    };
    const params = writeTraceFilters(new URLSearchParams("other=1"), filters);
    expect(params.toString()).toBe(`other=1&playbook=${PLAYBOOK}&outcome=failure&reflected=no&q=refund`);
    expect(parseTraceFilters(params)).toEqual(filters);
  });

  it("ignore malformed values, so a hand-edited link still opens", () => {
    const filters = parseTraceFilters(new URLSearchParams("playbook=nope&outcome=great&from=2025-02-30&to=2025-13-01&reflected=maybe"));
    expect(filters).toEqual(EMPTY_TRACE_FILTERS);
    expect(hasTraceFilters(filters)).toBe(false);
  });

  it("turn UTC days into a from/to range that includes the whole last day", () => {
    const input = traceListInput({ ...EMPTY_TRACE_FILTERS, from: "2025-01-31", to: "2025-02-28", reflected: "yes" });
    expect(input.from?.toISOString()).toBe("2025-01-31T00:00:00.000Z");
    expect(input.to?.toISOString()).toBe("2025-03-01T00:00:00.000Z");
    expect(input.reflected).toBe(true);
    expect(input).not.toHaveProperty("search");
  });

  it("narrow to an exact span (a chart bucket), in UTC, within any day filter", () => {
    const params = new URLSearchParams("start=2026-11-01T10:00:00%2B01:00&end=2026-11-01T10:00:00.000Z&outcome=success");
    const filters = parseTraceFilters(params);
    expect(filters).toMatchObject({ start: "2026-11-01T09:00:00.000Z", end: "2026-11-01T10:00:00.000Z", outcome: "success" });
    expect(hasTraceFilters({ ...EMPTY_TRACE_FILTERS, start: filters.start })).toBe(true);
    const input = traceListInput(filters);
    expect(input.from?.toISOString()).toBe("2026-11-01T09:00:00.000Z");
    expect(input.to?.toISOString()).toBe("2026-11-01T10:00:00.000Z");
    // With days as well, the narrower bound of each side wins.
    const both = traceListInput({ ...filters, from: "2026-11-01", to: "2026-11-01", start: "2026-10-31T22:00:00.000Z" });
    expect(both.from?.toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(both.to?.toISOString()).toBe("2026-11-01T10:00:00.000Z");
    expect(parseTraceFilters(new URLSearchParams("start=2026-11-01T10:00&end=soon"))).toEqual(EMPTY_TRACE_FILTERS);
  });

  it("build links to the explorer", () => {
    expect(tracesHref()).toBe("/traces");
    expect(tracesHref({ playbookId: PLAYBOOK })).toBe(`/traces?playbook=${PLAYBOOK}`);
    expect(
      tracesHref({ playbookId: PLAYBOOK, outcome: "failure", start: "2026-11-01T00:00:00.000Z", end: "2026-11-02T00:00:00.000Z" }),
    ).toBe(`/traces?playbook=${PLAYBOOK}&outcome=failure&start=2026-11-01T00%3A00%3A00.000Z&end=2026-11-02T00%3A00%3A00.000Z`);
  });
});
