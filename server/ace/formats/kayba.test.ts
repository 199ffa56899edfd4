import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { BulletDoc, PlaybookDocument } from "../document";
import { parseAceText, serializeAceText } from "./ace-text";
import { PlaybookExportError, PlaybookParseError } from "./errors";
import { parseKayba, readKayba, readKaybaExtra, serializeKayba } from "./kayba";
import { playbookFixture } from "@/server/testing/playbook-files";

const FIXTURE = readFileSync(playbookFixture("kayba__skillbook_20260318_150822.json"), "utf8");
/** The keys of a skill in the published skillbook, in the order kayba wrote them (a version that writes counters). */
const FIXTURE_SKILL_KEYS = Object.keys(JSON.parse(FIXTURE).skills["customer_service_structure-00001"]);

/** How kayba's Python writes a skillbook: json.dump(indent=2, ensure_ascii=False), no final newline. */
const asPython = (value: unknown) => JSON.stringify(value, null, 2);

function skill(id: string, section: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    section,
    content: `content of ${id}`,
    helpful: 1,
    harmful: 0,
    neutral: 2,
    created_at: "2026-03-18T14:08:22.435257+00:00",
    updated_at: "2026-03-18T14:08:22.435269+00:00",
    embedding: null,
    status: "active",
    sources: [],
    ...fields,
  };
}

function failureOf(text: string): PlaybookParseError {
  try {
    parseKayba(text);
  } catch (error) {
    if (error instanceof PlaybookParseError) return error;
    throw error;
  }
  throw new Error("expected a PlaybookParseError");
}

const allBullets = (doc: PlaybookDocument): BulletDoc[] => doc.sections.flatMap((s) => s.bullets);

