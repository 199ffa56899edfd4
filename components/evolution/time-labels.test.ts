import { describe, expect, it } from "vitest";
import { bucketSpanLabel, bucketStartLabel, fromLocalInput, rangeLabel, tickLabel, toLocalInput } from "./time-labels";

const DAY = "2026-11-01T00:00:00.000Z";

describe("bucket labels in the viewer's time zone", () => {
  it("show a UTC day by its UTC date on the axis, whatever the zone within ±12 h", () => {
    expect(tickLabel(DAY, "day", "UTC")).toBe("Nov 1");
    expect(tickLabel(DAY, "day", "America/New_York")).toBe("Nov 1");
    expect(tickLabel(DAY, "day", "Asia/Tokyo")).toBe("Nov 1");
  });

  it("say where a UTC day starts and ends on the reader's clock", () => {
    expect(bucketSpanLabel(DAY, "day", "UTC")).toBe("Nov 1, 2026, 00:00 – Nov 2, 2026, 00:00");
    expect(bucketSpanLabel(DAY, "day", "America/New_York")).toBe("Oct 31, 2026, 20:00 – Nov 1, 2026, 19:00");
    expect(bucketStartLabel(DAY, "day", "UTC")).toBe("Nov 1, 2026");
    expect(bucketStartLabel(DAY, "day", "Europe/Paris")).toBe("Nov 1, 2026, 01:00");
    expect(bucketStartLabel("2026-11-02T00:00:00.000Z", "week", "UTC")).toBe("Week of Nov 2, 2026");
  });

  it("show hours with their date and time", () => {
    expect(tickLabel("2026-11-01T09:00:00.000Z", "hour", "Europe/Paris")).toBe("Nov 1, 10:00");
    expect(bucketStartLabel("2026-11-01T09:00:00.000Z", "hour", "UTC")).toBe("Nov 1, 2026, 09:00");
  });

  it("end a range label on the last day it covers", () => {
    expect(rangeLabel("2026-10-22T00:00:00.000Z", "2026-11-21T00:00:00.000Z", "UTC")).toBe("Oct 22, 2026 – Nov 20, 2026");
  });
});

describe("datetime-local values", () => {
  it("round-trip an instant through the reader's wall clock, across daylight saving", () => {
    expect(toLocalInput("2026-11-01T09:30:00.000Z", "Europe/Paris")).toBe("2026-11-01T10:30");
    expect(fromLocalInput("2026-11-01T10:30", "Europe/Paris")).toBe(Date.parse("2026-11-01T09:30:00.000Z"));
    // Summer time in Paris: UTC+2.
    expect(fromLocalInput("2026-07-01T10:30", "Europe/Paris")).toBe(Date.parse("2026-07-01T08:30:00.000Z"));
    expect(fromLocalInput("2026-11-01T10:30", "America/New_York")).toBe(Date.parse("2026-11-01T15:30:00.000Z"));
    expect(fromLocalInput("yesterday", "UTC")).toBeNull();
  });
});
