import { describe, expect, it } from "vitest";
import type { BulletState } from "../history";
import type { SimilarityIndex } from "../similarity";
import { adoptStateTokens, compiledBulletText, countBulletTokens, hasStateTokens, stateTokens } from "../tokens";
import { DeltaValidationError, applyDelta, validateDelta } from "./engine";
import { redoChanges, undoChanges } from "../replay";
import { orderedBullets } from "./state";
import { MISTAKES, STRATEGIES, bullet, samplePlaybook, testOptions } from "./test-fixtures";
import type { DeltaOperation, EngineOptions, Finding, PlaybookState } from "./types";

const apply = (ops: DeltaOperation[], state = samplePlaybook(), options = testOptions()) => applyDelta(state, ops, options);
const findingsOf = (ops: DeltaOperation[], state = samplePlaybook(), options = testOptions()) =>
  validateDelta(state, ops, options).findings;
const kinds = (findings: Finding[]) => findings.map((finding) => `${finding.operationIndex}:${finding.severity}:${finding.kind}`);
const get = (state: PlaybookState, id: string): BulletState => {
  const found = state.bullets.get(id);
  if (!found) throw new Error(`no bullet ${id}`);
  return found;
};
const readingOrder = (state: PlaybookState, sectionId: string) =>
  orderedBullets(state)
    .filter((b) => b.sectionId === sectionId)
    .map((b) => b.externalId);

/** A delta the engine only validates, and exactly what it must report, as "index:severity:kind". */
interface Report {
  title: string;
  ops: DeltaOperation[];
  state?: PlaybookState;
  options?: Partial<EngineOptions>;
  reports: string[];
  /** The message of the finding at `index`, whole (`is`) or in part (`contains`). */
  message?: { index: number; is?: string; contains?: string };
}

function expectReports({ ops, state, options, reports, message }: Report): void {
  const findings = findingsOf(ops, state ?? samplePlaybook(), testOptions(options));
  expect(kinds(findings)).toEqual(reports);
  if (message?.is !== undefined) expect(findings[message.index]?.message).toBe(message.is);
  if (message?.contains !== undefined) expect(findings[message.index]?.message).toContain(message.contains);
}

describe("add", () => {
  it("appends a bullet at the end of its section with the next number of the playbook's one counter", () => {
    const result = apply([{ type: "add", section: "strategies_and_insights", content: "Cache the access token per user." }]);
    expect(result.addedIds).toEqual(["str-00006"]);
    expect(get(result.state, "str-00006")).toEqual(bullet("str-00006", "Cache the access token per user.", { position: 4 }));
    expect(result.state.nextIdNumber).toBe(7);
    expect(result.changes).toEqual([{ entity: "bullet", id: "str-00006", before: null, after: get(result.state, "str-00006") }]);
  });

  it("numbers bullets across sections from one counter, in delta order", () => {
    const result = apply([
      { type: "add", section: "common_mistakes_to_avoid", content: "Assuming the first page holds every result." },
      { type: "add", section: "strategies_and_insights", content: "Confirm the task is complete before answering." },
    ]);
    expect(result.addedIds).toEqual(["mis-00006", "str-00007"]);
    expect(get(result.state, "mis-00006").position).toBe(1);
  });

  it("accepts a section name written with other case and spaces, and trims the content", () => {
    const result = apply([{ type: "add", section: "Strategies and Insights", content: "  Prefer exact dates.  " }]);
    expect(get(result.state, "str-00006")).toMatchObject({ sectionId: STRATEGIES.id, content: "Prefer exact dates." });
  });

  it("adds to a section created earlier in the same delta, with that section's slug", () => {
    const result = apply([
      { type: "add_section", name: "Error recovery" },
      { type: "add", section: "Error recovery", content: "Retry a timed-out request once." },
    ]);
    expect(result.addedIds).toEqual(["err-00006"]);
    expect(get(result.state, "err-00006")).toMatchObject({ sectionId: "s-new-1", position: 0 });
  });

  it("starts the bullet at the counters the add gives (an external loop's), the others at 0", () => {
    const result = apply([
      { type: "add", section: "common_mistakes_to_avoid", content: "Trusting a cached balance.", helpful: 3, harmful: 1 },
      { type: "add", section: "strategies_and_insights", content: "Cache the access token per user.", neutral: 4 },
    ]);
    expect(get(result.state, "mis-00006")).toEqual(
      bullet("mis-00006", "Trusting a cached balance.", { sectionId: MISTAKES.id, position: 1, helpful: 3, harmful: 1 }),
    );
    expect(get(result.state, "str-00007")).toMatchObject({ helpful: 0, harmful: 0, neutral: 4, countersKnown: true });
    expect(result.changes[0]).toEqual({ entity: "bullet", id: "mis-00006", before: null, after: get(result.state, "mis-00006") });
  });

  it("keeps an added bullet's counters through undo and redo of its version: undone it is gone, redone it has them again", () => {
    const before = samplePlaybook();
    const result = apply(
      [{ type: "add", section: "strategies_and_insights", content: "Log every failed call.", helpful: 2, harmful: 5 }],
      before,
    );
    const undone = undoChanges(result.state, result.changes);
    expect(undone.bullets.has("str-00006")).toBe(false);
    expect(undone.bullets).toEqual(before.bullets);
    expect(get(redoChanges(undone, result.changes), "str-00006")).toMatchObject({
      content: "Log every failed call.",
      helpful: 2,
      harmful: 5,
    });
  });

  it.each<Report>([
    {
      title: "rejects a negative starting counter, naming it",
      ops: [{ type: "add", section: "strategies_and_insights", content: "New.", harmful: -1 }],
      reports: ["0:error:invalid_counter"],
      message: { index: 0, is: 'Operation 1 (add to "strategies_and_insights"): harmful must start at a whole number from 0, not -1' },
    },
    {
      title: "rejects starting counters that are not whole numbers, each named",
      ops: [{ type: "add", section: "strategies_and_insights", content: "New.", helpful: 1.5, neutral: Number.NaN }],
      reports: ["0:error:invalid_counter", "0:error:invalid_counter"],
      message: { index: 1, contains: "neutral must start at a whole number from 0, not NaN" },
    },
    {
      title: "takes zero counters as given",
      ops: [{ type: "add", section: "strategies_and_insights", content: "New.", helpful: 0, harmful: 0, neutral: 0 }],
      reports: [],
    },
    {
      title: "rejects an unknown section, naming the sections there are",
      ops: [{ type: "add", section: "tips", content: "Anything." }],
      reports: ["0:error:unknown_section"],
      message: {
        index: 0,
        is:
          'Operation 1 (add to "tips"): there is no section "tips"; add it first with add_section or use one of ' +
          '"strategies_and_insights", "common_mistakes_to_avoid"',
      },
    },
    {
      title: "rejects empty content and content over the length limit",
      ops: [
        { type: "add", section: "strategies_and_insights", content: "   " },
        { type: "add", section: "strategies_and_insights", content: "x".repeat(41) },
        { type: "add", section: "strategies_and_insights", content: "y".repeat(40) },
      ],
      options: { maxContentLength: 40 },
      reports: ["0:error:empty_content", "1:error:content_too_long"],
      message: { index: 1, contains: "41 characters, over the limit of 40" },
    },
    {
      title: "limits content to 1000 characters by default: 1001 is too long",
      ops: [{ type: "add", section: "strategies_and_insights", content: "z".repeat(1001) }],
      reports: ["0:error:content_too_long"],
    },
    {
      title: "limits content to 1000 characters by default: 1000 is fine",
      ops: [{ type: "add", section: "strategies_and_insights", content: "z".repeat(1000) }],
      reports: [],
    },
    {
      title: "rejects an id the counter would hand out twice when the counter is behind the bullets",
      ops: [{ type: "add", section: "strategies_and_insights", content: "New." }],
      state: { ...samplePlaybook(), nextIdNumber: 2 },
      reports: ["0:error:duplicate_id"],
      message: { index: 0, contains: "[str-00002]" },
    },
  ])("$title", expectReports);
});

