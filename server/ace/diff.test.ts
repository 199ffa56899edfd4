import { describe, expect, it } from "vitest";
import { applyDelta } from "./delta/engine";
import { MISTAKES, STRATEGIES, samplePlaybook, testOptions } from "./delta/test-fixtures";
import type { DeltaOperation, PlaybookState } from "./delta/types";
import { diffSequences, diffStates, diffText, movedSections } from "./diff";

const join = (segments: { kind: string; text: string }[], keep: string) =>
  segments
    .filter((segment) => segment.kind === "same" || segment.kind === keep)
    .map((segment) => segment.text)
    .join("");

describe("diffText", () => {
  it("marks the removed and added words between the same ones", () => {
    expect(diffText("Read the API docs first.", "Read the endpoint docs first.")).toEqual([
      { kind: "same", text: "Read the " },
      { kind: "removed", text: "API" },
      { kind: "added", text: "endpoint" },
      { kind: "same", text: " docs first." },
    ]);
  });

  it("gives back both texts exactly", () => {
    const before = "Paginate through every page until a page comes back empty.";
    const after = "Always paginate through every page of results until one comes back empty!";
    const segments = diffText(before, after);
    expect(join(segments, "removed")).toBe(before);
    expect(join(segments, "added")).toBe(after);
  });

  it("handles empty and equal texts", () => {
    expect(diffText("", "New bullet.")).toEqual([{ kind: "added", text: "New bullet." }]);
    expect(diffText("Old.", "")).toEqual([{ kind: "removed", text: "Old." }]);
    expect(diffText("Same.", "Same.")).toEqual([{ kind: "same", text: "Same." }]);
    expect(diffText("", "")).toEqual([]);
  });

  it("finds a shortest edit script", () => {
    const edits = diffSequences([..."ABCABBA"], [..."CBABAC"]);
    expect(edits.filter((edit) => edit.kind !== "same")).toHaveLength(5);
    expect(
      edits
        .filter((edit) => edit.kind !== "added")
        .map((edit) => edit.item)
        .join(""),
    ).toBe("ABCABBA");
    expect(
      edits
        .filter((edit) => edit.kind !== "removed")
        .map((edit) => edit.item)
        .join(""),
    ).toBe("CBABAC");
  });
});