describe("parseKayba", () => {
  it("reads the published skillbook: sections in key order, counters, texts and timestamps", () => {
    const doc = parseKayba(FIXTURE);
    expect(doc.sections.map((s) => [s.name, s.slug, s.bullets.map((b) => b.id)])).toEqual([
      ["customer_service_structure", "customer_service_structure", ["customer_service_structure-00001"]],
      ["customer_service_opening", "customer_service_opening", ["customer_service_opening-00002"]],
      ["customer_service_efficiency", "customer_service_efficiency", ["customer_service_efficiency-00003"]],
      ["customer_service_balance", "customer_service_balance", ["customer_service_balance-00004"]],
      ["customer_service_context", "customer_service_context", ["customer_service_context-00005"]],
      ["customer_service_closure", "customer_service_closure", ["customer_service_closure-00006"]],
    ]);
    const first = doc.sections[0]?.bullets[0];
    expect(first).toMatchObject({
      counters: { helpful: 1, harmful: 0, neutral: 0 },
      status: "active",
      createdAt: "2026-03-18T14:08:22.435Z",
      updatedAt: "2026-03-18T14:08:22.435Z",
    });
    expect(first?.content).toMatch(/^Structure every customer service interaction into 4 phases/);
    expect(first?.justification).toMatch(/^Atomic, evidence-based structure/);
    expect(first?.evidence).toMatch(/^Most efficient conversation/);
    expect(readKaybaExtra(first?.extra)).toEqual({
      keyOrder: FIXTURE_SKILL_KEYS,
      raw: { embedding: "null", sources: "[]" },
      createdAt: "2026-03-18T14:08:22.435257+00:00",
      updatedAt: "2026-03-18T14:08:22.435269+00:00",
      status: "active",
    });
    expect(doc.lastIdNumber).toBe(6);
    expect(doc.hints).toMatchObject({
      kaybaCollection: "skills",
      kaybaKeyOrder: ["skills", "sections", "next_id", "similarity_decisions"],
      kaybaExtraText: { similarity_decisions: "{}" },
      kaybaCounters: true,
      kaybaNextId: 6,
      trailingNewline: false,
    });
  });

  it("exports the published skillbook byte for byte", () => {
    expect(serializeKayba(parseKayba(FIXTURE))).toBe(FIXTURE);
  });

  it("reads the older `bullets` collection without status or sources and writes it back unchanged", () => {
    const older = asPython({
      bullets: {
        "edge-00001": {
          id: "edge-00001",
          section: "Edge Cases",
          content: "Handle empty arrays",
          helpful: 5,
          harmful: 0,
          neutral: 0,
          created_at: "2025-10-01T09:00:00+00:00",
          updated_at: "2025-10-02T09:00:00.000001+00:00",
        },
      },
      sections: { "Edge Cases": ["edge-00001"] },
      next_id: 1,
    });
    const doc = parseKayba(older);
    expect(doc.hints.kaybaCollection).toBe("bullets");
    expect(doc.sections[0]).toMatchObject({ name: "Edge Cases", slug: "edge" });
    expect(serializeKayba(doc)).toBe(older);
  });

  it("keeps unknown keys, unusual key order, other top-level keys, CRLF and a final newline", () => {
    const source = {
      version: "2",
      skills: { "ops-00003": { custom: { nested: [1, "two"] }, content: "c", id: "ops-00003", section: "ops", status: "active" } },
      similarity_decisions: { "a|b": { decision: "KEEP" } },
      next_id: 3,
      sections: { ops: ["ops-00003"] },
    };
    const text = `${asPython(source).replaceAll("\n", "\r\n")}\r\n`;
    const doc = parseKayba(text);
    // No counter keys at all, as kayba 0.9.3 and later write skills: the bullet has no counters.
    expect(allBullets(doc)[0]?.counters).toBeNull();
    expect(serializeKayba(doc)).toBe(text);
  });

  it("keeps keys named __proto__ as ordinary keys", () => {
    // Written out by hand: a JavaScript object literal would turn "__proto__" into a prototype.
    const skill = '"__proto__": {\n      "id": "__proto__",\n      "section": "__proto__",\n      "content": "c"\n    }';
    const text = `{\n  "skills": {\n    ${skill}\n  },\n  "sections": {\n    "__proto__": [\n      "__proto__"\n    ]\n  }\n}`;
    const doc = parseKayba(text);
    expect(doc.sections[0]?.bullets[0]?.id).toBe("__proto__");
    expect(serializeKayba(doc)).toBe(`${text.slice(0, -2)},\n  "next_id": 0\n}`);
  });

  it("reads a status other than active as archived and writes the source status back", () => {
    const text = asPython({
      skills: { "a-00001": skill("a-00001", "a", { status: "invalid" }) },
      sections: { a: ["a-00001"] },
      next_id: 1,
    });
    const doc = parseKayba(text);
    expect(allBullets(doc)[0]?.status).toBe("archived");
    expect(serializeKayba(doc)).toBe(text);
  });

  it("appends a skill no section lists to the section it names, creating that section at the end", () => {
    const doc = parseKayba(
      asPython({
        skills: { "a-00001": skill("a-00001", "a"), "b-00002": skill("b-00002", "b"), "a-00003": skill("a-00003", "a") },
        sections: { a: ["a-00001"], empty: [] },
        next_id: 3,
      }),
    );
    expect(doc.sections.map((s) => [s.name, s.bullets.map((b) => b.id)])).toEqual([
      ["a", ["a-00001", "a-00003"]],
      ["empty", []],
      ["b", ["b-00002"]],
    ]);
  });

  it("takes the larger of next_id and the highest id number as the last id number", () => {
    const ahead = asPython({ skills: { "a-00002": skill("a-00002", "a") }, sections: { a: ["a-00002"] }, next_id: 9 });
    const behind = asPython({ skills: { "a-00012": skill("a-00012", "a") }, sections: { a: ["a-00012"] }, next_id: 2 });
    expect(parseKayba(ahead).lastIdNumber).toBe(9);
    expect(parseKayba(behind).lastIdNumber).toBe(12);
  });

  it("writes the file's own next_id back, even behind its ids, until ACE Studio numbers a bullet beyond them", () => {
    // kayba's add_skill with an explicit id does not move next_id, so kayba's own files lag behind.
    const behind = asPython({ skills: { "a-00012": skill("a-00012", "a") }, sections: { a: ["a-00012"] }, next_id: 2 });
    const doc = parseKayba(behind);
    expect(serializeKayba(doc)).toBe(behind);
    doc.sections[0]?.bullets.push({ id: "a-00013", content: "new", counters: null, status: "active" });
    doc.lastIdNumber = 13;
    expect(JSON.parse(serializeKayba(doc)).next_id).toBe(13);
  });
});