describe("update", () => {
  it("replaces the content and keeps id, counters and place", () => {
    const result = apply([{ type: "update", bulletId: "str-00001", content: "Read the docs of every endpoint first." }]);
    expect(get(result.state, "str-00001")).toEqual({
      ...get(samplePlaybook(), "str-00001"),
      content: "Read the docs of every endpoint first.",
    });
    expect(result.changes).toHaveLength(1);
  });

  it("moves a bullet to the end of another section", () => {
    const result = apply([{ type: "update", bulletId: "str-00001", section: "common_mistakes_to_avoid" }]);
    expect(get(result.state, "str-00001")).toMatchObject({ sectionId: MISTAKES.id, position: 1 });
    expect(readingOrder(result.state, MISTAKES.id)).toEqual(["mis-00004", "str-00001"]);
  });

  it("moves a bullet into another section at a position, shifting only the bullets after it", () => {
    const result = apply([{ type: "update", bulletId: "str-00003", section: "common_mistakes_to_avoid", position: 0 }]);
    expect(readingOrder(result.state, MISTAKES.id)).toEqual(["str-00003", "mis-00004"]);
    expect(result.changes.map((change) => change.id)).toEqual(["mis-00004", "str-00003"]);
  });

  it("reorders within its section", () => {
    const result = apply([{ type: "update", bulletId: "str-00003", position: 0 }]);
    expect(readingOrder(result.state, STRATEGIES.id)).toEqual(["str-00003", "str-00001", "str-00002", "str-00005"]);
  });

  it("counts positions among active bullets and treats a position past the end as the end", () => {
    const result = apply([{ type: "update", bulletId: "str-00001", position: 99 }]);
    const active = readingOrder(result.state, STRATEGIES.id).filter((id) => get(result.state, id).status === "active");
    expect(active).toEqual(["str-00002", "str-00003", "str-00001"]);
  });

  it("warns that an update to the same content and place changes nothing, and records no change", () => {
    const current = get(samplePlaybook(), "str-00002");
    const result = apply([{ type: "update", bulletId: "str-00002", content: current.content, position: 1 }]);
    expect(kinds(result.warnings)).toEqual(["0:warning:no_change"]);
    expect(result.changes).toEqual([]);
  });

  it("allows restore then update of the same bullet", () => {
    const result = apply([
      { type: "restore", bulletId: "str-00005" },
      { type: "update", bulletId: "str-00005", content: "Resolve relative dates in the user's timezone." },
    ]);
    expect(get(result.state, "str-00005")).toMatchObject({ status: "active", content: "Resolve relative dates in the user's timezone." });
  });

  it.each<Report>([
    {
      title: "refuses an archived bullet with advice to restore it first",
      ops: [{ type: "update", bulletId: "str-00005", content: "Check the timezone first." }],
      reports: ["0:error:archived_bullet"],
      message: {
        index: 0,
        is: "Operation 1 (update [str-00005]): the bullet [str-00005] is archived; restore it first or target another bullet",
      },
    },
    {
      title: "rejects unknown bullets, unknown sections and positions that are not whole numbers from 0",
      ops: [
        { type: "update", bulletId: "str-09999", content: "x" },
        { type: "update", bulletId: "str-00001", section: "nowhere" },
        { type: "update", bulletId: "str-00002", position: -1 },
        { type: "update", bulletId: "str-00003", position: 1.5 },
      ],
      reports: ["0:error:unknown_bullet", "1:error:unknown_section", "2:error:invalid_position", "3:error:invalid_position"],
    },
  ])("$title", expectReports);
});

