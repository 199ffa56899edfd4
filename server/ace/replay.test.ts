import { describe, expect, it } from "vitest";
import { applyDelta } from "./delta/engine";
import { samplePlaybook, testOptions } from "./delta/test-fixtures";
import type { DeltaOperation, PlaybookState } from "./delta/types";
import { countChanges, type VersionChange } from "./history";
import { inverseChanges, redoChanges, undoChanges } from "./replay";

const DELTAS: DeltaOperation[][] = [
  [
    { type: "add", section: "strategies_and_insights", content: "Confirm the task is complete before answering." },
    { type: "tag", bulletId: "str-00001", helpful: 2 },
  ],
  [
    { type: "add_section", name: "Error recovery" },
    { type: "add", section: "Error recovery", content: "Retry a timed-out request once." },
    { type: "update", bulletId: "str-00003", section: "common_mistakes_to_avoid", position: 0 },
  ],
  [
    { type: "merge", bulletIds: ["str-00002"], into: "str-00001", content: "Read the docs, then page through every result." },
    { type: "rename_section", section: "common_mistakes_to_avoid", name: "Pitfalls" },
    { type: "move_section", section: "Error recovery", position: 0 },
  ],
  [
    { type: "restore", bulletId: "str-00005" },
    { type: "remove", bulletId: "mis-00004", reason: "Covered elsewhere." },
    { type: "update", bulletId: "str-00006", content: "Confirm the task is complete, then answer." },
  ],
];

/** Version 0 is the sample; version n is after the n-th delta. */
function history(): { states: PlaybookState[]; changes: VersionChange[][] } {
  const options = testOptions();
  const states = [samplePlaybook()];
  const changes: VersionChange[][] = [];
  for (const delta of DELTAS) {
    const result = applyDelta(states.at(-1) ?? samplePlaybook(), delta, options);
    states.push(result.state);
    changes.push(result.changes);
  }
  return { states, changes };
}

describe("replay", () => {
  it("undoing from the current state rebuilds every earlier version exactly", () => {
    const { states, changes } = history();
    let state = states.at(-1) ?? samplePlaybook();
    for (let version = DELTAS.length - 1; version >= 0; version -= 1) {
      state = undoChanges(state, changes[version] ?? []);
      expect(state).toEqual(states[version]);
    }
  });

  it("undoing several versions' changes at once gives the same state", () => {
    const { states, changes } = history();
    expect(undoChanges(states[4] ?? samplePlaybook(), changes.slice(1).flat())).toEqual(states[1]);
  });

  it("redoing from the first version rebuilds every later version exactly", () => {
    const { states, changes } = history();
    let state = states[0] ?? samplePlaybook();
    for (const [version, versionChanges] of changes.entries()) {
      state = redoChanges(state, versionChanges);
      expect(state).toEqual(states[version + 1]);
    }
  });

  it("a rollback is a new version of inverse changes that restores the earlier bullets and sections", () => {
    const { states, changes } = history();
    const rollback = inverseChanges(changes.slice(2).flat());
    const rolledBack = redoChanges(states[4] ?? samplePlaybook(), rollback);
    expect(rolledBack.sections).toEqual(states[2]?.sections);
    expect(rolledBack.bullets).toEqual(states[2]?.bullets);
    // Bullet ids are never handed out twice, so the counter stays where the latest version left it.
    expect(rolledBack.nextIdNumber).toBe(states[4]?.nextIdNumber);
  });

  it("the inverse swaps before and after in reverse order, and inverting twice gives the changes back", () => {
    const { changes } = history();
    const first = changes[0] ?? [];
    const inverse = inverseChanges(first);
    expect(inverse.map((change) => change.id)).toEqual(first.map((change) => change.id).reverse());
    expect(inverse[0]).toMatchObject({ before: first.at(-1)?.after, after: first.at(-1)?.before });
    expect(inverseChanges(inverse)).toEqual(first);
    expect(countChanges(first)).toMatchObject({ bulletsAdded: 1, bulletsUpdated: 1 });
  });

  it("does not change the state it starts from", () => {
    const { states, changes } = history();
    const current = states[4] ?? samplePlaybook();
    // A state a delta made holds its bullets in layers (LayeredMap), which structuredClone cannot copy.
    const snapshot = structuredClone({ ...current, bullets: new Map(current.bullets) });
    undoChanges(current, changes.flat());
    redoChanges(current, inverseChanges(changes.flat()));
    expect(current).toEqual(snapshot);
  });
});