describe("serializeKayba", () => {
  const studioDoc: PlaybookDocument = {
    sections: [
      {
        name: "strategies_and_insights",
        slug: "str",
        bullets: [
          {
            id: "str-00001",
            content: "Verify types",
            counters: { helpful: 3, harmful: 1, neutral: 2 },
            status: "active",
            justification: "why",
          },
          { id: "str-00004", content: "Old advice", counters: null, status: "archived", createdAt: "2026-01-02T03:04:05.678Z" },
        ],
      },
      { name: "others", slug: "oth", bullets: [] },
    ],
    lastIdNumber: 7,
    hints: { trailingNewline: true },
  };

  it("writes a playbook that did not come from kayba in the canonical key order of kayba's files", () => {
    const text = serializeKayba(studioDoc);
    const root = JSON.parse(text);
    expect(Object.keys(root)).toEqual(["skills", "sections", "next_id", "similarity_decisions"]);
    expect(root.skills["str-00001"]).toEqual({
      id: "str-00001",
      section: "strategies_and_insights",
      content: "Verify types",
      justification: "why",
      evidence: null,
      helpful: 3,
      harmful: 1,
      neutral: 2,
      embedding: null,
      status: "active",
      sources: [],
    });
    // As kayba writes a skill (the published file's order), without the update time it does not have.
    expect(Object.keys(root.skills["str-00004"])).toEqual(FIXTURE_SKILL_KEYS.filter((key) => key !== "updated_at"));
    expect(root.skills["str-00004"]).toMatchObject({ status: "invalid", helpful: 0, created_at: "2026-01-02T03:04:05.678Z" });
    expect(root.sections).toEqual({ strategies_and_insights: ["str-00001", "str-00004"], others: [] });
    expect(root.next_id).toBe(7);
    expect(text.endsWith("}")).toBe(true);
  });

  it("writes a playbook that did not come from kayba as each kayba version's dataclass writes, byte for byte", () => {
    const section = "strategies_and_insights";
    const sections = { strategies_and_insights: ["str-00001", "str-00004"], others: [] };
    const first = { id: "str-00001", section, content: "Verify types", justification: "why", evidence: null };
    const old = { id: "str-00004", section, content: "Old advice", justification: null, evidence: null };
    const created = { created_at: "2026-01-02T03:04:05.678Z" };
    expect(serializeKayba(studioDoc, "skills")).toBe(
      asPython({
        skills: {
          "str-00001": { ...first, status: "active", sources: [] },
          "str-00004": { ...old, ...created, status: "invalid", sources: [] },
        },
        sections,
        next_id: 7,
        similarity_decisions: {},
      }),
    );
    expect(serializeKayba(studioDoc, "skills-counters")).toBe(
      asPython({
        skills: {
          "str-00001": { ...first, helpful: 3, harmful: 1, neutral: 2, embedding: null, status: "active", sources: [] },
          "str-00004": { ...old, helpful: 0, harmful: 0, neutral: 0, ...created, embedding: null, status: "invalid", sources: [] },
        },
        sections,
        next_id: 7,
        similarity_decisions: {},
      }),
    );
    // kayba 0.5 has no justification, evidence or status, and no place for an archived bullet.
    expect(serializeKayba(studioDoc, "bullets")).toBe(
      asPython({
        bullets: { "str-00001": { id: "str-00001", section, content: "Verify types", helpful: 3, harmful: 1, neutral: 2 } },
        sections: { strategies_and_insights: ["str-00001"], others: [] },
        next_id: 7,
      }),
    );
  });

  it("writes the source timestamp while it denotes the same millisecond, and the document's value once it changes", () => {
    const doc = parseKayba(FIXTURE);
    const first = doc.sections[0]?.bullets[0];
    if (!first) throw new Error("fixture has a first bullet");
    first.updatedAt = "2026-03-19T08:00:00.000Z";
    const written = JSON.parse(serializeKayba(doc)).skills[first.id];
    expect(written.created_at).toBe("2026-03-18T14:08:22.435257+00:00");
    expect(written.updated_at).toBe("2026-03-19T08:00:00.000Z");
  });

  it("writes edits to content and counters into the source object, keeping its other fields", () => {
    const doc = parseKayba(FIXTURE);
    const first = doc.sections[0]?.bullets[0];
    if (!first) throw new Error("fixture has a first bullet");
    first.content = "Edited";
    first.counters = { helpful: 7, harmful: 2, neutral: 1 };
    first.status = "archived";
    const written = JSON.parse(serializeKayba(doc)).skills[first.id];
    expect(written).toMatchObject({
      content: "Edited",
      helpful: 7,
      harmful: 2,
      neutral: 1,
      status: "invalid",
      embedding: null,
      sources: [],
    });
  });

  it("refuses two sections with one name or two bullets with one id, which kayba's maps cannot hold", () => {
    const twice: PlaybookDocument = {
      sections: [
        { name: "a", slug: "a", bullets: [] },
        { name: "a", slug: "a", bullets: [] },
      ],
      hints: {},
    };
    expect(() => serializeKayba(twice)).toThrow(/two sections are named "a"/);
    const bullet: BulletDoc = { id: "a-00001", content: "x", counters: null, status: "active" };
    const sameId: PlaybookDocument = {
      sections: [
        { name: "a", slug: "a", bullets: [bullet] },
        { name: "b", slug: "b", bullets: [bullet] },
      ],
      hints: {},
    };
    expect(() => serializeKayba(sameId)).toThrow(/two bullets have the id "a-00001"/);
  });
});

