import { describe, expect, it } from "vitest";
import { summarizeRedactions } from "./redaction-summary";

describe("summarizeRedactions", () => {
  it("says nothing for a trace with nothing redacted", () => {
    expect(summarizeRedactions(null)).toBeNull();
  });
  it("words each kind, built-in kinds first, then custom patterns by name", () => {
    const summary = summarizeRedactions({
      counts: { ticket: 2, email: 3, secret: 1, card: 1, account: 1 },
      fields: ["task", "metadata.user.email"],
    });
    expect(summary?.rows.map((row) => row.label)).toEqual([
      "1 secret",
      "1 card number",
      "3 email addresses",
      "1 match of custom pattern account",
      "2 matches of custom pattern ticket",
    ]);
    expect(summary).toMatchObject({ total: 8, fields: ["task", "metadata.user.email"], unitIdHashed: false });
  });
  it("tells when only the unit id was hashed", () => {
    expect(summarizeRedactions({ counts: {}, fields: [], unitIdHashed: true })).toEqual({
      total: 0,
      rows: [],
      fields: [],
      unitIdHashed: true,
    });
  });
});
