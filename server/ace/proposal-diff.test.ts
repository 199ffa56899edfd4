import { describe, expect, it } from "vitest";
import { applyDelta } from "./delta/engine";
import { orderedBullets } from "./delta/state";
import { MISTAKES, STRATEGIES, bullet, samplePlaybook, testOptions } from "./delta/test-fixtures";
import type { PlaybookState } from "./delta/types";
import type { PlaybookDocument, PlaybookFormat } from "./document";
import { parsePlaybook } from "./formats";
import type { BulletState } from "./history";
import { countersOfFormat, diffProposal, type ProposalDiff } from "./proposal-diff";

// The base is samplePlaybook(): str-00001..3 in strategies_and_insights, mis-00004 in
// common_mistakes_to_avoid, str-00005 archived. Its ACE text, as an external loop would have started from:
const BASE_TEXT = [
  "## strategies_and_insights",
  "[str-00001] helpful=4 harmful=1 :: Read the API documentation before calling an unfamiliar endpoint.",
  "[str-00002] helpful=2 harmful=0 :: Paginate through every page of results until a page comes back empty.",
  "[str-00003] helpful=0 harmful=0 :: Convert currency amounts to cents before doing arithmetic on them.",
  "## common_mistakes_to_avoid",
  "[mis-00004] helpful=0 harmful=3 :: Forgetting to log in as the supervisor before touching their account.",
  "",
].join("\n");

const LINE = {
  one: "[str-00001] helpful=4 harmful=1 :: Read the API documentation before calling an unfamiliar endpoint.",
  two: "[str-00002] helpful=2 harmful=0 :: Paginate through every page of results until a page comes back empty.",
  three: "[str-00003] helpful=0 harmful=0 :: Convert currency amounts to cents before doing arithmetic on them.",
  four: "[mis-00004] helpful=0 harmful=3 :: Forgetting to log in as the supervisor before touching their account.",
};

function evolved(text: string, edit: (text: string) => string = (t) => t): PlaybookDocument {
  return parsePlaybook(edit(text), "ace").document;
}

function diff(
  file: PlaybookDocument,
  options: { current?: PlaybookState; format?: PlaybookFormat; base?: PlaybookState } = {},
): ProposalDiff {
  return diffProposal({
    base: options.base ?? samplePlaybook(),
    current: options.current ?? samplePlaybook(),
    file,
    counters: countersOfFormat(options.format ?? "ace"),
    baseVersion: 7,
    source: "playbook.txt",
  });
}

/** The sample playbook with some bullets replaced: what ACE Studio did since the base version. */
function changedInStudio(...changes: BulletState[]): PlaybookState {
  const base = samplePlaybook();
  const bullets = new Map(base.bullets);
  for (const change of changes) bullets.set(change.externalId, change);
  return { ...base, bullets };
}

const sample = (id: string): BulletState => samplePlaybook().bullets.get(id) as BulletState;
const ops = (result: ProposalDiff) => result.operations.map((entry) => entry.operation);

/** Applies the proposal to the playbook as it is now, as an approval would. */
function approve(result: ProposalDiff, current = samplePlaybook()) {
  return applyDelta(current, ops(result), testOptions());
}

describe("a file unchanged since its base version", () => {
  it("proposes nothing", () => {
    const result = diff(evolved(BASE_TEXT));
    expect(result.operations).toEqual([]);
    expect(result.conflicts).toEqual([]);
    expect(result.alreadyApplied).toBe(0);
  });

  it("proposes nothing when only ACE Studio changed the playbook since, and keeps those changes", () => {
    const current = changedInStudio({ ...sample("str-00002"), content: "Paginate until an empty page.", helpful: 9 });
    expect(diff(evolved(BASE_TEXT), { current }).operations).toEqual([]);
  });
});