describe("remove and restore", () => {
  it("remove archives the bullet with the reason and keeps it in the state", () => {
    const result = apply([{ type: "remove", bulletId: "str-00002", reason: "Superseded by the paging helper." }]);
    expect(get(result.state, "str-00002")).toMatchObject({ status: "archived", archivedReason: "Superseded by the paging helper." });
  });

  it("restore makes an archived bullet active and clears its reason and merge target", () => {
    const merged = samplePlaybook();
    const state: PlaybookState = {
      ...merged,
      bullets: new Map(merged.bullets).set("str-00005", { ...get(merged, "str-00005"), mergedInto: "str-00001" }),
    };
    const result = apply([{ type: "restore", bulletId: "str-00005" }], state);
    expect(get(result.state, "str-00005")).toMatchObject({ status: "active", archivedReason: null, mergedInto: null });
  });

  it.each<Report>([
    {
      title: "remove needs a reason and an active bullet",
      ops: [
        { type: "remove", bulletId: "str-00002", reason: "  " },
        { type: "remove", bulletId: "str-00005", reason: "Again." },
      ],
      reports: ["0:error:empty_content", "1:error:archived_bullet"],
    },
    { title: "restore refuses an active bullet", ops: [{ type: "restore", bulletId: "str-00001" }], reports: ["0:error:not_archived"] },
  ])("$title", expectReports);
});

describe("merge", () => {
  it("gives the kept bullet the merged content and the counters summed over all, and archives the sources", () => {
    const result = apply([
      { type: "merge", bulletIds: ["str-00002", "mis-00004"], into: "str-00001", content: "Read the docs, then page through results." },
    ]);
    expect(get(result.state, "str-00001")).toMatchObject({
      content: "Read the docs, then page through results.",
      helpful: 6,
      harmful: 4,
      neutral: 2,
      countersKnown: true,
      status: "active",
    });
    for (const id of ["str-00002", "mis-00004"]) {
      expect(get(result.state, id)).toMatchObject({
        status: "archived",
        mergedInto: "str-00001",
        archivedReason: "Merged into [str-00001]",
      });
    }
    expect(result.changes.map((change) => change.id)).toEqual(["str-00001", "str-00002", "mis-00004"]);
  });

  it("accepts the kept bullet inside bulletIds and a custom reason", () => {
    const result = apply([
      { type: "merge", bulletIds: ["str-00001", "str-00002"], into: "str-00001", content: "Merged.", reason: "Same advice." },
    ]);
    expect(get(result.state, "str-00001").status).toBe("active");
    expect(get(result.state, "str-00002")).toMatchObject({ archivedReason: "Same advice.", mergedInto: "str-00001" });
  });

  it("keeps counters unknown only when no merged bullet had known counters", () => {
    const base = samplePlaybook();
    const unknown = (id: string) => ({ ...get(base, id), countersKnown: false, helpful: 0, harmful: 0, neutral: 0 });
    const state: PlaybookState = { ...base, bullets: new Map(base.bullets).set("str-00002", unknown("str-00002")) };
    const allUnknown = apply([{ type: "merge", bulletIds: ["str-00002"], into: "str-00003", content: "Both." }], state);
    expect(get(allUnknown.state, "str-00003").countersKnown).toBe(false);
    const someKnown = apply([{ type: "merge", bulletIds: ["str-00001"], into: "str-00003", content: "Both." }], state);
    expect(get(someKnown.state, "str-00003")).toMatchObject({ countersKnown: true, helpful: 4, harmful: 1, neutral: 2 });
  });

  it("warns about a bullet listed twice and merges it once", () => {
    const result = apply([{ type: "merge", bulletIds: ["str-00002", "str-00002"], into: "str-00001", content: "Merged." }]);
    expect(kinds(result.warnings)).toEqual(["0:warning:duplicate_id"]);
    expect(get(result.state, "str-00001").helpful).toBe(6);
  });

  it.each<Report>([
    {
      title: "rejects an archived kept bullet",
      ops: [{ type: "merge", bulletIds: ["str-00002"], into: "str-00005", content: "x" }],
      reports: ["0:error:archived_bullet"],
    },
    {
      title: "rejects an unknown merged bullet",
      ops: [{ type: "merge", bulletIds: ["str-00009"], into: "str-00001", content: "x" }],
      reports: ["0:error:unknown_bullet"],
    },
  ])("$title", expectReports);
});

