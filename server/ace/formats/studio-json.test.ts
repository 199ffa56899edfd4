import { describe, expect, it } from "vitest";
import type { PlaybookDocument } from "../document";
import { PlaybookParseError } from "./errors";
import { parseStudioJson, serializeStudioJson } from "./studio-json";

const fullDoc: PlaybookDocument = {
  name: "Support agent",
  description: "Learned from 30 conversations",
  agentLabel: "support-bot",
  settings: { tokenBudget: 80000, pruning: { enabled: false } },
  lastIdNumber: 12,
  hints: {
    trailingNewline: false,
    trailingBlankLines: 2,
    lineEnding: "\r\n",
    byteOrderMark: true,
    kaybaExtra: { similarity_decisions: {} },
    kaybaCollection: "skills",
    kaybaKeyOrder: ["skills", "sections", "next_id", "similarity_decisions"],
    kaybaNextId: 6,
  },
  sections: [
    {
      name: "STRATEGIES AND HARD RULES",
      slug: "shr",
      blankLinesBefore: 1,
      bullets: [
        {
          id: "shr-00001",
          content: 'multi\nline with :: and [brackets], "quotes", `ticks`, literal \\n and unicode ≤ 🚀',
          counters: { helpful: 5, harmful: 1, neutral: 3 },
          status: "active",
          justification: "why",
          evidence: "because",
          createdAt: "2026-03-18T14:08:22.435Z",
          updatedAt: "2026-03-18T14:08:22.435Z",
          origin: "curator",
          sourceTraceId: "trace-1",
          sourceRunId: "run-1",
          blankLinesBefore: 2,
          extra: { kayba: { keyOrder: ["id"], fields: { embedding: null } } },
        },
        {
          id: "shr-00002",
          content: "superseded",
          counters: null,
          status: "archived",
          archivedReason: "merged",
          mergedInto: "shr-00001",
          origin: "import",
        },
      ],
    },
    { name: "EMPTY", slug: "emp", bullets: [] },
  ],
};

function failureOf(text: string): PlaybookParseError {
  try {
    parseStudioJson(text);
  } catch (error) {
    if (error instanceof PlaybookParseError) return error;
    throw error;
  }
  throw new Error("expected a PlaybookParseError");
}

// A written file, loosely typed so each case can break one thing in it.
interface EditableFile {
  [key: string]: unknown;
  sections: { [key: string]: unknown; name: string; bullets: { [key: string]: unknown; counters: Record<string, unknown> }[] }[];
}
const validFile = (): EditableFile => JSON.parse(serializeStudioJson(fullDoc));

function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`the valid file has no item ${index}`);
  return item;
}
const sectionAt = (file: EditableFile, s: number) => at(file.sections, s);
const bulletAt = (file: EditableFile, s: number, b: number) => at(sectionAt(file, s).bullets, b);

describe("ACE Studio JSON", () => {
  it("keeps what only it and kayba can hold: ids with spaces or brackets, unnamed sections and names with line breaks", () => {
    const doc: PlaybookDocument = {
      sections: [
        { name: "tools", slug: "my", bullets: [{ id: "my skill", content: "a", counters: null, status: "active" }] },
        { name: "", slug: "sec", bullets: [{ id: "a]b", content: "b", counters: null, status: "active" }] },
        { name: "multi\nline", slug: "m", bullets: [] },
      ],
      lastIdNumber: 0,
      hints: {},
    };
    expect(parseStudioJson(serializeStudioJson(doc))).toStrictEqual(doc);
  });

  it("round-trips every document field, archived bullets and provenance included", () => {
    const text = serializeStudioJson(fullDoc);
    expect(parseStudioJson(text)).toStrictEqual(fullDoc);
    expect(serializeStudioJson(parseStudioJson(text))).toBe(text);
  });

  it("is pretty-printed with 2 spaces and a final newline, format and version first", () => {
    const text = serializeStudioJson(fullDoc);
    expect(text.startsWith('{\n  "format": "ace-studio",\n  "formatVersion": 1,\n  "playbook": {\n    "name": "Support agent",')).toBe(
      true,
    );
    expect(text.endsWith("}\n")).toBe(true);
    expect(Object.keys(JSON.parse(text))).toEqual(["format", "formatVersion", "playbook", "lastIdNumber", "hints", "sections"]);
  });

  it("writes counters null for a bullet without counters and the highest id number when none is recorded", () => {
    const doc: PlaybookDocument = {
      sections: [{ name: "A", slug: "a", bullets: [{ id: "a-00009", content: "x", counters: null, status: "active" }] }],
      hints: {},
    };
    const file = JSON.parse(serializeStudioJson(doc));
    expect(file.sections[0].bullets[0]).toEqual({ id: "a-00009", content: "x", counters: null, status: "active" });
    expect(file.lastIdNumber).toBe(9);
    expect(file.playbook).toEqual({});
  });

  it("leaves out properties the document model does not have", () => {
    const doc = { ...fullDoc, sections: [{ name: "A", slug: "a", bullets: [], stray: true }] };
    expect(serializeStudioJson(doc)).not.toContain("stray");
  });
});

