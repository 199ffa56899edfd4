// The playbook history through createCaller, against embedded PGlite and PostgreSQL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parsePlaybook } from "@/server/ace/formats";
import type { OperationInput } from "@/server/deltas/schemas";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";
import { createCaller } from "@/server/trpc/root";
import type { PlaybookAtVersion } from "./schemas";

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000";

type Caller = ReturnType<typeof createCaller>;

/** Sections with their bullets, as an export file or a rebuilt version says them. */
function fromExport(content: string) {
  const { document } = parsePlaybook(content, "json");
  return document.sections.map((section) => ({
    name: section.name,
    slug: section.slug,
    bullets: section.bullets.map((b) => ({
      id: b.id,
      content: b.content,
      counters: b.counters,
      status: b.status,
      archivedReason: b.archivedReason ?? null,
      mergedInto: b.mergedInto ?? null,
    })),
  }));
}

function fromVersion(at: PlaybookAtVersion) {
  return at.sections.map((section) => ({
    name: section.name,
    slug: section.slug,
    bullets: section.bullets.map((b) => ({
      id: b.externalId,
      content: b.content,
      counters: b.countersKnown ? { helpful: b.helpful, harmful: b.harmful, neutral: b.neutral } : null,
      status: b.status,
      archivedReason: b.archivedReason,
      mergedInto: b.mergedInto,
    })),
  }));
}

