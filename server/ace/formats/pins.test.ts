// Pins travel in ACE Studio JSON only; the other formats write pinned bullets as ordinary ones and say so.
import { describe, expect, it } from "vitest";
import type { PlaybookDocument } from "../document";
import { exportNotes, parsePlaybook, serializePlaybook } from "./index";

function documentWith(pinned: number, total = pinned): PlaybookDocument {
  return {
    sections: [
      {
        name: "strategies",
        slug: "str",
        bullets: Array.from({ length: total }, (_, index) => ({
          id: `str-${String(index + 1).padStart(5, "0")}`,
          content: `Lesson ${index + 1}.`,
          counters: { helpful: 0, harmful: 0, neutral: 0 },
          status: "active" as const,
          ...(index < pinned ? { pinned: true } : {}),
        })),
      },
    ],
    hints: {},
  };
}

describe("pins in playbook files", () => {
  it("ACE Studio JSON keeps a pin through export and import", () => {
    const text = serializePlaybook(documentWith(1, 2), "json");
    expect(text).toContain('"pinned": true');
    const read = parsePlaybook(text, "auto");
    expect(read.document.sections[0]?.bullets.map((bullet) => bullet.pinned ?? false)).toEqual([true, false]);
    expect(serializePlaybook(read.document, "json")).toBe(text);
  });

  it("the text and kayba formats drop pins, with a note saying how to keep them", () => {
    const doc = documentWith(2, 3);
    for (const format of ["ace", "ace-plain", "kayba"] as const) {
      expect(serializePlaybook(doc, format)).not.toContain("pinned");
      expect(exportNotes(doc, format)).toEqual([
        expect.stringMatching(/^2 pinned bullets written as ordinary bullets: .* Export as ACE Studio JSON to keep them\.$/),
      ]);
    }
    expect(exportNotes(doc, "json")).toEqual([]);
    expect(exportNotes(documentWith(0, 3), "ace")).toEqual([]);
  });

  it("a JSON file pinning more than 50 bullets, or an archived one, is refused at the pin", () => {
    expect(() => parsePlaybook(serializePlaybook(documentWith(51), "json"), "json")).toThrow(
      /sections\[0\]\.bullets\[50\]\.pinned: more than 50 bullets are pinned, the most a playbook may have/,
    );
    const archived = documentWith(1);
    archived.sections[0]!.bullets[0]!.status = "archived";
    expect(() => parsePlaybook(serializePlaybook(archived, "json"), "json")).toThrow(/an archived bullet cannot be pinned/);
  });
});
