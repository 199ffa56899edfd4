// A playbook's history for the metrics benchmarks: a run of versions spread over a time range, made
// by the delta engine of server/ace (so every recorded change is what an apply would record), as a
// long-running agent's playbook grows them: mostly reflections' counter tags (auto-applied), some
// curator additions a person approved, a few edits by hand, and curator proposals rejected or left
// pending. Seeded: the same seed gives the same history.
import { randomUUID } from "node:crypto";
import { applyDelta, type DeltaOperation, type PlaybookState } from "@/server/ace/delta";
import type { VersionChange } from "@/server/ace/history";
import { buildSimilarityIndex } from "@/server/ace/similarity";
import { seededRandom } from "./synthetic";

export type HistoryOrigin = "reflector" | "curator" | "person";

export interface HistoryDelta {
  id: string;
  origin: HistoryOrigin;
  status: "auto_applied" | "applied" | "rejected" | "pending";
  author: string;
  rationale: string;
  /** The version it was proposed against. */
  baseVersion: number;
  createdAt: Date;
  /** null while pending. */
  decidedAt: Date | null;
  decidedBy: string | null;
  operations: DeltaOperation[];
}

export interface HistoryVersion {
  number: number;
  createdAt: Date;
  author: string;
  reason: string;
  delta: HistoryDelta;
  changes: VersionChange[];
}

export interface History {
  versions: HistoryVersion[];
  /** Deltas that made no version: rejected or pending proposals. */
  unapplied: HistoryDelta[];
  /** The playbook after the last version. */
  state: PlaybookState;
  /** External ids of the bullets the history added, changed or tagged (to write back). */
  touched: Set<string>;
  /** External ids it added. */
  added: Set<string>;
}

const PEOPLE = ["Priya", "Marcus", "Elena"];
const LESSONS = [
  "Read every page of a paginated API before aggregating: loop page_index until an empty page comes back",
  "Compute relative dates from datetime.now() in code and compare parsed timestamps, never date strings",
  "Match contacts by email from apis.phone.search_contacts rather than by first name, which can repeat",
  "Check a field for null before arithmetic and count the skipped items so the assumption is visible",
  "Print the candidate items and check them against the task before any irreversible call",
  "Take passwords from apis.supervisor.show_account_passwords and log in once per app per task",
  "Round money with round(x, 2) only at the end; keep full precision while summing",
  "After a 401, log in again and retry the call once; do not loop on authentication errors",
  "Re-read an API's doc after a 422: the missing field is named in the error and in the doc",
  "Call apis.supervisor.complete_task exactly once, after the final answer has been checked",
];
const TOPICS = ["venmo", "spotify", "gmail", "todoist", "splitwise", "simple_note", "file_system", "amazon", "phone"];

/**
 * `count` versions after `state` (the playbook at `firstVersion - 1`), created between `from` and
 * `to` in increasing order. Each version's delta is applied with applyDelta; a delta the engine
 * refuses is an error (the generator picks only operations that apply).
 */
export function generateHistory({
  state: initial,
  firstVersion,
  count,
  from,
  to,
  seed = 0x415ce,
}: {
  state: PlaybookState;
  firstVersion: number;
  count: number;
  from: Date;
  to: Date;
  seed?: number;
}): History {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const span = to.getTime() - from.getTime();
  // The near-duplicate check is off (threshold above 1): generated lessons are similar on purpose.
  const options = { newSectionId: randomUUID, similarityThreshold: Number.POSITIVE_INFINITY, similarity: buildSimilarityIndex([]) };
  const sections = initial.sections;
  if (sections.length === 0) throw new Error("The playbook has no sections to grow.");

  let state = initial;
  const versions: HistoryVersion[] = [];
  const unapplied: HistoryDelta[] = [];
  const touched = new Set<string>();
  const added = new Set<string>();
  const activeIds = () => [...state.bullets.values()].filter((bullet) => bullet.status === "active").map((bullet) => bullet.externalId);
  let lessons = 0;
  const lesson = () => `${pick(LESSONS)} (${pick(TOPICS)}, lesson ${++lessons}).`;

  for (let i = 0; i < count; i++) {
    const number = firstVersion + i;
    // Evenly spread with jitter inside each slot, so the times only ever increase.
    const createdAt = new Date(from.getTime() + Math.floor(((i + 0.1 + 0.8 * random()) / count) * span));
    const roll = random();
    const ids = activeIds();
    let origin: HistoryOrigin;
    let operations: DeltaOperation[];
    if (roll < 0.88) {
      origin = "reflector";
      operations = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(ids))
        .filter((id, index, all) => all.indexOf(id) === index)
        .map((bulletId) => (random() < 0.75 ? { type: "tag", bulletId, helpful: 1 } : { type: "tag", bulletId, harmful: 1 }));
    } else if (roll < 0.97) {
      origin = "curator";
      operations = Array.from({ length: 1 + Math.floor(random() * 2) }, () => ({
        type: "add" as const,
        section: pick(sections).name,
        content: lesson(),
      }));
    } else {
      origin = "person";
      operations = [{ type: "update", bulletId: pick(ids), content: lesson() }];
    }
    const result = applyDelta(state, operations, options);
    state = result.state;
    for (const change of result.changes) if (change.entity === "bullet") touched.add(change.id);
    for (const id of result.addedIds) added.add(id);

    const person = pick(PEOPLE);
    // A reviewer decides a curator's proposal minutes to hours after it came; the rest apply at once.
    const waitedMs = origin === "curator" ? Math.floor((5 + random() * 240) * 60_000) : 0;
    const delta: HistoryDelta = {
      id: randomUUID(),
      origin,
      status: origin === "reflector" ? "auto_applied" : "applied",
      author: origin === "person" ? person : origin,
      rationale:
        origin === "reflector" ? "Reflection on a trace" : origin === "curator" ? "Lessons from recent reflections" : "Clearer wording",
      baseVersion: number - 1,
      createdAt: new Date(createdAt.getTime() - waitedMs),
      decidedAt: createdAt,
      decidedBy: origin === "reflector" ? "auto-apply" : person,
      operations,
    };
    versions.push({
      number,
      createdAt,
      author: origin === "curator" ? person : delta.author,
      reason: delta.rationale,
      delta,
      changes: result.changes,
    });

    // About one curator proposal in four is rejected; a few of the last ones are still pending.
    if (origin === "curator" && random() < 0.25) {
      const pending = i > count * 0.97;
      const proposedAt = new Date(createdAt.getTime() - Math.floor(random() * 3_600_000));
      unapplied.push({
        id: randomUUID(),
        origin: "curator",
        status: pending ? "pending" : "rejected",
        author: "curator",
        rationale: "Lessons from recent reflections",
        baseVersion: number - 1,
        createdAt: proposedAt,
        decidedAt: pending ? null : createdAt,
        decidedBy: pending ? null : person,
        operations: [{ type: "add", section: pick(sections).name, content: lesson() }],
      });
    }
  }
  return { versions, unapplied, state, touched, added };
}