describe("diffStates", () => {
  const apply = (state: PlaybookState, ops: DeltaOperation[]) => applyDelta(state, ops, testOptions()).state;

  it("finds nothing between equal states", () => {
    const diff = diffStates(samplePlaybook(), samplePlaybook());
    expect(diff.empty).toBe(true);
    expect(diff.sections.map((section) => section.status)).toEqual(["kept", "kept"]);
  });

  it("sorts every bullet change into its category, under the section the bullet is in now", () => {
    const from = samplePlaybook();
    const to = apply(from, [
      { type: "add", section: "strategies_and_insights", content: "Confirm the task is complete before answering." },
      { type: "update", bulletId: "str-00001", content: "Read the endpoint documentation first." },
      { type: "update", bulletId: "str-00003", section: "common_mistakes_to_avoid" },
      { type: "merge", bulletIds: ["mis-00004"], into: "str-00002", content: "Paginate, and log in as the supervisor first." },
      { type: "restore", bulletId: "str-00005" },
      { type: "tag", bulletId: "str-00005", helpful: 2, harmful: 1 },
    ]);
    const diff = diffStates(from, to);
    const [strategies, mistakes] = diff.sections;
    expect(strategies?.bullets.added.map((b) => b.externalId)).toEqual(["str-00006"]);
    expect(strategies?.bullets.edited.map((edit) => edit.id)).toEqual(["str-00001", "str-00002"]);
    expect(strategies?.bullets.edited[0]?.segments).toContainEqual({ kind: "added", text: "endpoint" });
    expect(strategies?.bullets.restored.map((b) => b.externalId)).toEqual(["str-00005"]);
    expect(strategies?.bullets.counters).toEqual([
      { id: "str-00002", helpful: 0, harmful: 3, neutral: 0 },
      { id: "str-00005", helpful: 2, harmful: 1, neutral: 0 },
    ]);
    expect(mistakes?.bullets.moved).toMatchObject([
      { bullet: { externalId: "str-00003" }, fromSectionId: STRATEGIES.id, fromSectionName: STRATEGIES.name },
    ]);
    expect(mistakes?.bullets.merged).toMatchObject([{ bullet: { externalId: "mis-00004" }, into: "str-00002" }]);
    expect(diff.totals).toMatchObject({ added: 1, edited: 2, moved: 1, merged: 1, restored: 1, counters: 2, removed: 0 });
    expect(diff.empty).toBe(false);
  });

  it("reports archived bullets with their reason and vanished bullets as removed", () => {
    const from = samplePlaybook();
    const archived = apply(from, [{ type: "remove", bulletId: "str-00002", reason: "Outdated." }]);
    const gone: PlaybookState = { ...archived, bullets: new Map([...archived.bullets].filter(([id]) => id !== "mis-00004")) };
    const diff = diffStates(from, gone);
    expect(diff.sections[0]?.bullets.removed).toMatchObject([{ bullet: { externalId: "str-00002" }, reason: "Outdated." }]);
    expect(diff.sections[1]?.bullets.removed).toMatchObject([{ bullet: { externalId: "mis-00004" }, reason: null }]);
  });

  it("reports added, renamed, moved and removed sections, removed ones after the current order", () => {
    const from = samplePlaybook();
    const changed = apply(from, [
      { type: "add_section", name: "Error recovery" },
      { type: "move_section", section: "Error recovery", position: 0 },
      { type: "rename_section", section: "strategies_and_insights", name: "Strategies" },
    ]);
    const to: PlaybookState = { ...changed, sections: changed.sections.filter((section) => section.id !== MISTAKES.id) };
    const diff = diffStates(from, to);
    expect(diff.sections.map((section) => [section.name, section.status, section.previousName, section.moved])).toEqual([
      ["Error recovery", "added", null, false],
      ["Strategies", "kept", "strategies_and_insights", false],
      ["common_mistakes_to_avoid", "removed", null, false],
    ]);
    expect(diff.totals).toMatchObject({ sectionsAdded: 1, sectionsRemoved: 1, sectionsRenamed: 1, sectionsMoved: 0 });
  });

  const movedIds = (from: PlaybookState, to: PlaybookState) =>
    diffStates(from, to)
      .sections.filter((section) => section.moved)
      .map((section) => section.name);

  it.each([
    {
      title: "moving the second section first",
      op: { section: "common_mistakes_to_avoid", position: 0 },
      moved: "common_mistakes_to_avoid",
    },
    { title: "moving the first section last", op: { section: "strategies_and_insights", position: 1 }, moved: "strategies_and_insights" },
  ])("names the section that was moved, not its neighbour, when two swap places: $title", ({ op, moved }) => {
    const from = samplePlaybook();
    const to = apply(from, [{ type: "move_section", ...op }]);
    expect(movedIds(from, to)).toEqual([moved]);
    expect(movedSections(from.sections, to.sections)).toEqual(new Set([from.sections.find((section) => section.name === moved)?.id]));
  });

  it("counts a section moved past others as one move, though the others' positions shift", () => {
    const from = apply(samplePlaybook(), [
      { type: "add_section", name: "Tools" },
      { type: "add_section", name: "Verification" },
    ]);
    const to = apply(from, [{ type: "move_section", section: "Verification", position: 1 }]);
    const repositioned = to.sections.filter(
      (section) => from.sections.find((before) => before.id === section.id)?.position !== section.position,
    );
    expect(repositioned.length).toBeGreaterThan(1);
    expect(movedIds(from, to)).toEqual(["Verification"]);
    expect(diffStates(from, to).totals.sectionsMoved).toBe(1);
  });
});
