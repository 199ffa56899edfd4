import { describe, expect, it } from "vitest";
import { compileContext, contextSectionsOf } from "./context";
import { applyDelta, createPlaybookState, type DeltaOperation, type PlaybookState } from "./delta";
import { MISTAKES, STRATEGIES, bullet, samplePlaybook, testOptions } from "./delta/test-fixtures";
import type { VersionChange } from "./history";
import { inverseChanges, redoChanges } from "./replay";
import { countBulletTokens } from "./tokens";
import { advanceFigures, describeChanges, EMPTY_FIGURES, figuresOfState, versionFigures } from "./version-figures";

/** What the context endpoint counts for the whole playbook: an unlimited budget, counters shown. */
const compiledTokens = (state: PlaybookState) =>
  compileContext(contextSectionsOf(state), { tokenBudget: Number.POSITIVE_INFINITY, includeCounters: true }).tokens;

/** Version 1 of an import: every section and bullet recorded as new. */
const importChanges = (state: PlaybookState): VersionChange[] => [
  ...state.sections.map((section): VersionChange => ({ entity: "section", id: section.id, before: null, after: section })),
  ...[...state.bullets.values()].map((b): VersionChange => ({ entity: "bullet", id: b.externalId, before: null, after: b })),
];

describe("figuresOfState", () => {
  it("counts active bullets per section in playbook order, archived ones, counter totals and scores", () => {
    const figures = figuresOfState(samplePlaybook());
    expect(figures.sections).toEqual([
      { id: STRATEGIES.id, name: STRATEGIES.name, position: 0, activeBullets: 3 },
      { id: MISTAKES.id, name: MISTAKES.name, position: 1, activeBullets: 1 },
    ]);
    expect(figures).toMatchObject({ activeBullets: 4, archivedBullets: 1, helpful: 6, harmful: 4, neutral: 2 });
    // str-00003 has no counters (ace-plain): it is in no score bucket. The archived bullet neither.
    expect(figures.scores).toEqual([
      [-3, 1],
      [2, 1],
      [3, 1],
    ]);
  });

  it("counts the tokens the compiled playbook has with every active bullet", () => {
    const state = samplePlaybook();
    expect(figuresOfState(state).tokens).toBe(compiledTokens(state));
    expect(figuresOfState(state).tokens).toBeGreaterThan(40);
  });

  it("takes the active bullets' token sum from the caller when it has one", () => {
    const state = samplePlaybook();
    const lines = [...state.bullets.values()].filter((b) => b.status === "active").reduce((sum, b) => sum + countBulletTokens(b), 0);
    expect(figuresOfState(state, { activeBulletTokens: lines })).toEqual(figuresOfState(state));
    expect(figuresOfState(state, { activeBulletTokens: lines + 10 }).tokens).toBe(figuresOfState(state).tokens + 10);
  });

  it("a section without active bullets is listed with 0 and adds no header tokens", () => {
    const state = createPlaybookState(
      [STRATEGIES, MISTAKES],
      [bullet("str-00001", "Only strategy."), bullet("mis-00002", "Gone.", { sectionId: MISTAKES.id, status: "archived" })],
    );
    const figures = figuresOfState(state);
    expect(figures.sections.map((s) => s.activeBullets)).toEqual([1, 0]);
    expect(figures.tokens).toBe(compiledTokens(state));
  });

  it("an empty playbook has empty figures", () => {
    expect(figuresOfState(createPlaybookState([], []))).toEqual(EMPTY_FIGURES);
  });
});