describe("additions", () => {
  it("adds a new bullet to its section, naming the file's id, and approving it gives the playbook's next id", () => {
    const file = evolved(
      `${BASE_TEXT.replace(LINE.three, `${LINE.three}\n[str-00042] helpful=0 harmful=0 :: Log the request id of every failed call.`)}`,
    );
    const result = diff(file);
    expect(ops(result)).toEqual([{ type: "add", section: "strategies_and_insights", content: "Log the request id of every failed call." }]);
    expect(result.operations[0]?.rationale).toBe("New in playbook.txt as [str-00042]; it gets the next id of this playbook.");
    expect(result.counts).toMatchObject({ added: 1, updated: 0, removed: 0, tagged: 0 });
    expect(approve(result).addedIds).toEqual(["str-00006"]);
  });

  it("keeps the counters the loop gave a new bullet: the add carries them and approving it starts the bullet there", () => {
    const file = evolved(`${BASE_TEXT}[mis-00009] helpful=3 harmful=1 :: Trusting a cached balance.\n`);
    const result = diff(file);
    expect(ops(result)).toEqual([
      { type: "add", section: "common_mistakes_to_avoid", content: "Trusting a cached balance.", helpful: 3, harmful: 1 },
    ]);
    expect(result.operations[0]?.rationale).toBe(
      "New in playbook.txt as [mis-00009]; it gets the next id of this playbook. It keeps its counters there (helpful=3, harmful=1).",
    );
    const approved = approve(result);
    expect(approved.addedIds).toEqual(["mis-00006"]);
    expect(approved.state.bullets.get("mis-00006")).toMatchObject({ helpful: 3, harmful: 1, neutral: 0, countersKnown: true });
  });

  it("leaves a new bullet's zero counters out of the add, as the engine's default", () => {
    const file = evolved(`${BASE_TEXT}[mis-00009] helpful=0 harmful=2 :: Trusting a cached balance.\n`);
    expect(ops(diff(file))).toEqual([
      { type: "add", section: "common_mistakes_to_avoid", content: "Trusting a cached balance.", harmful: 2 },
    ]);
  });

  it("carries a new kayba skill's helpful, harmful and neutral, and none from a skillbook without counters", () => {
    const skill = (counters: { helpful: number; harmful: number; neutral: number } | null) => ({
      id: "str-00042",
      content: "Log the request id of every failed call.",
      counters,
      status: "active" as const,
    });
    const skillbook = (counters: { helpful: number; harmful: number; neutral: number } | null): PlaybookDocument => ({
      sections: [
        {
          name: "strategies_and_insights",
          slug: "str",
          bullets: [
            ...orderedBullets(samplePlaybook())
              .filter((b) => b.sectionId === STRATEGIES.id && b.status === "active")
              .map((b) => ({ id: b.externalId, content: b.content, counters: null, status: "active" as const })),
            skill(counters),
          ],
        },
      ],
      hints: {},
    });
    const add = (counters: { helpful: number; harmful: number; neutral: number } | null) =>
      ops(diff(skillbook(counters), { format: "kayba" })).filter((op) => op.type === "add");
    expect(add({ helpful: 2, harmful: 0, neutral: 5 })).toEqual([
      { type: "add", section: "strategies_and_insights", content: "Log the request id of every failed call.", helpful: 2, neutral: 5 },
    ]);
    expect(add(null)).toEqual([{ type: "add", section: "strategies_and_insights", content: "Log the request id of every failed call." }]);
  });

  it("does not add what an active bullet already says (the change is in ACE Studio already)", () => {
    const current = changedInStudio(bullet("str-00006", "Log the request id of every failed call.", { position: 4 }));
    const file = evolved(
      `${BASE_TEXT.replace(LINE.three, `${LINE.three}\n[str-00042] helpful=0 harmful=0 :: Log the request id of every failed call.`)}`,
    );
    const result = diff(file, { current });
    expect(result.operations).toEqual([]);
    expect(result.alreadyApplied).toBe(1);
  });

  it("adds a new section, with the file's id prefix, before the bullets that go into it", () => {
    const file = evolved(`${BASE_TEXT}## tools\n[too-00007] helpful=0 harmful=0 :: Prefer the bulk endpoint for more than ten items.\n`);
    const result = diff(file);
    expect(ops(result)).toEqual([
      { type: "add_section", name: "tools", slug: "too" },
      { type: "add", section: "tools", content: "Prefer the bulk endpoint for more than ten items." },
    ]);
    expect(result.counts).toMatchObject({ sectionsAdded: 1, added: 1 });
    expect(approve(result).addedIds).toEqual(["too-00006"]);
  });
});