describe("malformed ACE Studio JSON", () => {
  const cases: { title: string; edit: (file: EditableFile) => unknown; message: string }[] = [
    { title: "a wrong format marker", edit: (f) => (f.format = "kayba"), message: `format: expected "ace-studio", found "kayba"` },
    { title: "an unknown version", edit: (f) => (f.formatVersion = 2), message: "formatVersion: expected 1, found 2" },
    {
      title: "missing sections",
      edit: (f) => Reflect.deleteProperty(f, "sections"),
      message: "sections: expected a list of sections, found nothing",
    },
    {
      title: "a bullet without content",
      edit: (f) => Reflect.deleteProperty(bulletAt(f, 0, 1), "content"),
      message: "sections[0].bullets[1].content: expected a string, found nothing",
    },
    {
      title: "a negative counter",
      edit: (f) => (bulletAt(f, 0, 0).counters.harmful = -1),
      message: "sections[0].bullets[0].counters.harmful: expected a whole number ≥ 0, found -1",
    },
    {
      title: "a counter given as a string",
      edit: (f) => (bulletAt(f, 0, 0).counters.helpful = "3"),
      message: `sections[0].bullets[0].counters.helpful: expected a whole number ≥ 0, found "3"`,
    },
    {
      title: "an unknown status",
      edit: (f) => (bulletAt(f, 0, 0).status = "deleted"),
      message: `sections[0].bullets[0].status: expected "active" or "archived", found "deleted"`,
    },
    {
      title: "an empty id",
      edit: (f) => (bulletAt(f, 0, 0).id = ""),
      message: `sections[0].bullets[0].id: expected a bullet id, found ""`,
    },
    {
      title: "an unknown key",
      edit: (f) => (bulletAt(f, 0, 0).helpfull = 1),
      message: `sections[0].bullets[0]: unknown key "helpfull"`,
    },
    {
      title: "an id prefix that is not a string",
      edit: (f) => (sectionAt(f, 1).slug = 7),
      message: `sections[1].slug: expected an id prefix, found 7`,
    },
    {
      title: "a duplicate bullet id",
      edit: (f) => (bulletAt(f, 0, 1).id = "shr-00001"),
      message: `sections[0].bullets[1].id: bullet id "shr-00001" is already used at sections[0].bullets[0].id`,
    },
    {
      title: "a duplicate section name",
      edit: (f) => (sectionAt(f, 1).name = sectionAt(f, 0).name),
      message: `sections[1].name: section "STRATEGIES AND HARD RULES" is already named at sections[0].name`,
    },
    { title: "a top level that is not an object", edit: () => [], message: "$: expected an ACE Studio JSON object, found an array" },
  ];

  for (const { title, edit, message } of cases) {
    it(`rejects ${title}`, () => {
      const file = validFile();
      const replaced = edit(file);
      const error = failureOf(JSON.stringify(Array.isArray(replaced) ? replaced : file));
      expect(error.message).toBe(message);
      expect(error.format).toBe("json");
    });
  }

  it("reports text that is not JSON at its line and column", () => {
    expect(failureOf('{\n  "format": "ace-studio",\n}').message).toBe('Line 3, column 1: not valid JSON: unexpected "}"');
  });
});