describe("advanceFigures", () => {
  const steps: [string, DeltaOperation[]][] = [
    [
      "add to both sections",
      [
        { type: "add", section: "strategies_and_insights", content: "Cache the access token per user." },
        { type: "add", section: "common_mistakes_to_avoid", content: "Assuming the first page holds every result." },
      ],
    ],
    [
      "tag counters",
      [
        { type: "tag", bulletId: "str-00001", helpful: 2 },
        { type: "tag", bulletId: "mis-00004", harmful: 1, neutral: 1 },
        { type: "tag", bulletId: "str-00003", helpful: 1 },
      ],
    ],
    [
      "edit and move",
      [
        { type: "update", bulletId: "str-00002", content: "Paginate until a page comes back empty, then stop." },
        { type: "update", bulletId: "str-00001", section: "common_mistakes_to_avoid" },
      ],
    ],
    [
      "remove and restore",
      [
        { type: "remove", bulletId: "mis-00004", reason: "Obsolete" },
        { type: "restore", bulletId: "str-00005" },
      ],
    ],
    ["merge", [{ type: "merge", bulletIds: ["str-00002", "str-00005"], into: "str-00002", content: "Paginate; check timezones." }]],
    [
      "sections",
      [
        { type: "add_section", name: "tools" },
        { type: "add", section: "tools", content: "The refund tool needs the order id, not the customer id." },
        { type: "rename_section", section: "common_mistakes_to_avoid", name: "pitfalls" },
        { type: "move_section", section: "tools", position: 0 },
      ],
    ],
  ];

  it("after each kind of delta, agrees with the figures of the new state", () => {
    let state = samplePlaybook();
    let figures = figuresOfState(state);
    const options = testOptions();
    for (const [name, ops] of steps) {
      const result = applyDelta(state, ops, options);
      figures = advanceFigures(figures, result.changes);
      expect(figures, name).toEqual(figuresOfState(result.state));
      expect(figures.tokens, name).toBe(compiledTokens(result.state));
      state = result.state;
    }
    expect(figures.sections.map((s) => s.name)).toEqual(["tools", "strategies_and_insights", "pitfalls"]);
  });

  it("from empty figures and an import's changes, gives the imported playbook's figures", () => {
    const state = samplePlaybook();
    expect(advanceFigures(EMPTY_FIGURES, importChanges(state))).toEqual(figuresOfState(state));
  });

  it("a rollback's inverse changes give back the earlier figures", () => {
    const state = samplePlaybook();
    const options = testOptions();
    let current = state;
    const recorded: VersionChange[] = [];
    for (const [, ops] of steps) {
      const result = applyDelta(current, ops, options);
      recorded.push(...result.changes);
      current = result.state;
    }
    const inverse = inverseChanges(recorded);
    const back = advanceFigures(figuresOfState(current), inverse);
    expect(back).toEqual(figuresOfState(redoChanges(current, inverse)));
    expect(back).toEqual(figuresOfState(state));
  });
});

describe("describeChanges", () => {
  const changesOf = (ops: DeltaOperation[]) => applyDelta(samplePlaybook(), ops, testOptions()).changes;

  it("a reflection's tags change counters only", () => {
    expect(
      describeChanges(
        changesOf([
          { type: "tag", bulletId: "str-00001", helpful: 1 },
          { type: "tag", bulletId: "mis-00004", harmful: 2 },
        ]),
      ),
    ).toEqual({
      contentChanged: false,
      countersChanged: true,
      operations: { tag: 2 },
    });
  });

  it("a curation's additions, edits and removals change content, counted by operation", () => {
    const changes = changesOf([
      { type: "add", section: "strategies_and_insights", content: "Cache the access token per user." },
      { type: "add", section: "common_mistakes_to_avoid", content: "Assuming the first page holds every result." },
      { type: "update", bulletId: "str-00002", content: "Paginate until a page comes back empty." },
      { type: "remove", bulletId: "mis-00004", reason: "Obsolete" },
      { type: "restore", bulletId: "str-00005" },
    ]);
    expect(describeChanges(changes)).toEqual({
      contentChanged: true,
      countersChanged: false,
      operations: { add: 2, update: 1, remove: 1, restore: 1 },
    });
  });

  it("a merge counts once, not as removals and an update; its summed counters change counters", () => {
    const changes = changesOf([
      { type: "merge", bulletIds: ["str-00001", "str-00002"], into: "str-00001", content: "Read docs; paginate." },
    ]);
    expect(describeChanges(changes)).toEqual({ contentChanged: true, countersChanged: true, operations: { merge: 1 } });
  });

  it("section operations are content changes", () => {
    const changes = changesOf([
      { type: "add_section", name: "tools" },
      { type: "rename_section", section: "common_mistakes_to_avoid", name: "pitfalls" },
    ]);
    expect(describeChanges(changes)).toEqual({
      contentChanged: true,
      countersChanged: false,
      operations: { add_section: 1, rename_section: 1 },
    });
  });

  it("a settings version records no changes: neither content nor counters", () => {
    expect(describeChanges([])).toEqual({ contentChanged: false, countersChanged: false, operations: {} });
  });

  it("versionFigures is the state's figures with the description of its changes", () => {
    const result = applyDelta(samplePlaybook(), [{ type: "tag", bulletId: "str-00001", helpful: 1 }], testOptions());
    expect(versionFigures(result.state, result.changes)).toEqual({ ...figuresOfState(result.state), ...describeChanges(result.changes) });
  });
});