describe("kayba → ace → kayba", () => {
  it("keeps what the text format can hold: ids, sections, order, content, helpful and harmful", () => {
    const original = parseKayba(FIXTURE);
    const viaText = parseKayba(serializeKayba(parseAceText(serializeAceText(original, "ace"), "ace")));
    const held = (doc: PlaybookDocument) =>
      doc.sections.map((s) => ({
        name: s.name,
        bullets: s.bullets.map((b) => ({ id: b.id, content: b.content, helpful: b.counters?.helpful, harmful: b.counters?.harmful })),
      }));
    expect(held(viaText)).toEqual(held(original));
    expect(viaText.lastIdNumber).toBe(original.lastIdNumber);
    // Justification, evidence, neutral counts and timestamps have no place in the text format.
    expect(allBullets(viaText)[0]?.justification).toBeUndefined();
    expect(allBullets(viaText)[0]?.createdAt).toBeUndefined();
  });
});

describe("malformed kayba JSON", () => {
  const skills = { "a-00001": skill("a-00001", "a") };
  const cases: { title: string; text: string; message: string }[] = [
    {
      title: "text that is not JSON",
      text: '{\n  "skills": {\n    "a": }\n}',
      message: `Line 3, column 10: not valid JSON: unexpected "}"`,
    },
    { title: "truncated JSON", text: '{"skills": {', message: "Line 1, column 13: not valid JSON: the text ends too early" },
    { title: "a top level that is not an object", text: "[1, 2]", message: "$: expected a JSON object, found an array" },
    {
      title: "no skills or bullets map",
      text: asPython({ sections: {} }),
      message: `$: expected a "skills" object (older files: "bullets") mapping ids to skills, found neither`,
    },
    {
      title: "skills that are not a map",
      text: asPython({ skills: [] }),
      message: "skills: expected an object mapping ids to skills, found an array",
    },
    {
      title: "a skill without content",
      text: asPython({ skills: { x: { id: "x", section: "a" } } }),
      message: "skills.x.content: expected a string, found nothing",
    },
    {
      title: "a skill with non-string content",
      text: asPython({ skills: { "abc-00001": skill("abc-00001", "a", { content: 3 }) } }),
      message: `skills["abc-00001"].content: expected a string, found 3`,
    },
    {
      title: "a counter given as a string",
      text: asPython({ skills: { "abc-00001": skill("abc-00001", "a", { helpful: "3" }) } }),
      message: `skills["abc-00001"].helpful: expected a whole number ≥ 0, found "3"`,
    },
    {
      title: "a negative counter",
      text: asPython({ skills: { "abc-00001": skill("abc-00001", "a", { harmful: -1 }) } }),
      message: `skills["abc-00001"].harmful: expected a whole number ≥ 0, found -1`,
    },
    {
      title: "a fractional counter",
      text: asPython({ skills: { "abc-00001": skill("abc-00001", "a", { neutral: 1.5 }) } }),
      message: `skills["abc-00001"].neutral: expected a whole number ≥ 0, found 1.5`,
    },
    {
      title: "a key that is not the object's id",
      text: asPython({ skills: { "a-00001": skill("a-00002", "a") } }),
      message: `skills["a-00001"].id: expected "a-00001", the key the skill is stored under, found "a-00002"`,
    },
    {
      title: "a section listing that is not a list",
      text: asPython({ skills, sections: { a: "a-00001" } }),
      message: `sections.a: expected a list of skill ids, found "a-00001"`,
    },
    {
      title: "a next_id that is not a count",
      text: asPython({ skills, sections: { a: ["a-00001"] }, next_id: "6" }),
      message: `next_id: expected a whole number ≥ 0, found "6"`,
    },
  ];

  for (const { title, text, message } of cases) {
    it(`rejects ${title}`, () => {
      const error = failureOf(text);
      expect(error.message).toBe(message);
      expect(error.format).toBe("kayba");
    });
  }

  it("gives the JSON path and the problem as separate fields", () => {
    const error = failureOf(asPython({ skills: { "abc-00001": skill("abc-00001", "a", { helpful: "3" }) } }));
    expect(error.path).toBe(`skills["abc-00001"].helpful`);
    expect(error.problem).toBe(`expected a whole number ≥ 0, found "3"`);
    expect(error.line).toBeUndefined();
  });
});

