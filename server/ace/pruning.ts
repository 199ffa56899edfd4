// Which bullets a pruning pass would remove, as remove operations with reasons a person can read.
// They go to the approval queue like any other delta: nothing is pruned silently.
import type { BulletState } from "./history";
import { parseBulletId } from "./ids";
import { compareText, orderedBullets } from "./delta/state";
import type { PlaybookState, PruningPolicy, RemoveOperation } from "./delta/types";
import { bulletScore } from "./signals";

export { DEFAULT_PRUNING_POLICY, type PruningPolicy } from "./delta/types";

const percent = (share: number) => `${Math.round(share * 100)} %`;

/**
 * The ratio rules, in order; the first that fires names the reason. Only bullets with known
 * counters are judged: a bullet imported without counters has no record to be judged by.
 */
export function ratioPruningReason(bullet: BulletState, policy: PruningPolicy): string | null {
  if (bullet.status !== "active" || !bullet.countersKnown) return null;
  const { helpful, harmful, neutral } = bullet;
  const votes = helpful + harmful;
  // LangChain ACE middleware (prune_threshold, prune_min_interactions).
  if (votes >= policy.harmfulMinVotes && votes > 0 && harmful / votes > policy.harmfulShare) {
    return (
      `Marked harmful in ${harmful} of ${votes} votes (${percent(harmful / votes)}), more than the ` +
      `${percent(policy.harmfulShare)} allowed once a bullet has ${policy.harmfulMinVotes} votes.`
    );
  }
  // ACE plugin: low confidence after enough observations.
  const observations = votes + neutral;
  if (observations >= policy.successMinObservations && observations > 0 && helpful / observations < policy.minSuccessRatio) {
    return (
      `Helpful in only ${helpful} of ${observations} uses (${percent(helpful / observations)}), under the ` +
      `${percent(policy.minSuccessRatio)} success ratio required after ${policy.successMinObservations} uses.`
    );
  }
  return null;
}

/** Age rank (smaller = older). Ids come from one growing counter, so their number is the order of creation. */
export type AgeOf = (bullet: BulletState) => number;

export const ageFromId: AgeOf = (bullet) => parseBulletId(bullet.externalId)?.number ?? Number.POSITIVE_INFINITY;

/** Lowest score first; ties go to the oldest (by ageOf), then by id so the order is total. */
export function compareForPruning(ageOf: AgeOf = ageFromId) {
  return (a: BulletState, b: BulletState): number =>
    bulletScore(a) - bulletScore(b) || compareAges(ageOf(a), ageOf(b)) || compareText(a.externalId, b.externalId);
}

function compareAges(a: number, b: number): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/**
 * Remove operations, ratio rules first (in reading order), then the bullets over policy.maxBullets,
 * lowest score first. A bullet with unknown counters counts toward the cap with a score of 0.
 */
export function proposePruning(state: PlaybookState, policy: PruningPolicy, ageOf: AgeOf = ageFromId): RemoveOperation[] {
  if (!policy.enabled) return [];
  const active = orderedBullets(state).filter((bullet) => bullet.status === "active");
  const proposals: RemoveOperation[] = [];
  const kept: BulletState[] = [];
  for (const bullet of active) {
    const reason = ratioPruningReason(bullet, policy);
    if (reason) proposals.push({ type: "remove", bulletId: bullet.externalId, reason });
    else kept.push(bullet);
  }
  const excess = policy.maxBullets === null ? 0 : kept.length - Math.max(0, policy.maxBullets);
  if (excess > 0) {
    const cut = [...kept].sort(compareForPruning(ageOf)).slice(0, excess);
    for (const bullet of cut) {
      proposals.push({
        type: "remove",
        bulletId: bullet.externalId,
        reason:
          `The playbook keeps at most ${policy.maxBullets} active bullets and this one ranks among the lowest ` +
          `(helpful − harmful = ${bulletScore(bullet)}).`,
      });
    }
  }
  return proposals;
}
