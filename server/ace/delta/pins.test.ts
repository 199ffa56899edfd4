// Pin and unpin: a curator's choice of the bullets agents always get, held to a limit per playbook.
import { describe, expect, it } from "vitest";
import { diffStates } from "../diff";
import { redoChanges, undoChanges } from "../replay";
import { applyDelta, validateDelta } from "./engine";
import { bullet, samplePlaybook, STRATEGIES, testOptions } from "./test-fixtures";
import { createPlaybookState } from "./state";
import { MAX_PINNED_BULLETS, type DeltaOperation, type PlaybookState } from "./types";

const apply = (ops: DeltaOperation[], state = samplePlaybook()) => applyDelta(state, ops, testOptions());
const kinds = (ops: DeltaOperation[], state = samplePlaybook()) =>
  validateDelta(state, ops, testOptions()).findings.map((f) => `${f.operationIndex}:${f.severity}:${f.kind}`);

/** A playbook with `count` active bullets, the first `pinned` of them pinned. */
function manyBullets(count: number, pinned: number): PlaybookState {
  const bullets = Array.from({ length: count }, (_, index) => {
    const id = `str-${String(index + 1).padStart(5, "0")}`;
    return bullet(id, `Lesson number ${index + 1} about topic ${index * 7919}.`, {
      position: index,
      ...(index < pinned ? { pinned: true } : {}),
    });
  });
  return createPlaybookState([STRATEGIES], bullets);
}

describe("pin and unpin", () => {
  it("pinning marks the bullet and records it in the version's changes; unpinning takes the mark away", () => {
    const pinned = apply([{ type: "pin", bulletId: "str-00002" }]);
    expect(pinned.state.bullets.get("str-00002")?.pinned).toBe(true);
    expect(pinned.changes).toEqual([
      {
        entity: "bullet",
        id: "str-00002",
        before: samplePlaybook().bullets.get("str-00002"),
        after: expect.objectContaining({ pinned: true }),
      },
    ]);
    const unpinned = apply([{ type: "unpin", bulletId: "str-00002" }], pinned.state);
    const after = unpinned.state.bullets.get("str-00002");
    // Absent, not false: a state is written one way, as versions before pins recorded it.
    expect(after && "pinned" in after).toBe(false);
    expect(unpinned.changes).toHaveLength(1);
  });

  it("a pin is undone and redone from the version's record", () => {
    const base = samplePlaybook();
    const { state, changes } = apply([{ type: "pin", bulletId: "str-00001" }], base);
    const undone = undoChanges(state, changes);
    expect(undone.bullets.get("str-00001")?.pinned).toBeUndefined();
    expect(redoChanges(undone, changes).bullets.get("str-00001")?.pinned).toBe(true);
  });

  it("a diff between versions lists the bullets pinned and unpinned", () => {
    const base = samplePlaybook();
    const pinned = apply([{ type: "pin", bulletId: "str-00001" }], base).state;
    const forward = diffStates(base, pinned);
    expect(forward.totals).toMatchObject({ pinned: 1, unpinned: 0, edited: 0, counters: 0 });
    expect(forward.empty).toBe(false);
    expect(forward.sections[0]?.bullets.pinned.map((bullet) => bullet.externalId)).toEqual(["str-00001"]);
    expect(diffStates(pinned, base).totals).toMatchObject({ pinned: 0, unpinned: 1 });
  });

  it("pinning a pinned bullet or unpinning an unpinned one changes nothing and says so", () => {
    const { state } = apply([{ type: "pin", bulletId: "str-00001" }]);
    expect(kinds([{ type: "pin", bulletId: "str-00001" }], state)).toEqual(["0:warning:no_change"]);
    expect(kinds([{ type: "unpin", bulletId: "str-00002" }])).toEqual(["0:warning:no_change"]);
  });

  it("an archived or unknown bullet cannot be pinned", () => {
    expect(kinds([{ type: "pin", bulletId: "str-00005" }])).toEqual(["0:error:archived_bullet"]);
    expect(kinds([{ type: "pin", bulletId: "str-09999" }])).toEqual(["0:error:unknown_bullet"]);
  });

  it(`a playbook holds at most ${MAX_PINNED_BULLETS} pinned bullets, and the refusal names the limit`, () => {
    const full = manyBullets(MAX_PINNED_BULLETS + 2, MAX_PINNED_BULLETS);
    const extra = `str-${String(MAX_PINNED_BULLETS + 1).padStart(5, "0")}`;
    const findings = validateDelta(full, [{ type: "pin", bulletId: extra }], testOptions()).findings;
    expect(findings.map((f) => f.kind)).toEqual(["pin_limit"]);
    expect(findings[0]?.message).toBe(
      `Operation 1 (pin [${extra}]): the playbook already has ${MAX_PINNED_BULLETS} pinned bullets, the most a playbook may have (${MAX_PINNED_BULLETS}); unpin one first`,
    );
    // Unpinning one first in the same delta makes room.
    expect(
      kinds(
        [
          { type: "unpin", bulletId: "str-00001" },
          { type: "pin", bulletId: extra },
        ],
        full,
      ),
    ).toEqual([]);
  });

  it("the limit counts the pins earlier operations of the same delta make", () => {
    const almost = manyBullets(MAX_PINNED_BULLETS + 2, MAX_PINNED_BULLETS - 1);
    const id = (n: number) => `str-${String(n).padStart(5, "0")}`;
    const ops: DeltaOperation[] = [
      { type: "pin", bulletId: id(MAX_PINNED_BULLETS) },
      { type: "pin", bulletId: id(MAX_PINNED_BULLETS + 1) },
    ];
    expect(kinds(ops, almost)).toEqual(["1:error:pin_limit"]);
  });

  it("archiving a pinned bullet, or merging it away, unpins it, so a restore never passes the limit", () => {
    const { state } = apply([
      { type: "pin", bulletId: "str-00001" },
      { type: "pin", bulletId: "str-00002" },
    ]);
    const removed = apply([{ type: "remove", bulletId: "str-00001", reason: "Outdated" }], state);
    expect(removed.state.bullets.get("str-00001")?.pinned).toBeUndefined();
    const merged = apply([{ type: "merge", bulletIds: ["str-00002"], into: "str-00003", content: "Paginate; count in cents." }], state);
    expect(merged.state.bullets.get("str-00002")?.pinned).toBeUndefined();
    expect(apply([{ type: "restore", bulletId: "str-00001" }], removed.state).state.bullets.get("str-00001")?.pinned).toBeUndefined();
  });

  it("pinning and unpinning one bullet in one delta contradict each other, as do archiving and pinning it", () => {
    expect(
      kinds([
        { type: "pin", bulletId: "str-00001" },
        { type: "unpin", bulletId: "str-00001" },
      ]),
    ).toContain("1:error:contradiction");
    expect(
      kinds([
        { type: "remove", bulletId: "str-00001", reason: "Outdated" },
        { type: "pin", bulletId: "str-00001" },
      ]),
    ).toContain("1:error:contradiction");
  });
});
