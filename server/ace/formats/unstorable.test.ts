// Files no playbook can hold are refused at their line or JSON path, and a kayba file with a
// repeated key is read as kayba reads it, with a warning.
import { describe, expect, it } from "vitest";
import { parsePlaybook } from "./index";

const KAYBA = (skills: string) => `{"skills": {${skills}}, "sections": {"general": ["general-00001"]}, "next_id": 2}`;
const SKILL = `"general-00001": {"id": "general-00001", "section": "general", "content": "Check the docs first."}`;

describe("files a playbook cannot hold", () => {
  it("a NUL character in ACE text is refused at its line and column", () => {
    expect(() => parsePlaybook("## general\n[gen-00001] helpful=0 harmful=0 :: Check\u0000 the docs\n", "auto")).toThrow(
      "Line 2, column 41: a NUL character (U+0000), which no playbook can hold. Remove it",
    );
  });

  it("a lone surrogate in ACE text is refused at its line", () => {
    expect(() => parsePlaybook("## general\n\n[gen-00001] x\ud800y\n", "ace")).toThrow(/^Line 3, column 14: a lone surrogate/);
  });

  it("a \\u0000 or lone \\ud800 escape in a JSON file is refused at its JSON path", () => {
    const nul = KAYBA(`"general-00001": {"id": "general-00001", "section": "general", "content": "Check\\u0000"}`);
    expect(() => parsePlaybook(nul, "auto")).toThrow(/^skills\["general-00001"\]\.content: has a NUL character/);
    const surrogate = KAYBA(`"general-00001": {"id": "general-00001", "section": "general", "content": "x\\ud800"}`);
    expect(() => parsePlaybook(surrogate, "kayba")).toThrow(/^skills\["general-00001"\]\.content: has a lone surrogate/);
  });

  it("JSON nested 5,000 deep is refused naming where, not a stack overflow", () => {
    const deep = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
    const file = KAYBA(`${SKILL.slice(0, -1)}, "metadata": ${deep}}`);
    expect(() => parsePlaybook(file, "auto")).toThrow(
      /^skills\["general-00001"\]\.metadata\[0\]\[0\]\[0\]\[0\]\[0\]\["…"\]: is nested more than 64 levels deep/,
    );
  });

  it("a repeated key keeps its last value, as kayba reads it, and is said", () => {
    const file = `{"skills": {"general-00001": {"id": "general-00001", "section": "general", "content": "First", "content": "Last"}}, "sections": {"general": ["general-00001"]}, "next_id": 2}`;
    const { document, warnings } = parsePlaybook(file, "auto");
    expect(document.sections[0]?.bullets[0]?.content).toBe("Last");
    expect(warnings).toContain(
      'Repeated keys: "content" in skills["general-00001"]. Each keeps its last value, as kayba reads the file; an export writes each key once.',
    );
  });
});
