import { describe, expect, it } from "vitest";
import { createPlaybookState } from "@/server/ace/delta";
import type { BulletState, SectionState } from "@/server/ace/history";
import { redoChanges } from "@/server/ace/replay";
import { generateHistory } from "./history-data";

const SECTIONS: SectionState[] = [
  { id: "00000000-0000-4000-8000-000000000001", name: "strategies_and_insights", slug: "str", position: 0 },
  { id: "00000000-0000-4000-8000-000000000002", name: "common_mistakes_to_avoid", slug: "mis", position: 1 },
];
const BULLETS: BulletState[] = Array.from({ length: 40 }, (_, i) => ({
  externalId: `${i % 2 ? "mis" : "str"}-${String(i + 1).padStart(5, "0")}`,
  sectionId: (SECTIONS[i % 2] as SectionState).id,
  content: `Lesson number ${i + 1}: read every page of the results before answering.`,
  helpful: 0,
  harmful: 0,
  neutral: 0,
  countersKnown: true,
  status: "active",
  position: Math.floor(i / 2),
  archivedReason: null,
  mergedInto: null,
}));
const from = new Date("2026-03-01T00:00:00Z");
const to = new Date("2026-05-30T00:00:00Z");
const make = (seed?: number) =>
  generateHistory({ state: createPlaybookState(SECTIONS, BULLETS), firstVersion: 2, count: 400, from, to, ...(seed ? { seed } : {}) });

/** What a history is apart from its random ids (delta ids, section ids). */
const shape = (history: ReturnType<typeof make>) =>
  history.versions.map((v) => [v.number, v.createdAt.toISOString(), v.delta.origin, v.delta.operations]);

describe("generateHistory", () => {
  const history = make();

  it("gives the same history for the same seed, and another for another seed", () => {
    expect(shape(make())).toEqual(shape(history));
    expect(shape(make(7))).not.toEqual(shape(history));
  });

  it("numbers the versions from firstVersion, in increasing time within the range", () => {
    expect(history.versions.map((v) => v.number)).toEqual(Array.from({ length: 400 }, (_, i) => i + 2));
    const times = history.versions.map((v) => v.createdAt.getTime());
    expect(times.every((time, i) => i === 0 || time > (times[i - 1] as number))).toBe(true);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(from.getTime());
    expect(Math.max(...times)).toBeLessThan(to.getTime());
  });

  it("records changes that replay from the first state to the last, as the history service replays them", () => {
    const replayed = history.versions.reduce((state, v) => redoChanges(state, v.changes), createPlaybookState(SECTIONS, BULLETS));
    expect([...replayed.bullets.values()].sort((a, b) => a.externalId.localeCompare(b.externalId))).toEqual(
      [...history.state.bullets.values()].sort((a, b) => a.externalId.localeCompare(b.externalId)),
    );
    const changed = new Set(
      history.versions.flatMap((v) => v.changes.flatMap((change) => (change.entity === "bullet" ? [change.id] : []))),
    );
    expect(history.touched).toEqual(changed);
  });

  it("is mostly reflections' tags, auto-applied; curator additions and edits are applied by a person", () => {
    const origins = history.versions.map((v) => v.delta.origin);
    const share = (origin: string) => origins.filter((o) => o === origin).length / origins.length;
    expect(share("reflector")).toBeGreaterThan(0.8);
    expect(share("curator")).toBeGreaterThan(0.04);
    expect(share("person")).toBeGreaterThan(0);
    for (const v of history.versions) {
      expect(v.delta.status).toBe(v.delta.origin === "reflector" ? "auto_applied" : "applied");
      expect(v.delta.decidedAt).toEqual(v.createdAt);
      expect(v.delta.createdAt.getTime()).toBeLessThanOrEqual(v.createdAt.getTime());
      if (v.delta.origin === "reflector") expect(v.delta.operations.every((op) => op.type === "tag")).toBe(true);
    }
    const tags = history.versions.flatMap((v) => v.delta.operations.flatMap((op) => (op.type === "tag" ? [op] : [])));
    const helpful = [...history.state.bullets.values()].reduce((sum, bullet) => sum + bullet.helpful, 0);
    expect(helpful).toBe(tags.reduce((sum, op) => sum + (op.helpful ?? 0), 0));
    expect(history.added.size).toBe(history.state.bullets.size - BULLETS.length);
  });

  it("leaves some curator proposals rejected (decided) or pending (not decided), without a version", () => {
    expect(history.unapplied.length).toBeGreaterThan(0);
    for (const delta of history.unapplied) {
      expect(delta.origin).toBe("curator");
      expect(delta.decidedAt === null).toBe(delta.status === "pending");
    }
  });
});
