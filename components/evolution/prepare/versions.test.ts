import { describe, expect, it } from "vitest";
import { describeOperations, versionMarkers, versionTable } from "./versions";
import { DAYS, version } from "./test-fixtures";

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

  it("list each version with its origin and operations in words, linked to its diff", () => {
    const table = versionTable([version(3, DAYS[0]!, { origin: "person", helpful: 4 })], "Versions", (number) => `/diff/${number}`);
    expect(table.rows).toEqual([
      { version: 3, createdAt: DAYS[0], origin: "Person", operations: "1 add", activeBullets: 13, helpful: 4, harmful: 0 },
    ]);
    expect(table.links).toEqual([{ version: "/diff/3" }]);
    expect(versionTable([], "Versions")).not.toHaveProperty("links");
  });
});
