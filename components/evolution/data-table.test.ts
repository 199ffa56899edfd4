import { describe, expect, it } from "vitest";
import { csvFileName, tableOf, toCsv } from "./data-table";

describe("CSV of a chart's table", () => {
  it("has a header of labels and one line per row, raw values, CRLF line ends", () => {
    const csv = toCsv({
      columns: [
        { key: "start", label: "Bucket start", kind: "bucket" },
        { key: "rate", label: "Success rate", kind: "rate" },
        { key: "cost", label: "Cost (USD)", kind: "usd" },
      ],
      rows: [
        { start: "2026-11-01T00:00:00.000Z", rate: 0.7894736842, cost: 0.0000001 },
        { start: "2026-11-02T00:00:00.000Z", rate: null, cost: 0 },
      ],
    });
    expect(csv).toBe(
      "Bucket start,Success rate,Cost (USD)\r\n2026-11-01T00:00:00.000Z,0.7894736842,0.0000001\r\n2026-11-02T00:00:00.000Z,,0\r\n",
    );
  });

  it("quotes commas, quotes and line breaks, and defuses spreadsheet formulas", () => {
    const csv = toCsv({
      columns: [{ key: "text", label: "Content", kind: "text" }],
      rows: [{ text: 'Say "hi", then\nleave' }, { text: "=HYPERLINK(1)" }, { text: "-3 apples" }],
    });
    expect(csv.split("\r\n").slice(1, 4)).toEqual(['"Say ""hi"", then\nleave"', "'=HYPERLINK(1)", "'-3 apples"]);
  });

  it("names the file after the chart", () => {
    expect(csvFileName("Outcomes · Café support 2026-11-01")).toBe("outcomes-cafe-support-2026-11-01.csv");
    expect(csvFileName("···")).toBe("data.csv");
  });
});

describe("a table of one row per item", () => {
  it("fills each column from its own rule, or from the field of the same key, and keeps nothing else", () => {
    const items = [{ name: "refunds", size: 3, secret: "x" }];
    const table = tableOf<(typeof items)[number]>(
      "Items",
      [
        { key: "name", label: "Name", kind: "text" },
        { key: "double", label: "Twice the size", kind: "count", value: (item) => item.size * 2 },
        // @ts-expect-error -- a key that is no field of the row needs a `value`
        { key: "nmae", label: "Typo", kind: "text" },
      ],
      items,
    );
    expect(table.columns.map((column) => column.label)).toEqual(["Name", "Twice the size", "Typo"]);
    expect(table.rows).toEqual([{ name: "refunds", double: 6, nmae: null }]);
  });
});