describe("tag", () => {
  it("adds the increments to the counters", () => {
    const result = apply([{ type: "tag", bulletId: "str-00001", helpful: 2, harmful: -1, neutral: 1 }]);
    expect(get(result.state, "str-00001")).toMatchObject({ helpful: 6, harmful: 0, neutral: 3 });
  });

  it("makes the counters of a bullet imported without them known", () => {
    const result = apply([{ type: "tag", bulletId: "str-00003", harmful: 1 }]);
    expect(get(result.state, "str-00003")).toMatchObject({ countersKnown: true, harmful: 1 });
  });

  it("counts on archived bullets too", () => {
    const result = apply([{ type: "tag", bulletId: "str-00005", harmful: 1 }]);
    expect(get(result.state, "str-00005").harmful).toBe(1);
  });

  it.each<Report>([
    {
      title: "rejects a tag that would take a counter below zero",
      ops: [{ type: "tag", bulletId: "str-00001", harmful: -2 }],
      reports: ["0:error:negative_counter"],
      message: { index: 0, is: "Operation 1 (tag [str-00001]): harmful would drop to -1 (it is 1); a counter cannot go below 0" },
    },
    {
      title: "rejects increments that are not whole numbers",
      ops: [{ type: "tag", bulletId: "str-00001", helpful: 0.5 }],
      reports: ["0:error:invalid_counter"],
    },
    { title: "warns about a tag that changes nothing", ops: [{ type: "tag", bulletId: "str-00001" }], reports: ["0:warning:no_change"] },
  ])("$title", expectReports);
});

describe("sections", () => {
  it("add_section appends a section with the injected id and the default slug", () => {
    const result = apply([{ type: "add_section", name: "Error recovery" }]);
    const added = { id: "s-new-1", name: "Error recovery", slug: "err", position: 2 };
    expect(result.state.sections.at(-1)).toEqual(added);
    expect(result.changes).toEqual([{ entity: "section", id: "s-new-1", before: null, after: added }]);
  });

  it("add_section takes the ACE slug of a default section name and a given slug", () => {
    const result = apply([
      { type: "add_section", name: "formulas_and_calculations" },
      { type: "add_section", name: "Tool choice", slug: "tool" },
    ]);
    expect(result.state.sections.slice(2).map((section) => section.slug)).toEqual(["cal", "tool"]);
  });

  it("rename_section renames", () => {
    const result = apply([{ type: "rename_section", section: "common_mistakes_to_avoid", name: "Pitfalls" }]);
    expect(result.state.sections[1]).toEqual({ ...MISTAKES, name: "Pitfalls" });
  });

  it("move_section reorders sections, moving only the sections it must", () => {
    const result = apply([
      { type: "add_section", name: "Error recovery" },
      { type: "move_section", section: "Error recovery", position: 0 },
    ]);
    expect(result.state.sections.map((section) => section.name)).toEqual([
      "Error recovery",
      "strategies_and_insights",
      "common_mistakes_to_avoid",
    ]);
  });

  it.each<Report>([
    {
      title: "add_section rejects a name in use (in any case), an empty name and a slug ids cannot carry",
      ops: [
        { type: "add_section", name: "Strategies And Insights" },
        { type: "add_section", name: "  " },
        { type: "add_section", name: "Odd", slug: "a]b" },
      ],
      reports: ["0:error:section_exists", "1:error:invalid_name", "2:error:invalid_slug"],
    },
    {
      title: "rename_section refuses a section there is not",
      ops: [{ type: "rename_section", section: "Pitfalls", name: "x" }],
      reports: ["0:error:unknown_section"],
    },
    {
      title: "rename_section refuses a name in use",
      ops: [{ type: "rename_section", section: "s-mis", name: "strategies_and_insights" }],
      reports: ["0:error:section_exists"],
    },
    {
      title: "rename_section warns when the name is the same",
      ops: [{ type: "rename_section", section: "s-mis", name: "common_mistakes_to_avoid" }],
      reports: ["0:warning:no_change"],
    },
    {
      title: "move_section warns when the section is already at that place",
      ops: [{ type: "move_section", section: "strategies_and_insights", position: 0 }],
      reports: ["0:warning:no_change"],
    },
  ])("$title", expectReports);
});

