import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PLAYBOOK_FORMATS, type PlaybookDocument, type PlaybookFormat } from "../document";
import { FORMAT_INFO, PlaybookParseError, detectFormat, parsePlaybook, serializePlaybook } from "./index";
import { PLAYBOOK_FIXTURES_DIR } from "@/server/testing/playbook-files";

const FIXTURES = PLAYBOOK_FIXTURES_DIR;
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");
// The published playbooks with bullets; round-trip.test.ts goes through every fixture.
const fixtureNames = readdirSync(FIXTURES).filter(
  (name) => /\.(txt|json)$/.test(name) && !name.endsWith(".peer.json") && fixture(name) !== "",
);

const bulletCount = (doc: PlaybookDocument) => doc.sections.reduce((sum, section) => sum + section.bullets.length, 0);

function failureOf(run: () => unknown): PlaybookParseError {
  try {
    run();
  } catch (error) {
    if (error instanceof PlaybookParseError) return error;
    throw error;
  }
  throw new Error("expected a PlaybookParseError");
}

describe("published playbooks", () => {
  it("are all found", () => {
    expect(fixtureNames.length).toBeGreaterThanOrEqual(3);
  });

  for (const name of fixtureNames) {
    it(`${name} parses and is written back byte for byte in its own format`, () => {
      const text = fixture(name);
      const { format, document } = parsePlaybook(text, "auto");
      expect(format).toBe(name.endsWith(".json") ? "kayba" : "ace-plain");
      expect(bulletCount(document)).toBeGreaterThan(0);
      expect(serializePlaybook(document, format)).toBe(text);
    });

    it(`${name} survives a trip through ACE Studio JSON byte for byte`, () => {
      const { format, document } = parsePlaybook(fixture(name), "auto");
      const viaJson = parsePlaybook(serializePlaybook(document, "json"), "auto");
      expect(viaJson.format).toBe("json");
      expect(viaJson.document).toStrictEqual(document);
      expect(serializePlaybook(viaJson.document, format)).toBe(fixture(name));
    });
  }

  it("the offline-trained AppWorld playbook has 318 bullets in 8 sections, some empty", () => {
    const { document } = parsePlaybook(fixture("ace-appworld__appworld_offline_trained_no_gt_playbook.txt"), "auto");
    expect(bulletCount(document)).toBe(318);
    expect(document.sections.map((s) => s.name)).toEqual([
      "STRATEGIES AND HARD RULES",
      "APIs TO USE FOR SPECIFIC INFORMATION",
      "USEFUL CODE SNIPPETS AND TEMPLATES",
      "COMMON MISTAKES AND CORRECT STRATEGIES",
      "PROBLEM-SOLVING HEURISTICS AND WORKFLOWS",
      "VERIFICATION CHECKLIST",
      "TROUBLESHOOTING AND PITFALLS:",
      "OTHERS",
    ]);
    expect(document.sections.filter((s) => s.bullets.length === 0).map((s) => s.name)).toEqual(["TROUBLESHOOTING AND PITFALLS:"]);
    expect(document.sections.every((s) => s.bullets.every((b) => b.counters === null))).toBe(true);
    expect(document.lastIdNumber).toBe(318);
  });

  it("the initial AppWorld playbook has 8 bullets in 8 sections, four of them empty", () => {
    const { document } = parsePlaybook(fixture("ace-appworld__appworld_initial_playbook.txt"), "auto");
    expect(bulletCount(document)).toBe(8);
    expect(document.sections.map((s) => [s.slug, s.bullets.length])).toEqual([
      ["shr", 3],
      ["api", 1],
      ["use", 0],
      ["com", 0],
      ["psw", 2],
      ["ver", 0],
      ["tro", 0],
      ["misc", 2],
    ]);
  });

  it("an AppWorld playbook exported with counters reads back with the same bullets", () => {
    const { document } = parsePlaybook(fixture("ace-appworld__appworld_initial_playbook.txt"), "auto");
    const asAce = serializePlaybook(document, "ace");
    expect(asAce).toContain("[shr-00001] helpful=0 harmful=0 :: Make sure to end code blocks with ``` followed by a newline(\\n).");
    const back = parsePlaybook(asAce, "auto");
    expect(back.format).toBe("ace");
    expect(serializePlaybook(back.document, "ace-plain")).toBe(fixture("ace-appworld__appworld_initial_playbook.txt"));
  });
});

const TRIED = "tried ACE Studio JSON, kayba JSON, ACE text and ACE text without counters";