describe("edits, moves and removals", () => {
  it("updates the content of a bullet the file edited", () => {
    const result = diff(evolved(BASE_TEXT, (t) => t.replace("Read the API documentation", "Read the API reference")));
    expect(ops(result)).toEqual([
      { type: "update", bulletId: "str-00001", content: "Read the API reference before calling an unfamiliar endpoint." },
    ]);
    expect(result.operations[0]?.rationale).toBe("Content changed in playbook.txt.");
  });

  it("moves a bullet the file put into another section", () => {
    const file = evolved(BASE_TEXT.replace(`${LINE.three}\n`, "").replace(LINE.four, `${LINE.four}\n${LINE.three}`));
    const result = diff(file);
    expect(ops(result)).toEqual([{ type: "update", bulletId: "str-00003", section: "common_mistakes_to_avoid" }]);
    expect(result.operations[0]?.rationale).toBe('Moved in playbook.txt from "strategies_and_insights" to "common_mistakes_to_avoid".');
    expect(approve(result).state.bullets.get("str-00003")?.sectionId).toBe(MISTAKES.id);
  });

  it("removes a bullet the file no longer has, with a reason", () => {
    const result = diff(evolved(BASE_TEXT.replace(`${LINE.two}\n`, "")));
    expect(ops(result)).toEqual([{ type: "remove", bulletId: "str-00002", reason: "Not in playbook.txt: the external loop removed it." }]);
    expect(result.counts.removed).toBe(1);
  });

  it("does not remove again a bullet ACE Studio archived since", () => {
    const current = changedInStudio({ ...sample("str-00002"), status: "archived", archivedReason: "Outdated" });
    const result = diff(evolved(BASE_TEXT.replace(`${LINE.two}\n`, "")), { current });
    expect(result.operations).toEqual([]);
    expect(result.alreadyApplied).toBe(1);
  });

  it("restores an archived bullet the file has again", () => {
    const archived = "[str-00005] helpful=0 harmful=0 :: Guess dates relative to today without checking the timezone.";
    const result = diff(evolved(BASE_TEXT.replace(LINE.three, `${LINE.three}\n${archived}`)));
    expect(ops(result)).toEqual([{ type: "restore", bulletId: "str-00005" }]);
    expect(result.counts.restored).toBe(1);
    expect(approve(result).state.bullets.get("str-00005")?.status).toBe("active");
  });
});

describe("sections renamed", () => {
  it("renames a section whose bullets the file kept under another name, and moves none of them", () => {
    const result = diff(evolved(BASE_TEXT.replace("## strategies_and_insights", "## STRATEGIES & INSIGHTS")));
    expect(ops(result)).toEqual([{ type: "rename_section", section: "strategies_and_insights", name: "STRATEGIES & INSIGHTS" }]);
    expect(result.counts).toMatchObject({ sectionsRenamed: 1, updated: 0 });
    const applied = approve(result).state;
    expect(applied.sections.map((section) => section.name)).toEqual(["STRATEGIES & INSIGHTS", "common_mistakes_to_avoid"]);
  });

  it("adds a bullet under a section's old name to that section as ACE Studio renamed it", () => {
    const base = samplePlaybook();
    const current: PlaybookState = { ...base, sections: [{ ...STRATEGIES, name: "Strategies" }, MISTAKES] };
    const file = evolved(
      `${BASE_TEXT.replace(LINE.three, `${LINE.three}\n[str-00009] helpful=0 harmful=0 :: Check the order status first.`)}`,
    );
    const result = diff(file, { current });
    expect(ops(result)).toEqual([{ type: "add", section: "Strategies", content: "Check the order status first." }]);
    expect(result.conflicts).toEqual([]);
  });

  it("flags a section both sides renamed, to different names", () => {
    const base = samplePlaybook();
    const current: PlaybookState = { ...base, sections: [{ ...STRATEGIES, name: "Strategies" }, MISTAKES] };
    const result = diff(evolved(BASE_TEXT.replace("## strategies_and_insights", "## Insights")), { current });
    expect(ops(result)).toEqual([{ type: "rename_section", section: "Strategies", name: "Insights" }]);
    expect(result.conflicts).toEqual([
      {
        target: STRATEGIES.id,
        label: 'Section "Strategies"',
        message:
          'Section "strategies_and_insights" was renamed to "Strategies" in ACE Studio after version 7, and to "Insights" in playbook.txt.',
      },
    ]);
  });
});