describe("deleting a section", () => {
  const withEmpty = () => apply([{ type: "add_section", name: "Verification" }]).state;

  it("deletes an empty section as a change with no after, which undoing brings back", () => {
    const before = withEmpty();
    const result = apply([{ type: "remove_section", section: "verification" }], before);
    expect(result.state.sections.map((section) => section.name)).toEqual(["strategies_and_insights", "common_mistakes_to_avoid"]);
    expect(result.changes).toEqual([{ entity: "section", id: "s-new-1", before: before.sections[2], after: null }]);
    expect(undoChanges(result.state, result.changes).sections).toEqual(before.sections);
  });

  it.each<Report>([
    {
      title: "refuses a section with active bullets, saying what to do",
      ops: [{ type: "remove_section", section: "common_mistakes_to_avoid" }],
      reports: ["0:error:section_not_empty"],
      message: { index: 0, contains: "the section still has 1 active bullet; move or archive it first" },
    },
    {
      title: "refuses a section that holds only archived bullets: they keep it as their history",
      ops: [
        { type: "remove", bulletId: "mis-00004", reason: "Old." },
        { type: "remove_section", section: "common_mistakes_to_avoid" },
      ],
      reports: ["1:error:section_not_empty"],
      message: { index: 0, contains: "holds 1 archived bullet, which keeps it as part of its history" },
    },
    {
      title: "names an unknown section",
      ops: [{ type: "remove_section", section: "Nowhere" }],
      reports: ["0:error:unknown_section"],
    },
    {
      title: "is a contradiction with a rename of the same section",
      ops: [
        { type: "add_section", name: "Verification" },
        { type: "rename_section", section: "Verification", name: "Checks" },
        { type: "remove_section", section: "Verification" },
      ],
      reports: ["2:error:unknown_section", "2:error:contradiction"],
    },
  ])("$title", expectReports);

  it("leaves nothing behind for a section added and deleted by the same delta", () => {
    const result = apply([
      { type: "add_section", name: "Scratch" },
      { type: "remove_section", section: "Scratch" },
    ]);
    expect(result.changes).toEqual([]);
    expect(result.state.sections).toHaveLength(2);
  });

  it("lets a section emptied by a move earlier in the delta be deleted", () => {
    const result = apply([
      { type: "update", bulletId: "mis-00004", section: "strategies_and_insights" },
      { type: "remove_section", section: "common_mistakes_to_avoid" },
    ]);
    expect(result.state.sections.map((section) => section.name)).toEqual(["strategies_and_insights"]);
  });
});

