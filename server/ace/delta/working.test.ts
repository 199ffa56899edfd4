import { describe, expect, it } from "vitest";
import { createPlaybookState } from "./state";
import { bullet, MISTAKES, STRATEGIES } from "./test-fixtures";
import { WorkingState } from "./working";

const OTHER = { id: "s-oth", name: "others", slug: "oth", position: 2 };
const SECTIONS = [STRATEGIES, MISTAKES, OTHER];

/**
 * A seeded draw (Park and Miller's minimal standard generator: the same cases on every run) and 12
 * bullets on few positions, so ends are often shared and often held by the bullets that move.
 */
function seededPlaybook(seed: number) {
  let draw = seed;
  const next = () => (draw = (draw * 48_271) % 2_147_483_647) / 2_147_483_647;
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const bullets = Array.from({ length: 12 }, (_, index) =>
    bullet(`b-${index}`, `content ${index}`, { sectionId: pick([STRATEGIES, MISTAKES]).id, position: Math.floor(next() * 5) }),
  );
  return { next, pick, bullets };
}

describe("a section's end while a delta runs", () => {
  it("is the one read from the section's bullets after any moves: to the end, away from it, back from it, into an empty section", () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const { next, pick, bullets } = seededPlaybook(seed);
      const working = new WorkingState(createPlaybookState(SECTIONS, bullets));
      for (let step = 0; step < 8; step += 1) {
        const moved = working.bullet(pick(bullets).externalId);
        if (!moved) throw new Error("a bullet of the state is missing");
        working.putBullet({ ...moved, sectionId: pick(SECTIONS).id, position: Math.floor(next() * 6) });
        for (const section of SECTIONS) {
          expect(working.endPosition(section.id), `seed ${seed}, step ${step}, ${section.name}`).toBe(working.scannedEnd(section.id));
        }
      }
    }
  });

  it("carries into the state a delta makes: the next delta finds the ends its bullets give, whatever moved", () => {
    for (let seed = 1; seed <= 100; seed += 1) {
      const { next, pick, bullets } = seededPlaybook(seed);
      let state = createPlaybookState(SECTIONS, bullets);
      for (let delta = 0; delta < 6; delta += 1) {
        const working = new WorkingState(state);
        // Read before anything moves: the ends this state was given (the first state reads its bullets).
        for (const section of SECTIONS) {
          expect(working.endPosition(section.id), `seed ${seed}, delta ${delta}, ${section.name}`).toBe(working.scannedEnd(section.id));
        }
        for (let step = 0; step < 3; step += 1) {
          const moved = working.bullet(pick(bullets).externalId);
          if (!moved) throw new Error("a bullet of the state is missing");
          working.putBullet({ ...moved, sectionId: pick(SECTIONS).id, position: Math.floor(next() * 6) });
        }
        state = working.finish().state;
      }
    }
  });
});