describe("counters", () => {
  it("proposes the file's counter increments as a tag", () => {
    const result = diff(evolved(BASE_TEXT.replace(LINE.one, LINE.one.replace("helpful=4 harmful=1", "helpful=6 harmful=2"))));
    expect(ops(result)).toEqual([{ type: "tag", bulletId: "str-00001", helpful: 2, harmful: 1 }]);
    expect(result.operations[0]?.rationale).toBe("Counters in playbook.txt: helpful 4 → 6, harmful 1 → 2 since version 7.");
    expect(result.counts.tagged).toBe(1);
  });

  it("adds the file's increments to what ACE Studio counted since, and flags the bullet both sides changed", () => {
    const current = changedInStudio({ ...sample("str-00001"), helpful: 5 });
    const result = diff(evolved(BASE_TEXT.replace(LINE.one, LINE.one.replace("helpful=4", "helpful=6"))), { current });
    expect(ops(result)).toEqual([{ type: "tag", bulletId: "str-00001", helpful: 2 }]);
    expect(approve(result, current).state.bullets.get("str-00001")?.helpful).toBe(7);
    expect(result.conflicts.map((conflict) => conflict.target)).toEqual(["str-00001"]);
  });

  it("leaves the neutral counter alone for ACE text, which has none", () => {
    // str-00001 has neutral=2; the text cannot say so and parses as 0.
    const result = diff(evolved(BASE_TEXT.replace(LINE.one, LINE.one.replace("helpful=4", "helpful=5"))));
    expect(ops(result)).toEqual([{ type: "tag", bulletId: "str-00001", helpful: 1 }]);
  });

  it("leaves every counter alone for ace-plain, even where the counters differ", () => {
    const plain = [
      "## strategies_and_insights",
      "[str-00001] Read the API documentation before calling an unfamiliar endpoint.",
      "[str-00002] Paginate through every page of results until a page comes back empty.",
      "[str-00003] Convert currency amounts to cents before doing arithmetic on them.",
      "## common_mistakes_to_avoid",
      "[mis-00004] Forgetting to log in as the supervisor before touching their account.",
      "[mis-00010] Skipping the confirmation step.",
      "",
    ].join("\n");
    const parsed = parsePlaybook(plain, "ace-plain");
    const result = diff(parsed.document, { format: parsed.format });
    expect(ops(result)).toEqual([{ type: "add", section: "common_mistakes_to_avoid", content: "Skipping the confirmation step." }]);
    expect(result.operations[0]?.rationale).not.toContain("counters");
  });

  it("leaves counters alone for a kayba skillbook without counters (kayba 0.9.3 and later)", () => {
    const skillbook: PlaybookDocument = {
      sections: [
        {
          name: "strategies_and_insights",
          slug: "str",
          bullets: orderedBullets(samplePlaybook())
            .filter((b) => b.sectionId === STRATEGIES.id && b.status === "active")
            .map((b) => ({ id: b.externalId, content: b.content, counters: null, status: "active" as const })),
        },
        {
          name: "common_mistakes_to_avoid",
          slug: "mis",
          bullets: [{ id: "mis-00004", content: "Forgetting to log in as the supervisor first.", counters: null, status: "active" }],
        },
      ],
      hints: { kaybaCounters: false },
    };
    const result = diff(skillbook, { format: "kayba" });
    expect(ops(result)).toEqual([{ type: "update", bulletId: "mis-00004", content: "Forgetting to log in as the supervisor first." }]);
  });

  it("takes kayba counters with neutral when the skills carry them", () => {
    const skillbook: PlaybookDocument = {
      sections: [
        {
          name: "strategies_and_insights",
          slug: "str",
          bullets: [
            { id: "str-00001", content: sample("str-00001").content, counters: { helpful: 4, harmful: 1, neutral: 5 }, status: "active" },
          ],
        },
      ],
      hints: {},
    };
    const result = diff(skillbook, { format: "kayba" });
    expect(ops(result)).toContainEqual({ type: "tag", bulletId: "str-00001", neutral: 3 });
  });

  it("never takes a counter below 0: a decrement is cut to what the bullet has now", () => {
    const current = changedInStudio({ ...sample("mis-00004"), harmful: 1 });
    const result = diff(evolved(BASE_TEXT.replace(LINE.four, LINE.four.replace("harmful=3", "harmful=0"))), { current });
    expect(ops(result)).toEqual([{ type: "tag", bulletId: "mis-00004", harmful: -1 }]);
    expect(approve(result, current).state.bullets.get("mis-00004")?.harmful).toBe(0);
  });
});