describe("contradictions", () => {
  const cases: { title: string; ops: DeltaOperation[] }[] = [
    {
      title: "update then remove of one bullet",
      ops: [
        { type: "update", bulletId: "str-00001", content: "Edited." },
        { type: "remove", bulletId: "str-00001", reason: "Gone." },
      ],
    },
    {
      title: "remove then update of one bullet",
      ops: [
        { type: "remove", bulletId: "str-00001", reason: "Gone." },
        { type: "update", bulletId: "str-00001", section: "common_mistakes_to_avoid" },
      ],
    },
    {
      title: "remove and merge of the same bullet as a source",
      ops: [
        { type: "remove", bulletId: "str-00002", reason: "Gone." },
        { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Merged." },
      ],
    },
    {
      title: "a merge whose kept bullet is also removed",
      ops: [
        { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Merged." },
        { type: "remove", bulletId: "str-00001", reason: "Gone." },
      ],
    },
    {
      title: "remove and restore of one bullet",
      ops: [
        { type: "restore", bulletId: "str-00005" },
        { type: "remove", bulletId: "str-00005", reason: "Again." },
      ],
    },
    {
      title: "two removes of one bullet",
      ops: [
        { type: "remove", bulletId: "str-00001", reason: "One." },
        { type: "remove", bulletId: "str-00001", reason: "Two." },
      ],
    },
    {
      title: "two updates with different content",
      ops: [
        { type: "update", bulletId: "str-00001", content: "First." },
        { type: "update", bulletId: "str-00001", content: "Second." },
      ],
    },
    {
      title: "two updates moving one bullet to different places",
      ops: [
        { type: "update", bulletId: "str-00001", position: 2 },
        { type: "update", bulletId: "str-00001", section: "common_mistakes_to_avoid" },
      ],
    },
    {
      title: "an update of a merge source",
      ops: [
        { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Merged." },
        { type: "update", bulletId: "str-00002", content: "Edited." },
      ],
    },
    {
      title: "an update of a merge's kept bullet's content",
      ops: [
        { type: "update", bulletId: "str-00001", content: "Edited." },
        { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Merged." },
      ],
    },
    {
      title: "a tag of a merge source",
      ops: [
        { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Merged." },
        { type: "tag", bulletId: "str-00002", helpful: 1 },
      ],
    },
    {
      title: "a bullet merged away by two merges",
      ops: [
        { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Merged." },
        { type: "merge", bulletIds: ["str-00002"], into: "str-00003", content: "Merged too." },
      ],
    },
    {
      title: "a merge into a bullet another merge archives",
      ops: [
        { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Merged." },
        { type: "merge", bulletIds: ["str-00001"], into: "str-00003", content: "Merged too." },
      ],
    },
    {
      title: "two merges into one bullet",
      ops: [
        { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Merged." },
        { type: "merge", bulletIds: ["str-00003"], into: "str-00001", content: "Merged too." },
      ],
    },
    {
      title: "two renames of one section to different names",
      ops: [
        { type: "rename_section", section: "common_mistakes_to_avoid", name: "Pitfalls" },
        { type: "rename_section", section: "common_mistakes_to_avoid", name: "Traps" },
      ],
    },
    {
      title: "two moves of one section to different positions",
      ops: [
        { type: "move_section", section: "common_mistakes_to_avoid", position: 0 },
        { type: "move_section", section: "common_mistakes_to_avoid", position: 5 },
      ],
    },
  ];

  it.each(cases)("$title is a contradiction reported on the later operation", ({ ops }) => {
    const contradictions = findingsOf(ops).filter((finding) => finding.kind === "contradiction");
    expect(contradictions).toHaveLength(1);
    expect(contradictions[0]).toMatchObject({ operationIndex: 1, relatedOperationIndex: 0, severity: "error" });
    expect(contradictions[0]?.message).toMatch(/^Operation 2 \(.+\): contradicts operation 1 \(.+\): .+; keep one of them$/);
    expect(() => apply(ops)).toThrow(DeltaValidationError);
  });

  const allowed: { title: string; ops: DeltaOperation[] }[] = [
    {
      title: "a tag and a remove of one bullet",
      ops: [
        { type: "tag", bulletId: "str-00001", harmful: 1 },
        { type: "remove", bulletId: "str-00001", reason: "Harmful." },
      ],
    },
    {
      title: "a tag and a content update of one bullet",
      ops: [
        { type: "update", bulletId: "str-00001", content: "Edited." },
        { type: "tag", bulletId: "str-00001", helpful: 1 },
      ],
    },
    {
      title: "a move of a merge's kept bullet",
      ops: [
        { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Merged." },
        { type: "update", bulletId: "str-00001", section: "common_mistakes_to_avoid" },
      ],
    },
    {
      title: "a content update and a move of one bullet in two operations",
      ops: [
        { type: "update", bulletId: "str-00001", content: "Edited." },
        { type: "update", bulletId: "str-00001", section: "common_mistakes_to_avoid" },
      ],
    },
    {
      title: "a rename and a move of one section",
      ops: [
        { type: "rename_section", section: "common_mistakes_to_avoid", name: "Pitfalls" },
        { type: "move_section", section: "Pitfalls", position: 0 },
      ],
    },
  ];

  it.each(allowed)("$title is no contradiction", ({ ops }) => {
    expect(findingsOf(ops).filter((finding) => finding.severity === "error")).toEqual([]);
    expect(() => apply(ops)).not.toThrow();
  });

  it("two updates with the same content are no contradiction; the second is a no-op", () => {
    const ops: DeltaOperation[] = [
      { type: "update", bulletId: "str-00001", content: "Same." },
      { type: "update", bulletId: "str-00001", content: "Same." },
    ];
    expect(kinds(findingsOf(ops))).toEqual(["1:warning:no_change"]);
  });
});

describe("near-duplicates", () => {
  const paging = "Paginate through every page of results until a page comes back empty!";

  it("warns when an added bullet nearly repeats an active one and suggests merging into it; the delta still applies", () => {
    const result = apply([{ type: "add", section: "common_mistakes_to_avoid", content: paging }]);
    const [warning] = result.warnings;
    expect(warning).toMatchObject({ kind: "near_duplicate", severity: "warning", matchedBulletId: "str-00002" });
    expect(warning?.similarity).toBeGreaterThanOrEqual(0.85);
    expect(warning?.suggestion).toEqual({ type: "merge", bulletIds: ["str-00002"], into: "str-00002", content: paging });
    expect(warning?.message).toMatch(/^Operation 1 \(add to "common_mistakes_to_avoid"\): the content is \d+% similar to \[str-00002\]/);
    expect(result.addedIds).toEqual(["mis-00006"]);
  });

  it("compares an updated bullet with the others but not with itself, and suggests merging the two", () => {
    expect(findingsOf([{ type: "update", bulletId: "str-00002", content: paging }])).toEqual([]);
    const [warning] = findingsOf([{ type: "update", bulletId: "str-00003", content: paging }]);
    expect(warning?.suggestion).toEqual({ type: "merge", bulletIds: ["str-00003", "str-00002"], into: "str-00002", content: paging });
  });

  it("reports a duplicate of a bullet added earlier in the same delta as a duplicate of that operation, with no merge", () => {
    const content = "Log the request id of every failed call for later debugging.";
    const findings = findingsOf([
      { type: "add", section: "strategies_and_insights", content },
      { type: "add", section: "common_mistakes_to_avoid", content: `${content} ` },
    ]);
    expect(findings).toEqual([
      {
        operationIndex: 1,
        severity: "warning",
        kind: "near_duplicate",
        relatedOperationIndex: 0,
        similarity: 1,
        message:
          'Operation 2 (add to "common_mistakes_to_avoid"): the content duplicates operation #1 (add to "strategies_and_insights"), ' +
          `100% similar to what it writes ("${content}"); drop this operation or that one`,
      },
    ]);
    // Neither a bullet id the playbook lacks nor a merge into one.
    expect(findings[0]).not.toHaveProperty("matchedBulletId");
    expect(findings[0]).not.toHaveProperty("suggestion");
  });

  it("names the bullet a new one resembles only when the playbook has it, and the earlier operation as well", () => {
    const similar = "Paginate through every page of results until a page comes back empty, always.";
    const findings = findingsOf([
      { type: "add", section: "strategies_and_insights", content: paging },
      { type: "add", section: "common_mistakes_to_avoid", content: similar },
    ]);
    const second = findings.filter((finding) => finding.operationIndex === 1);
    expect(second).toMatchObject([
      { kind: "near_duplicate", matchedBulletId: "str-00002", suggestion: { into: "str-00002" } },
      { kind: "near_duplicate", relatedOperationIndex: 0 },
    ]);
    const ids = findings.flatMap((finding) => [
      finding.matchedBulletId,
      finding.suggestion?.into,
      ...(finding.suggestion?.bulletIds ?? []),
    ]);
    expect(ids.filter((id) => id !== undefined && !samplePlaybook().bullets.has(id))).toEqual([]);
  });

  it("treats a bullet an earlier operation rewrote as that operation's, not as a merge target", () => {
    const rewritten = "Cache every access token per user and refresh it before it expires.";
    const findings = findingsOf([
      { type: "update", bulletId: "str-00003", content: rewritten },
      { type: "add", section: "common_mistakes_to_avoid", content: rewritten },
    ]);
    expect(findings).toMatchObject([{ operationIndex: 1, kind: "near_duplicate", relatedOperationIndex: 0 }]);
    expect(findings[0]?.suggestion).toBeUndefined();
  });

  it.each<Report>([
    {
      title: "ignores archived bullets",
      ops: [{ type: "add", section: "strategies_and_insights", content: get(samplePlaybook(), "str-00005").content }],
      reports: [],
    },
    {
      title: "ignores bullets archived earlier in the delta",
      ops: [
        { type: "remove", bulletId: "str-00002", reason: "Old." },
        { type: "add", section: "strategies_and_insights", content: paging },
      ],
      reports: [],
    },
    {
      title: "ignores a merge's own sources",
      ops: [{ type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: paging }],
      reports: [],
    },
  ])("$title", expectReports);

  function fixedScoreIndex(score: number): SimilarityIndex {
    const index: SimilarityIndex = {
      size: 1,
      add: () => undefined,
      remove: () => undefined,
      has: () => true,
      query: (_content, { threshold }) => (score >= threshold ? [{ bulletId: "str-00001", score }] : []),
      compare: () => 0,
      empty: () => fixedScoreIndex(0),
    };
    return index;
  }

  it("counts a score exactly at the threshold as a duplicate and one just below as not", () => {
    const op: DeltaOperation = { type: "add", section: "strategies_and_insights", content: "Anything at all." };
    const at = findingsOf([op], samplePlaybook(), testOptions({ similarity: fixedScoreIndex(0.85) }));
    expect(at).toMatchObject([{ kind: "near_duplicate", similarity: 0.85, matchedBulletId: "str-00001" }]);
    const below = findingsOf([op], samplePlaybook(), testOptions({ similarity: fixedScoreIndex(0.8499999) }));
    expect(below).toEqual([]);
    const custom = findingsOf([op], samplePlaybook(), testOptions({ similarity: fixedScoreIndex(0.7), similarityThreshold: 0.7 }));
    expect(kinds(custom)).toEqual(["0:warning:near_duplicate"]);
  });

  it("asks for an index given as a function only when an operation searches, and never above a threshold of 1", () => {
    let built = 0;
    const lazy = () => {
      built += 1;
      return fixedScoreIndex(0.9);
    };
    const add: DeltaOperation = { type: "add", section: "strategies_and_insights", content: "Anything at all." };
    const tag: DeltaOperation = { type: "tag", bulletId: "str-00001", helpful: 1 };

    expect(findingsOf([tag], samplePlaybook(), testOptions({ similarity: lazy }))).toEqual([]);
    expect(built).toBe(0);
    const found = findingsOf([add, { ...add, content: "Anything else." }], samplePlaybook(), testOptions({ similarity: lazy }));
    expect(found).toMatchObject([{ kind: "near_duplicate", matchedBulletId: "str-00001" }, { kind: "near_duplicate" }]);
    expect(built).toBe(1);
    // A reviewer's approval: a threshold no score reaches searches nothing and builds nothing.
    expect(findingsOf([add], samplePlaybook(), testOptions({ similarity: lazy, similarityThreshold: Number.POSITIVE_INFINITY }))).toEqual(
      [],
    );
    expect(built).toBe(1);
  });
});

describe("token budget", () => {
  const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

  it("flags the operation that takes the active bullets over the budget, once, without blocking", () => {
    const options = testOptions({ tokenBudget: 70, countTokens: words });
    // The sample's four active bullets take 58 words as compiled lines (42 of content, and 4 per line
    // for "[id] helpful=H harmful=K ::"): 64, then 71, then 79.
    const result = apply(
      [
        { type: "add", section: "strategies_and_insights", content: "Two words." },
        { type: "add", section: "strategies_and_insights", content: "Three more words." },
        { type: "add", section: "strategies_and_insights", content: "And four more words." },
      ],
      samplePlaybook(),
      options,
    );
    expect(kinds(result.warnings)).toEqual(["1:warning:token_budget"]);
    expect(result.warnings[0]?.message).toContain("71 tokens of the compiled playbook, over its budget of 70");
  });

  // The sample's active bullets as compiled lines, in characters; a tag from helpful=2 to helpful=10 adds one.
  const characters = (text: string) => text.length;
  const compiledCharacters = [...samplePlaybook().bullets.values()]
    .filter((bullet) => bullet.status === "active")
    .reduce((sum, bullet) => sum + compiledBulletText(bullet).length, 0);
  const lengtheningTag: DeltaOperation = { type: "tag", bulletId: "str-00002", helpful: 8 };

  it.each<Report>([
    {
      title: "counts the bullets' lines with their counters, so a tag that lengthens a line past the budget counts",
      ops: [lengtheningTag],
      options: { tokenBudget: compiledCharacters, countTokens: characters },
      reports: ["0:warning:token_budget"],
    },
    {
      title: "counts the bullets' lines with their counters, so a tag that lengthens a line up to the budget is fine",
      ops: [lengtheningTag],
      options: { tokenBudget: compiledCharacters + 1, countTokens: characters },
      reports: [],
    },
    {
      title: "uses the caller's count of the state and credits removals",
      ops: [
        { type: "remove", bulletId: "str-00001", reason: "Old." },
        { type: "add", section: "strategies_and_insights", content: "Five words fit in here." },
      ],
      options: { tokenBudget: 100, countTokens: words, stateTokenCount: 99 },
      reports: [],
    },
    {
      title: "counts with the real tokenizer by default",
      ops: [{ type: "add", section: "strategies_and_insights", content: "One more bullet." }],
      options: { tokenBudget: 10 },
      reports: ["0:warning:token_budget"],
    },
  ])("$title", expectReports);

  it("leaves the default count with the bullet states it wrote, for the version's figures and rows to read", () => {
    const result = apply(
      [{ type: "add", section: "strategies_and_insights", content: "One more bullet." }],
      samplePlaybook(),
      testOptions({ tokenBudget: 10_000 }),
    );
    const [id] = result.addedIds;
    const added = id === undefined ? undefined : result.state.bullets.get(id);
    expect(added && hasStateTokens(added)).toBe(true);
    expect(added && stateTokens(added)).toBe(added && countBulletTokens(added));
  });

  it("carries a bullet's known count to its new state when its line text stays: a move, a shift, an archival", () => {
    const state = samplePlaybook();
    const counted = (id: string) => {
      const bullet = state.bullets.get(id);
      if (!bullet) throw new Error(`no ${id}`);
      adoptStateTokens(bullet, 1_000 + Number(id.slice(-1))); // not what the tokenizer says: carried, not counted
      return bullet;
    };
    const [moved, archived, tagged] = [counted("str-00001"), counted("str-00002"), counted("str-00003")];
    const result = apply(
      [
        { type: "update", bulletId: moved.externalId, section: "common_mistakes_to_avoid" },
        { type: "remove", bulletId: archived.externalId, reason: "Obsolete" },
        { type: "tag", bulletId: tagged.externalId, helpful: 1 },
      ],
      state,
    );
    const after = (id: string) => result.state.bullets.get(id)!;
    expect(after(moved.externalId).sectionId).not.toBe(moved.sectionId);
    expect(stateTokens(after(moved.externalId))).toBe(1_001);
    expect(stateTokens(after(archived.externalId))).toBe(1_002);
    // Its counter is in its line: counted anew.
    expect(stateTokens(after(tagged.externalId))).toBe(countBulletTokens(after(tagged.externalId)));
  });
});

describe("applying a delta", () => {
  const delta: DeltaOperation[] = [
    { type: "add_section", name: "Error recovery" },
    { type: "add", section: "Error recovery", content: "Retry a timed-out request once before giving up." },
    { type: "update", bulletId: "str-00003", section: "common_mistakes_to_avoid", position: 0 },
    { type: "tag", bulletId: "str-00001", helpful: 1 },
    { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Read the docs, then page through every result." },
    { type: "remove", bulletId: "mis-00004", reason: "Covered by the login checklist." },
  ];

  it("is deterministic: equal inputs give deep-equal results", () => {
    expect(apply(delta)).toEqual(apply(delta));
  });

  it("does not change the input state", () => {
    const state = samplePlaybook();
    const before = structuredClone(state);
    apply(delta, state);
    expect(state).toEqual(before);
  });

  it("records sections first, then bullets in the order the delta first touched them, each once", () => {
    const result = apply(delta);
    expect(result.changes.map((change) => `${change.entity}:${change.id}`)).toEqual([
      "section:s-new-1",
      "bullet:err-00006",
      "bullet:mis-00004",
      "bullet:str-00003",
      "bullet:str-00001",
      "bullet:str-00002",
    ]);
    const first = result.changes.find((change) => change.id === "mis-00004");
    expect(first?.before).toEqual(get(samplePlaybook(), "mis-00004"));
    expect(first?.after).toMatchObject({ status: "archived", position: 1 });
  });

  it("is all or nothing: an invalid third operation throws, names operation 3 and leaves the input untouched", () => {
    const state = samplePlaybook();
    const before = structuredClone(state);
    const ops: DeltaOperation[] = [
      { type: "add", section: "strategies_and_insights", content: "First, a fine addition." },
      { type: "tag", bulletId: "str-00002", helpful: 1 },
      { type: "update", bulletId: "str-00005", content: "Archived, so this fails." },
      { type: "remove", bulletId: "str-00001", reason: "Fine too." },
    ];
    let error: unknown;
    try {
      apply(ops, state);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DeltaValidationError);
    const failure = error as DeltaValidationError;
    expect(failure.message).toMatch(/^Operation 3 \(update \[str-00005\]\): the bullet \[str-00005\] is archived/);
    expect(failure.findings.filter((finding) => finding.severity === "error").map((finding) => finding.operationIndex)).toEqual([2]);
    expect(failure.byOperation).toHaveLength(4);
    expect(state).toEqual(before);
  });

  it("validates each operation against the playbook as the earlier valid ones leave it", () => {
    const findings = findingsOf([
      { type: "add_section", name: "strategies_and_insights" },
      { type: "add", section: "Error recovery", content: "Retry once." },
      { type: "add_section", name: "Error recovery" },
      { type: "add", section: "Error recovery", content: "Retry once." },
    ]);
    expect(kinds(findings)).toEqual(["0:error:section_exists", "1:error:unknown_section"]);
  });

  it("counts errors in the message of the thrown error", () => {
    expect(() =>
      apply([
        { type: "restore", bulletId: "str-00001" },
        { type: "remove", bulletId: "str-00009", reason: "x" },
      ]),
    ).toThrow(/\(1 more problem in this delta\)\.$/);
  });
});