describe.each(testEngines())("history procedures on %s", (engine) => {
  let database: TestDatabase;
  let caller: Caller;
  let alice: Caller;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    caller = callerAs(database.db, "admin", "curator-model");
    alice = callerAs(database.db, "admin", "alice");
  });
  afterAll(async () => database?.close());
  beforeEach(async () => database.reset());

  async function playbook() {
    const { playbookId } = await caller.playbook.import({
      content: SMALL_PLAYBOOK,
      format: "ace",
      target: { kind: "new", name: "support" },
    });
    return playbookId;
  }

  const edit = (playbookId: string, reason: string, operations: OperationInput[]) => alice.delta.edit({ playbookId, reason, operations });

  /** Versions 2–8: an add, an edit, a move, a merge, an archive, a restore with counters, section changes. */
  async function history(playbookId: string) {
    await edit(playbookId, "Add a lesson", [
      { type: "add", section: "strategies_and_insights", content: "Log every tool call with its arguments." },
    ]);
    await edit(playbookId, "Clarify", [
      { type: "update", bulletId: "str-00002", content: "Retry failed API calls with exponential backoff." },
    ]);
    await edit(playbookId, "Belongs with mistakes", [{ type: "update", bulletId: "str-00003", section: "common_mistakes_to_avoid" }]);
    await edit(playbookId, "Same lesson twice", [
      { type: "merge", bulletIds: ["str-00001", "str-00005"], into: "str-00001", content: "Verify data types and log every tool call." },
    ]);
    await edit(playbookId, "Wrong", [{ type: "remove", bulletId: "mis-00004", reason: "Handled by the date tool now" }]);
    await edit(playbookId, "Still needed", [
      { type: "restore", bulletId: "mis-00004" },
      { type: "tag", bulletId: "mis-00004", helpful: 2, harmful: 1 },
    ]);
    await edit(playbookId, "Sections", [
      { type: "add_section", name: "verification_checklist", slug: "ver" },
      { type: "rename_section", section: "common_mistakes_to_avoid", name: "Mistakes" },
      { type: "move_section", section: "Mistakes", position: 0 },
    ]);
  }

  it("lists every version with who, when, why and what it changed", async () => {
    const playbookId = await playbook();
    await history(playbookId);
    const page = await caller.history.versions({ playbookId, limit: 3 });
    expect(page).toMatchObject({ total: 8, currentVersion: 8, nextCursor: 3 });
    expect(page.items.map((v) => v.number)).toEqual([8, 7, 6]);
    expect(page.items[0]).toMatchObject({
      author: "alice",
      reason: "Sections",
      deltaOrigin: "person",
      counts: { sectionsAdded: 1, sectionsRenamed: 1, bulletsAdded: 0 },
    });
    expect(page.items[0]?.counts.sectionsMoved).toBeGreaterThan(0);
    expect(page.items[0]?.createdAt).toBeInstanceOf(Date);
    expect(page.items[1]?.counts).toMatchObject({ bulletsRestored: 1, countersChanged: 1 });
    expect(page.items[2]?.counts).toMatchObject({ bulletsArchived: 1, bulletsMerged: 0 });
    const older = await caller.history.versions({ playbookId, cursor: 3, limit: 10 });
    expect(
      older.items.map((v) => [v.number, v.counts.bulletsAdded, v.counts.bulletsEdited, v.counts.bulletsMoved, v.counts.bulletsMerged]),
    ).toEqual([
      [5, 0, 1, 0, 1],
      [4, 0, 0, 1, 0],
      [3, 0, 1, 0, 0],
      [2, 1, 0, 0, 0],
      [1, 4, 0, 0, 0],
    ]);
    expect(older.items.at(-1)).toMatchObject({ deltaId: null, deltaOrigin: null, counts: { sectionsAdded: 2 } });
    expect(older.nextCursor).toBeNull();
  });

  it("the timeline counts a section moved past others as one move, the one the diff names", async () => {
    const playbookId = await playbook();
    await edit(playbookId, "More sections", [
      { type: "add_section", name: "Tools" },
      { type: "add_section", name: "Verification" },
    ]);
    await edit(playbookId, "Check first", [{ type: "move_section", section: "Verification", position: 0 }]);
    await edit(playbookId, "Swap", [{ type: "move_section", section: "Tools", position: 1 }]);
    const page = await caller.history.versions({ playbookId, limit: 2 });
    expect(page.items.map((v) => [v.number, v.counts.sectionsMoved])).toEqual([
      [4, 1],
      [3, 1],
    ]);
    for (const version of [3, 4]) {
      const diff = await caller.history.diff({ playbookId, from: version - 1, to: version });
      expect(diff.totals.sectionsMoved).toBe(1);
      expect(diff.sections.filter((section) => section.moved).map((section) => section.name)).toEqual([
        version === 3 ? "Verification" : "Tools",
      ]);
    }
  });

  it("an empty section is deleted as a version of its own; the diff shows it removed and a rollback brings it back", async () => {
    const playbookId = await playbook();
    await edit(playbookId, "Room for checks", [{ type: "add_section", name: "Verification" }]);
    const deleted = await edit(playbookId, "Not needed", [{ type: "remove_section", section: "Verification" }]);
    expect(deleted.appliedVersion).toBe(3);
    expect((await caller.playbook.get({ playbookId })).sections.map((section) => section.name)).toEqual([
      "strategies_and_insights",
      "common_mistakes_to_avoid",
    ]);
    const [latest] = (await caller.history.versions({ playbookId, limit: 1 })).items;
    expect(latest?.counts.sectionsRemoved).toBe(1);
    const diff = await caller.history.diff({ playbookId, from: 2, to: 3 });
    expect(diff.sections.filter((section) => section.status === "removed").map((section) => section.name)).toEqual(["Verification"]);
    await expectAppError(
      edit(playbookId, "Tidy", [{ type: "remove_section", section: "common_mistakes_to_avoid" }]),
      "BAD_REQUEST",
      /the section still has 1 active bullet; move or archive it first\. Nothing was changed\.$/,
    );
    await caller.history.rollback({ playbookId, version: 2, reason: "Needed after all" });
    expect((await caller.playbook.get({ playbookId })).sections.map((section) => section.name)).toContain("Verification");
  });

  it("rebuilds the playbook as it was at every version, equal to an export taken then", async () => {
    const playbookId = await playbook();
    const exports = new Map<number, string>();
    const snap = async () => {
      const { version } = await caller.playbook.get({ playbookId });
      exports.set(version, (await caller.playbook.export({ playbookId, format: "json" })).content);
    };
    await snap();
    const steps: [string, OperationInput[]][] = [
      ["add", [{ type: "add", section: "strategies_and_insights", content: "Log every tool call with its arguments." }]],
      ["edit", [{ type: "update", bulletId: "str-00002", content: "Retry with backoff." }]],
      ["move", [{ type: "update", bulletId: "str-00003", section: "common_mistakes_to_avoid", position: 0 }]],
      ["merge", [{ type: "merge", bulletIds: ["str-00005"], into: "str-00001", content: "Verify types; log tool calls." }]],
      ["archive", [{ type: "remove", bulletId: "str-00002", reason: "Obsolete" }]],
      [
        "sections",
        [
          { type: "add_section", name: "checks" },
          { type: "move_section", section: "checks", position: 0 },
        ],
      ],
      ["rename", [{ type: "rename_section", section: "strategies_and_insights", name: "Strategies" }]],
    ];
    for (const [reason, operations] of steps) {
      await edit(playbookId, reason, operations);
      await snap();
    }
    for (const [version, content] of exports) {
      const at = await caller.history.at({ playbookId, version, includeArchived: true });
      expect(at.version).toBe(version);
      expect(fromVersion(at), `version ${version}`).toEqual(fromExport(content));
    }
    const first = await caller.history.at({ playbookId, version: 1 });
    expect(first).toMatchObject({ activeCount: 4, archivedCount: 0, currentVersion: 8, author: "curator-model" });
    expect(first.reason).toMatch(/^Imported/);
    await expectAppError(
      caller.history.at({ playbookId, version: 9 }),
      "NOT_FOUND",
      /Version 9 does not exist: the playbook is at version 8/,
    );
  });

  it("diffs two versions section by section: added, removed, edited, moved, merged, restored, counters", async () => {
    const playbookId = await playbook();
    await history(playbookId);
    const diff = await caller.history.diff({ playbookId, from: 1, to: 8 });
    expect(diff.empty).toBe(false);
    // str-00005 came and was merged away after version 1: from there it is simply new (and archived).
    expect(diff.totals).toMatchObject({
      added: 1,
      edited: 2,
      moved: 1,
      merged: 0,
      counters: 1,
      sectionsAdded: 1,
      sectionsRenamed: 1,
    });
    expect(diff.sections.map((s) => [s.name, s.status, s.previousName])).toEqual([
      ["Mistakes", "kept", "common_mistakes_to_avoid"],
      ["strategies_and_insights", "kept", null],
      ["verification_checklist", "added", null],
    ]);
    const strategies = diff.sections[1]?.bullets;
    expect(strategies?.edited.find((e) => e.id === "str-00002")?.segments).toEqual(
      expect.arrayContaining([
        { kind: "removed", text: expect.stringContaining("immediately") },
        { kind: "added", text: expect.stringContaining("exponential") },
      ]),
    );
    const merged = await caller.history.diff({ playbookId, from: 2, to: 5 });
    expect(merged.totals).toMatchObject({ merged: 1, edited: 2, moved: 1, added: 0 });
    expect(merged.sections[0]?.bullets.merged.map((m) => [m.bullet.externalId, m.into])).toEqual([["str-00005", "str-00001"]]);
    expect(diff.sections[0]?.bullets.moved.map((m) => [m.bullet.externalId, m.fromSectionName])).toEqual([
      ["str-00003", "strategies_and_insights"],
    ]);
    expect(diff.sections[0]?.bullets.counters).toEqual([{ id: "mis-00004", helpful: 2, harmful: 1, neutral: 0 }]);

    const around = await caller.history.diff({ playbookId, from: 5, to: 7 });
    expect(around.totals).toMatchObject({ removed: 0, restored: 0, counters: 1, added: 0 });
    const archivedThenBack = await caller.history.diff({ playbookId, from: 6, to: 7 });
    expect(archivedThenBack.totals.restored).toBe(1);
    const backwards = await caller.history.diff({ playbookId, from: 2, to: 1 });
    expect(backwards.totals.removed).toBe(1);
    expect((await caller.history.diff({ playbookId, from: 4, to: 4 })).empty).toBe(true);
  });

  it("rolls back to a version as a new version, keeping the history, and refuses when nothing would change", async () => {
    const playbookId = await playbook();
    await history(playbookId);
    const target = await caller.history.at({ playbookId, version: 3, includeArchived: true });

    await expectAppError(
      alice.history.rollback({ playbookId, version: 3, reason: "x", expectedVersion: 7 }),
      "CONFLICT",
      /changed since you opened it/,
    );
    const result = await alice.history.rollback({ playbookId, version: 3, reason: "The merge lost detail" });
    expect(result).toMatchObject({ version: 9, rolledBackTo: 3, bulletsArchived: 0 });
    const versions = await caller.history.versions({ playbookId, limit: 100 });
    expect(versions.total).toBe(9);
    expect(versions.items[0]).toMatchObject({
      number: 9,
      author: "alice",
      deltaOrigin: "rollback",
      reason: "Rolled back to version 3: The merge lost detail",
    });

    const now = await caller.history.at({ playbookId, version: 9, includeArchived: true });
    // Same sections and bullets; the section added later stays only if it held bullets (it did not).
    expect(fromVersion(now)).toEqual(fromVersion(target));
    const exported = await caller.playbook.export({ playbookId, format: "json" });
    expect(fromExport(exported.content)).toEqual(fromVersion(target));

    await expectAppError(
      alice.history.rollback({ playbookId, version: 3, reason: "again" }),
      "BAD_REQUEST",
      /already looks as it did at version 3/,
    );
    await expectAppError(alice.history.rollback({ playbookId, version: 9, reason: "now" }), "BAD_REQUEST", /current version/);
    // The rollback is itself a version: rolling back to 8 brings the later work back.
    await alice.history.rollback({ playbookId, version: 8, reason: "Undo the rollback" });
    const restored = await caller.history.at({ playbookId, version: 10, includeArchived: true });
    expect(fromVersion(restored)).toEqual(fromVersion(await caller.history.at({ playbookId, version: 8, includeArchived: true })));
  });

  it("a rollback archives bullets added later instead of deleting them, and keeps their section", async () => {
    const playbookId = await playbook();
    await edit(playbookId, "New section", [
      { type: "add_section", name: "verification_checklist", slug: "ver" },
      { type: "add", section: "verification_checklist", content: "Re-read the task before submitting." },
      { type: "add", section: "strategies_and_insights", content: "Prefer idempotent writes." },
    ]);
    await edit(playbookId, "Edit", [{ type: "update", bulletId: "str-00001", content: "Verify types first." }]);
    const result = await alice.history.rollback({ playbookId, version: 1, reason: "Start over" });
    expect(result).toMatchObject({ version: 4, bulletsArchived: 2, bulletsChanged: 3 });
    const added = await caller.playbook.bullet({ playbookId, externalId: "ver-00005" });
    expect(added).toMatchObject({ status: "archived", archivedReason: "Rolled back to version 1", sectionName: "verification_checklist" });
    expect((await caller.playbook.bullet({ playbookId, externalId: "str-00001" })).content).toBe(
      "Always verify data types before processing numeric fields.",
    );
    const at = await caller.history.at({ playbookId, version: 4 });
    expect(at.sections.map((s) => [s.name, s.bullets.length])).toEqual([
      ["strategies_and_insights", 3],
      ["common_mistakes_to_avoid", 1],
      ["verification_checklist", 0],
    ]);
    // A restore brings an archived bullet back: nothing was lost.
    await edit(playbookId, "Keep this one", [{ type: "restore", bulletId: "ver-00005" }]);
    expect((await caller.playbook.bullet({ playbookId, externalId: "ver-00005" })).status).toBe("active");
  });

  it("a bullet's lineage lists every version and delta that touched it", async () => {
    const playbookId = await playbook();
    await history(playbookId);
    const proposal = await caller.delta.propose({
      playbookId,
      rationale: "Cited in a failing trace",
      operations: [{ operation: { type: "tag", bulletId: "str-00001", harmful: 1 } }],
    });
    const rejected = await caller.delta.propose({
      playbookId,
      operations: [{ operation: { type: "remove", bulletId: "str-00001", reason: "Unused" } }],
    });
    await alice.delta.reject({ deltaId: rejected.deltaId, reason: "It is used" });

    const lineage = await caller.history.lineage({ playbookId, bulletId: "str-00001" });
    expect(lineage.current?.content).toBe("Verify data types and log every tool call.");
    expect(lineage.currentSectionName).toBe("strategies_and_insights");
    expect(lineage.entries.map((e) => [e.version, e.kinds])).toEqual([
      [1, ["added"]],
      [5, ["edited", "absorbed"]],
    ]);
    const merge = lineage.entries[1];
    expect(merge).toMatchObject({ author: "alice", reason: "Same lesson twice", absorbed: ["str-00005"], deltaOrigin: "person" });
    expect(merge?.before?.content).toBe("Always verify data types before processing numeric fields.");
    expect(merge?.segments?.some((s) => s.kind === "added")).toBe(true);
    expect(lineage.deltas.map((d) => [d.deltaId, d.status])).toEqual([
      [rejected.deltaId, "rejected"],
      [proposal.deltaId, "pending"],
      [merge?.deltaId, "applied"],
    ]);
    expect(lineage.deltas[2]?.operations.map((op) => op.type)).toEqual(["merge"]);

    const absorbed = await caller.history.lineage({ playbookId, bulletId: "str-00005" });
    expect(absorbed.entries.map((e) => [e.version, e.kinds])).toEqual([
      [2, ["added"]],
      [5, ["merged_into"]],
    ]);
    expect(absorbed.deltas[absorbed.deltas.length - 1]?.operations).toEqual([
      expect.objectContaining({ type: "add", payload: expect.objectContaining({ content: "Log every tool call with its arguments." }) }),
    ]);
    await expectAppError(caller.history.lineage({ playbookId, bulletId: "str-99999" }), "NOT_FOUND", /str-99999/);
  });

  describe("bad requests", () => {
    it("a playbook that does not exist has no versions, no past states and nothing to roll back", async () => {
      const missing = { playbookId: NO_SUCH_ID };
      await expectAppError(caller.history.versions(missing), "NOT_FOUND", /The playbook was not found/);
      await expectAppError(caller.history.at({ ...missing, version: 1 }), "NOT_FOUND", /The playbook was not found/);
      await expectAppError(caller.history.diff({ ...missing, from: 1, to: 2 }), "NOT_FOUND", /The playbook was not found/);
      await expectAppError(alice.history.rollback({ ...missing, version: 1, reason: "x" }), "NOT_FOUND", /The playbook was not found/);
    });

    it("a version after the current one does not exist, and versions count from 1", async () => {
      const playbookId = await playbook();
      await edit(playbookId, "Add a lesson", [{ type: "add", section: "strategies_and_insights", content: "Log every tool call." }]);
      await expectAppError(
        caller.history.at({ playbookId, version: 9 }),
        "NOT_FOUND",
        /Version 9 does not exist: the playbook is at version 2/,
      );
      await expectAppError(caller.history.diff({ playbookId, from: 1, to: 9 }), "NOT_FOUND", /Version 9 does not exist/);
      await expectAppError(alice.history.rollback({ playbookId, version: 9, reason: "x" }), "NOT_FOUND", /Version 9 does not exist/);
      await expectAppError(caller.history.at({ playbookId, version: 0 }), "BAD_REQUEST", /Versions count from 1/);
      await expectAppError(caller.history.versions({ playbookId, limit: 101 }), "BAD_REQUEST", /limit/);
      expect((await caller.history.versions({ playbookId })).total).toBe(2);
    });

    it("a rollback needs a reason, and without one nothing changes", async () => {
      const playbookId = await playbook();
      await edit(playbookId, "Add a lesson", [{ type: "add", section: "strategies_and_insights", content: "Log every tool call." }]);
      await expectAppError(alice.history.rollback({ playbookId, version: 1, reason: "   " }), "BAD_REQUEST", /Say why you roll back/);
      expect((await caller.history.versions({ playbookId })).total).toBe(2);
      expect((await caller.playbook.bullet({ playbookId, externalId: "str-00005" })).status).toBe("active");
    });
  });

  describe("stored records it cannot read", () => {
    it("a version whose stored changes cannot be read is an error naming it, not a wrong past state", async () => {
      const playbookId = await playbook();
      await edit(playbookId, "Add a lesson", [{ type: "add", section: "strategies_and_insights", content: "Log every tool call." }]);
      await edit(playbookId, "Clarify", [{ type: "update", bulletId: "str-00005", content: "Log every tool call with its arguments." }]);
      await database.db.playbookVersion.update({
        where: { playbookId_number: { playbookId, number: 2 } },
        data: { operations: [{ entity: "bullet", id: "str-00005", before: null, after: { content: 1 } }] },
      });
      const unreadable = new RegExp(`Version 2 of playbook ${playbookId} has a change record that cannot be read \\(0\\.after\\.`);
      await expectAppError(caller.history.at({ playbookId, version: 1 }), "INTERNAL_SERVER_ERROR", unreadable);
      await expectAppError(alice.history.rollback({ playbookId, version: 1, reason: "Undo" }), "INTERNAL_SERVER_ERROR", unreadable);
      expect((await caller.history.versions({ playbookId })).total).toBe(3);
    });
  });
});
