import { describe, expect, it } from "vitest";
import { auditCsvHeader, auditCsvRow, csvCell } from "./csv";

describe("audit CSV", () => {
  it("quotes cells with commas, quotes and line breaks", () => {
    expect(csvCell('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
    expect(csvCell(null)).toBe("");
    expect(csvCell(new Date("2026-11-23T10:00:00.000Z"))).toBe("2026-11-23T10:00:00.000Z");
  });

  it("defuses cells a spreadsheet would run as formulas", () => {
    expect(csvCell('=HYPERLINK("http://evil")')).toBe('"\'=HYPERLINK(""http://evil"")"');
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("-2")).toBe("'-2");
  });

  it("writes one CRLF line per entry with the summaries as JSON", () => {
    expect(auditCsvHeader()).toBe(
      "time,actor_kind,actor,actor_id,action,target_type,target_id,target,playbook_id,before,after,request_id,ip\r\n",
    );
    const line = auditCsvRow({
      id: "e1",
      createdAt: new Date("2026-11-23T10:00:00.000Z"),
      actorKind: "user",
      actorId: "u1",
      actorName: "ada@example.com",
      action: "user.role",
      targetType: "user",
      targetId: "u2",
      targetLabel: "bob@example.com",
      playbookId: null,
      before: { role: "viewer" },
      after: { role: "curator" },
      requestId: "r1",
      ip: "127.0.0.1",
    });
    expect(line).toBe(
      '2026-11-23T10:00:00.000Z,user,ada@example.com,u1,user.role,user,u2,bob@example.com,,"{""role"":""viewer""}","{""role"":""curator""}",r1,127.0.0.1\r\n',
    );
  });
});
