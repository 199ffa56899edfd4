import { describe, expect, it } from "vitest";
import { bucketRange, bucketStarts, carryForward, lastBucketStart, previousRange, truncateToBucket } from "./buckets";

const at = (iso: string) => new Date(iso);

describe("truncateToBucket (UTC, as PostgreSQL's date_trunc)", () => {
  it("hours and days start on the hour and at midnight; the last millisecond stays in its bucket", () => {
    expect(truncateToBucket(at("2026-03-02T23:59:59.999Z"), "hour").toISOString()).toBe("2026-03-02T23:00:00.000Z");
    expect(truncateToBucket(at("2026-03-02T23:59:59.999Z"), "day").toISOString()).toBe("2026-03-02T00:00:00.000Z");
    expect(truncateToBucket(at("2026-03-03T00:00:00.000Z"), "day").toISOString()).toBe("2026-03-03T00:00:00.000Z");
  });

  it("weeks start on Monday 00:00, also before 1970", () => {
    // 2026-03-01 is a Sunday, 2026-03-02 a Monday.
    expect(truncateToBucket(at("2026-03-01T23:59:59.999Z"), "week").toISOString()).toBe("2026-02-23T00:00:00.000Z");
    expect(truncateToBucket(at("2026-03-02T00:00:00.000Z"), "week").toISOString()).toBe("2026-03-02T00:00:00.000Z");
    expect(truncateToBucket(at("2026-03-08T12:00:00.000Z"), "week").toISOString()).toBe("2026-03-02T00:00:00.000Z");
    // 1969-12-29 was a Monday; 1970-01-01 a Thursday.
    expect(truncateToBucket(at("1970-01-01T00:00:00.000Z"), "week").toISOString()).toBe("1969-12-29T00:00:00.000Z");
    expect(truncateToBucket(at("1969-12-28T23:00:00.000Z"), "week").toISOString()).toBe("1969-12-22T00:00:00.000Z");
  });
});

describe("bucketRange", () => {
  it("starts at from's bucket and counts every bucket that begins before to (exclusive)", () => {
    const range = bucketRange(at("2026-03-01T08:00:00Z"), at("2026-03-07T00:00:00Z"), "day");
    expect(range.start.toISOString()).toBe("2026-03-01T00:00:00.000Z");
    expect(range.count).toBe(6);
    expect(bucketStarts(range).map((start) => start.toISOString().slice(0, 10))).toEqual([
      "2026-03-01",
      "2026-03-02",
      "2026-03-03",
      "2026-03-04",
      "2026-03-05",
      "2026-03-06",
    ]);
    expect(lastBucketStart(range).toISOString()).toBe("2026-03-06T00:00:00.000Z");
    // A `to` one millisecond into a day opens that day's bucket.
    expect(bucketRange(at("2026-03-01T00:00:00Z"), at("2026-03-07T00:00:00.001Z"), "day").count).toBe(7);
    expect(bucketRange(at("2026-03-01T00:00:00Z"), at("2026-03-09T00:00:00Z"), "week").count).toBe(2);
  });

  it("the previous range has the same length and ends where this one starts", () => {
    const previous = previousRange(bucketRange(at("2026-03-04T00:00:00Z"), at("2026-03-06T00:00:00Z"), "day"));
    expect([previous.start.toISOString(), previous.end.toISOString()]).toEqual(["2026-03-02T00:00:00.000Z", "2026-03-04T00:00:00.000Z"]);
  });
});

describe("carryForward", () => {
  it("each bucket shows the latest value recorded up to it, the initial one before any", () => {
    const starts = bucketStarts(bucketRange(at("2026-03-01T00:00:00Z"), at("2026-03-05T00:00:00Z"), "day"));
    const recorded = new Map([
      [at("2026-03-02T00:00:00Z").getTime(), 5],
      [at("2026-03-04T00:00:00Z").getTime(), 7],
    ]);
    expect(carryForward(starts, recorded, null)).toEqual([null, 5, 5, 7]);
    expect(carryForward(starts, recorded, 1)).toEqual([1, 5, 5, 7]);
  });
});