describe("detectFormat", () => {
  const cases: [string, string, PlaybookFormat][] = [
    ["ACE Studio JSON", '{"format": "ace-studio", "formatVersion": 1}', "json"],
    ["a kayba skillbook", '{"skills": {}, "sections": {}}', "kayba"],
    ["an older kayba playbook", '  {"bullets": {}, "next_id": 0}', "kayba"],
    ["text with a counter bullet", "## A\n[a-00001] plain\n[a-00002] helpful=1 harmful=0 :: x\n", "ace"],
    ["text with counters spaced by tabs", "## A\n[a-00001] helpful=1\tharmful=0\t:: x\n", "ace"],
    ["text with counters spaced by two spaces", "## A\n[a-00001] helpful=1  harmful=0 :: x\n", "ace"],
    ["text with an indented counter bullet", "  [a-00001] helpful=1 harmful=0 :: x\n", "ace"],
    ["text without counters", "## A\n[a-00001] plain\n", "ace-plain"],
    ["text with headers only", "## A\n\n## B\n", "ace-plain"],
    ["text with a byte order mark", "\uFEFF## A\n", "ace-plain"],
  ];
  for (const [title, text, format] of cases) {
    it(`recognises ${title} as ${format}`, () => {
      expect(detectFormat(text)).toBe(format);
    });
  }

  it("says which formats it tried when none fits", () => {
    expect(failureOf(() => detectFormat("Dear team,\nhere are my notes.\n")).message).toBe(
      `not a playbook in a known format (${TRIED}): found no "## <section>" header and no "[id] …" bullet line`,
    );
    const json = failureOf(() => detectFormat('{"items": []}'));
    expect(json.message).toBe(`$: not a playbook in a known format (${TRIED}): JSON without "format": "ace-studio", "skills" or "bullets"`);
    expect(json.format).toBe("auto");
  });

  it("reports broken JSON at its line and column", () => {
    expect(failureOf(() => detectFormat('{\n  "skills": {,\n}')).message).toBe('Line 2, column 14: not valid JSON: unexpected ","');
  });

  it("takes an empty file for ACE text, an empty playbook as the peers read it, and says so on import", () => {
    expect(detectFormat(" \n")).toBe("ace");
    const { format, document, warnings } = parsePlaybook("", "auto");
    expect([format, document.sections, serializePlaybook(document, format)]).toEqual(["ace", [], ""]);
    expect(warnings).toEqual([
      "The file is empty: it was read as a playbook with no sections and no bullets, as the ACE implementations read it.",
    ]);
  });

  it("says when the guess between the text formats was close", () => {
    const { format, warnings } = parsePlaybook("## A\n[a-00001] helpful=1 harmful=0 :: x\n[see-1] the docs\n", "auto");
    expect(format).toBe("ace");
    expect(warnings[0]).toBe(
      `Read as ACE text with counters: 1 line is a bullet with counters, 1 line starts like a bullet without them ("[id] …"). ` +
        `If the file is ACE text without counters, import it with the format "ace-plain".`,
    );
    expect(parsePlaybook("## A\n[a-00001] helpful=1 harmful=0 :: x\n", "auto").warnings).toEqual([]);
  });
});

describe("parsePlaybook and serializePlaybook", () => {
  it("strip a byte order mark on parse and give it back to the text formats only", () => {
    const text = "\uFEFF## A\r\n[a-00001] helpful=2 harmful=0 :: x\r\n";
    const { format, document } = parsePlaybook(text, "auto");
    expect(format).toBe("ace");
    expect(document.hints.byteOrderMark).toBe(true);
    expect(document.sections[0]?.name).toBe("A");
    expect(serializePlaybook(document, "ace")).toBe(text);
    expect(serializePlaybook(document, "kayba").startsWith("{")).toBe(true);
    expect(serializePlaybook(document, "json").startsWith("{")).toBe(true);
  });

  it("parse in the format asked for, even when another would be detected", () => {
    const error = failureOf(() => parsePlaybook("## A\n[a-00001] plain\n", "ace"));
    expect(error.message).toBe(`Line 2: expected "helpful=<n> harmful=<n> :: <content>" after [a-00001], found "plain"`);
    expect(parsePlaybook("## A\n[a-00001] helpful=1 harmful=0 :: x\n", "ace-plain").document.sections[0]?.bullets[0]?.content).toBe(
      "helpful=1 harmful=0 :: x",
    );
  });

  it("pass includeArchived to the text formats, while the JSON formats always keep archived bullets", () => {
    const doc: PlaybookDocument = {
      sections: [
        {
          name: "A",
          slug: "a",
          bullets: [
            { id: "a-00001", content: "live", counters: null, status: "active" },
            { id: "a-00002", content: "retired", counters: null, status: "archived" },
          ],
        },
      ],
      hints: {},
    };
    expect(serializePlaybook(doc, "ace-plain")).not.toContain("retired");
    expect(serializePlaybook(doc, "ace-plain", { includeArchived: true })).toContain("[a-00002] retired");
    expect(serializePlaybook(doc, "kayba")).toContain('"status": "invalid"');
    expect(parsePlaybook(serializePlaybook(doc, "json"), "json").document).toStrictEqual({ ...doc, lastIdNumber: 2 });
  });
});

describe("FORMAT_INFO", () => {
  it("describes every format with its file extension and media type", () => {
    expect(Object.keys(FORMAT_INFO).sort()).toEqual([...PLAYBOOK_FORMATS].sort());
    expect(FORMAT_INFO.ace).toMatchObject({ extension: ".txt", mimeType: "text/plain" });
    expect(FORMAT_INFO["ace-plain"]).toMatchObject({ extension: ".txt", mimeType: "text/plain" });
    expect(FORMAT_INFO.kayba).toMatchObject({ extension: ".json", mimeType: "application/json" });
    expect(FORMAT_INFO.json).toMatchObject({ extension: ".ace.json", mimeType: "application/json" });
    for (const info of Object.values(FORMAT_INFO)) expect(info.label && info.description).toBeTruthy();
  });
});
