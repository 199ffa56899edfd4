import { describe, expect, it } from "vitest";
import { MAX_SECTION_SERIES, OTHER_SECTIONS, sizeSeries, sizeTable } from "./size";
import { DAYS, result, version } from "./test-fixtures";

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
    const table = sizeTable(series, "Size");
    expect(table.rows[0]).toMatchObject({ activeBullets: null, "section:s1": null, tokenBudget: 8000 });
    expect(table.rows[1]).toMatchObject({ version: 1, activeBullets: 11, "section:s1": 11, tokens: 100 });
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