// Issue 12, items 6-9: skillbooks kayba's own code writes.
describe("skillbooks kayba writes in ordinary use", () => {
  /** A skill as kayba 0.9.3 and later write it: no counters, no embedding key when it has none. */
  const current = (id: string, section: string, fields: Record<string, unknown> = {}) => ({
    id,
    section,
    content: `content of ${id}`,
    justification: null,
    evidence: null,
    created_at: "2026-04-12T10:00:00.000001+00:00",
    updated_at: "2026-04-12T10:00:00.000002+00:00",
    status: "active",
    sources: [],
    ...fields,
  });

  it("imports ids with a space or a bracket and sections with no name or a line break, refusing only a text export", () => {
    const text = asPython({
      skills: {
        "my skill": current("my skill", "tools"),
        "a]b": current("a]b", "tools"),
        "x-00003": current("x-00003", ""),
        "m-00004": current("m-00004", "multi\nline"),
      },
      sections: { tools: ["my skill", "a]b"], "": ["x-00003"], "multi\nline": ["m-00004"] },
      next_id: 0,
      similarity_decisions: {},
    });
    const doc = parseKayba(text);
    expect(doc.sections.map((s) => [s.name, s.bullets.map((b) => b.id)])).toEqual([
      ["tools", ["my skill", "a]b"]],
      ["", ["x-00003"]],
      ["multi\nline", ["m-00004"]],
    ]);
    expect(serializeKayba(doc)).toBe(text);
    expect(() => serializeAceText(doc, "ace")).toThrow(PlaybookExportError);
    expect(() => serializeAceText(doc, "ace")).toThrow(
      /bullet id "a\]b" .*section names "" and "multi\\nline" .*Export it as kayba or ACE Studio JSON/,
    );
  });

  it("imports an id add_skill listed twice in its section, keeping the first listing, and says so", () => {
    const { document, warnings } = readKayba(
      asPython({ skills: { "g-00001": current("g-00001", "general") }, sections: { general: ["g-00001", "g-00001"] }, next_id: 0 }),
    );
    expect(document.sections.map((s) => [s.name, s.bullets.map((b) => b.id)])).toEqual([["general", ["g-00001"]]]);
    expect(warnings).toEqual([
      `Skills listed again in the same section (kayba's add_skill with an id it already has does this) were kept at their first listing: "g-00001" at sections.general[1]. An export lists each skill once, in its own section.`,
    ]);
  });

  it("imports an id listed in another section than its own into its own section, as kayba shows it, and says so", () => {
    const { document, warnings } = readKayba(
      asPython({
        skills: { "g-00002": current("g-00002", "other") },
        sections: { general: ["g-00002"], other: ["g-00002"] },
        next_id: 0,
      }),
    );
    expect(document.sections.map((s) => [s.name, s.bullets.map((b) => b.id)])).toEqual([
      ["general", []],
      ["other", ["g-00002"]],
    ]);
    expect(warnings).toEqual([expect.stringContaining(`"g-00002" at sections.general[0] (its own section is "other")`)]);
  });

  it("leaves out a listing of an id that is not in skills (what a hard remove leaves behind), and says so", () => {
    const { document, warnings } = readKayba(
      asPython({ skills: { "a-00001": current("a-00001", "a") }, sections: { a: ["a-00001", "gone-00002"] }, next_id: 2 }),
    );
    expect(document.sections[0]?.bullets.map((b) => b.id)).toEqual(["a-00001"]);
    expect(warnings).toEqual([
      expect.stringMatching(/^Listings of ids that are not in skills were left out .*sections\.a\[1\] \("gone-00002"\)/),
    ]);
  });

  it('comes back byte for byte with Python\'s float spelling, ids, keys and sections like "42", and skills in their own order', () => {
    const text = [
      "{",
      '  "skills": {',
      '    "b-00002": {',
      '      "id": "b-00002",',
      '      "section": "42",',
      '      "content": "x",',
      '      "embedding": [',
      "        0.1,",
      "        1.0,",
      "        -2.5e-05,",
      "        1e-07,",
      "        12345.678,",
      "        -0.0",
      "      ],",
      '      "status": "active"',
      "    },",
      '    "42": {',
      '      "id": "42",',
      '      "section": "words",',
      '      "content": "y",',
      '      "7": "seven",',
      '      "status": "active"',
      "    }",
      "  },",
      '  "sections": {',
      '    "words": [',
      '      "42"',
      "    ],",
      '    "42": [',
      '      "b-00002"',
      "    ]",
      "  },",
      '  "next_id": 2,',
      '  "similarity_decisions": {',
      '    "42,b-00002": {',
      '      "decision": "KEEP",',
      '      "similarity_at_decision": 0.90',
      "    }",
      "  }",
      "}",
    ].join("\n");
    const doc = parseKayba(text);
    expect(doc.sections.map((s) => s.name)).toEqual(["words", "42"]);
    expect(serializeKayba(doc)).toBe(text);
    // Stored in the database as JSON (PostgreSQL jsonb reorders object keys): still the same bytes.
    const stored = jsonbLike(doc);
    expect(serializeKayba(stored)).toBe(text);
  });

  it("reads a current skillbook without counters as bullets with none, and writes it back without them", () => {
    const text = asPython({
      skills: { "a-00001": current("a-00001", "a") },
      sections: { a: ["a-00001"] },
      next_id: 1,
      similarity_decisions: {},
    });
    const doc = parseKayba(text);
    expect(allBullets(doc)[0]?.counters).toBeNull();
    expect(doc.hints.kaybaCounters).toBe(false);
    expect(serializeKayba(doc)).toBe(text);
  });

  it("writes the flavour each kayba version reads: current without counters, 0.8-0.9.2 with them, 0.6 and earlier as bullets", () => {
    const doc = parseKayba(FIXTURE);
    const first = allBullets(doc)[0];
    if (!first) throw new Error("fixture has a first bullet");
    first.status = "archived";
    const skills = JSON.parse(serializeKayba(doc, "skills"));
    expect(Object.keys(skills)).toEqual(["skills", "sections", "next_id", "similarity_decisions"]);
    expect(Object.keys(skills.skills[first.id])).toEqual([
      "id",
      "section",
      "content",
      "justification",
      "evidence",
      "created_at",
      "updated_at",
      "status",
      "sources",
    ]);
    expect(skills.skills[first.id].status).toBe("invalid");

    const counters = JSON.parse(serializeKayba(doc, "skills-counters"));
    expect(counters.skills[first.id]).toMatchObject({ helpful: 1, harmful: 0, neutral: 0, embedding: null, status: "invalid" });

    const bullets = JSON.parse(serializeKayba(doc, "bullets"));
    expect(Object.keys(bullets)).toEqual(["bullets", "sections", "next_id", "similarity_decisions"]);
    const [id, written] = Object.entries(bullets.bullets)[0] as [string, object];
    expect(Object.keys(written)).toEqual(["id", "section", "content", "helpful", "harmful", "neutral", "created_at", "updated_at"]);
    // kayba 0.5 cannot mark an archived bullet, so it is left out, from its section too.
    expect(id).not.toBe(first.id);
    expect(Object.values(bullets.sections).flat()).not.toContain(first.id);
  });

  it("writes a skillbook imported before the JSON text was kept (fields stored as values) as before", () => {
    const doc = parseKayba(FIXTURE);
    const first = allBullets(doc)[0];
    if (!first) throw new Error("fixture has a first bullet");
    const kayba = readKaybaExtra(first.extra);
    first.extra = { kayba: { ...kayba, raw: undefined, fields: { embedding: null, sources: [] } } };
    doc.hints = { ...doc.hints, kaybaExtraText: undefined, kaybaExtra: { similarity_decisions: {} }, kaybaCounters: undefined };
    expect(serializeKayba(JSON.parse(JSON.stringify(doc)))).toBe(FIXTURE);
  });
});

/** The document as PostgreSQL jsonb gives it back: object keys sorted by length, then bytes. */
function jsonbLike(doc: PlaybookDocument): PlaybookDocument {
  const sortKeys = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sortKeys);
    if (value === null || typeof value !== "object") return value;
    const entries = Object.entries(value).sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, entry]) => [key, sortKeys(entry)]));
  };
  return {
    ...doc,
    hints: sortKeys(doc.hints) as PlaybookDocument["hints"],
    sections: doc.sections.map((section) => ({
      ...section,
      bullets: section.bullets.map((bullet) => ({ ...bullet, extra: sortKeys(bullet.extra) as Record<string, unknown> })),
    })),
  };
}
