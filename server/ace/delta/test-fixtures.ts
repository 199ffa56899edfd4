// Small playbooks for the delta, replay, diff and pruning tests.
import type { BulletState, SectionState } from "../history";
import { createPlaybookState } from "./state";
import type { EngineOptions, PlaybookState } from "./types";

export const STRATEGIES: SectionState = { id: "s-str", name: "strategies_and_insights", slug: "str", position: 0 };
export const MISTAKES: SectionState = { id: "s-mis", name: "common_mistakes_to_avoid", slug: "mis", position: 1 };

export function bullet(externalId: string, content: string, fields: Partial<BulletState> = {}): BulletState {
  return {
    externalId,
    sectionId: STRATEGIES.id,
    content,
    helpful: 0,
    harmful: 0,
    neutral: 0,
    countersKnown: true,
    status: "active",
    position: 0,
    archivedReason: null,
    mergedInto: null,
    ...fields,
  };
}

/**
 * str-00001..3 in strategies (positions 0..2), mis-00004 in mistakes, str-00005 archived in
 * strategies (position 3). The contents are unrelated to each other, so no near-duplicate warnings.
 */
export function samplePlaybook(): PlaybookState {
  return createPlaybookState(
    [STRATEGIES, MISTAKES],
    [
      bullet("str-00001", "Read the API documentation before calling an unfamiliar endpoint.", { helpful: 4, harmful: 1, neutral: 2 }),
      bullet("str-00002", "Paginate through every page of results until a page comes back empty.", { position: 1, helpful: 2 }),
      bullet("str-00003", "Convert currency amounts to cents before doing arithmetic on them.", { position: 2, countersKnown: false }),
      bullet("mis-00004", "Forgetting to log in as the supervisor before touching their account.", { sectionId: MISTAKES.id, harmful: 3 }),
      bullet("str-00005", "Guess dates relative to today without checking the timezone.", {
        position: 3,
        status: "archived",
        archivedReason: "Wrong advice",
      }),
    ],
  );
}

/** Section ids s-new-1, s-new-2, … in call order. */
export function testOptions(extra: Partial<EngineOptions> = {}): EngineOptions {
  let next = 0;
  return {
    newSectionId: () => {
      next += 1;
      return `s-new-${next}`;
    },
    ...extra,
  };
}