describe("changes on both sides", () => {
  it("proposes the file's edit of a bullet ACE Studio edited too, and flags it as a conflict", () => {
    const current = changedInStudio({ ...sample("str-00001"), content: "Read the docs first." });
    const result = diff(
      evolved(BASE_TEXT, (t) => t.replace("Read the API documentation", "Read the API reference")),
      { current },
    );
    expect(ops(result)).toEqual([
      { type: "update", bulletId: "str-00001", content: "Read the API reference before calling an unfamiliar endpoint." },
    ]);
    expect(result.conflicts).toEqual([
      {
        target: "str-00001",
        label: "[str-00001]",
        message:
          "[str-00001] changed in ACE Studio after version 7 (content) and in playbook.txt (content); review it against the current bullet.",
      },
    ]);
    expect(result.operations[0]?.rationale).toBe(
      "Content changed in playbook.txt. Conflict: ACE Studio changed this bullet too after version 7 (content).",
    );
  });

  it("flags a bullet the file removed that ACE Studio edited", () => {
    const current = changedInStudio({ ...sample("str-00002"), content: "Paginate until an empty page." });
    const result = diff(evolved(BASE_TEXT.replace(`${LINE.two}\n`, "")), { current });
    expect(ops(result)).toEqual([{ type: "remove", bulletId: "str-00002", reason: "Not in playbook.txt: the external loop removed it." }]);
    expect(result.conflicts[0]?.message).toContain("(content) and in playbook.txt (removed)");
  });

  it("proposes nothing for an edit both sides made alike", () => {
    const edited = "Read the API reference before calling an unfamiliar endpoint.";
    const current = changedInStudio({ ...sample("str-00001"), content: edited });
    const result = diff(
      evolved(BASE_TEXT, (t) => t.replace("Read the API documentation", "Read the API reference")),
      { current },
    );
    expect(result.operations).toEqual([]);
    expect(result.conflicts).toEqual([]);
    expect(result.alreadyApplied).toBe(1);
  });

  it("proposes exactly the file's changes while keeping ACE Studio's edits of other bullets", () => {
    const current = changedInStudio(
      { ...sample("str-00002"), content: "Paginate until a page comes back empty.", helpful: 3 },
      bullet("str-00006", "Confirm the refund amount with the customer.", { position: 4 }),
    );
    const file = evolved(BASE_TEXT, (t) =>
      t
        .replace(LINE.one, LINE.one.replace("helpful=4", "helpful=5"))
        .replace(`${LINE.three}\n`, "")
        .replace(LINE.four, `${LINE.four}\n[mis-00011] helpful=0 harmful=0 :: Refunding twice.`),
    );
    const result = diff(file, { current });
    expect(ops(result)).toEqual([
      { type: "tag", bulletId: "str-00001", helpful: 1 },
      { type: "add", section: "common_mistakes_to_avoid", content: "Refunding twice." },
      { type: "remove", bulletId: "str-00003", reason: "Not in playbook.txt: the external loop removed it." },
    ]);
    expect(result.conflicts).toEqual([]);
    const after = approve(result, current).state;
    expect(after.bullets.get("str-00002")).toMatchObject({ content: "Paginate until a page comes back empty.", helpful: 3 });
    expect(after.bullets.get("str-00006")?.status).toBe("active");
    expect(after.bullets.get("str-00003")?.status).toBe("archived");
    expect(after.bullets.get("str-00001")?.helpful).toBe(5);
  });
});
