// How the ACE implementations classify a bullet by its counters (LangChain ACE middleware's
// get_playbook_stats): high performing, problematic, unused; plus "untracked" for sources without counters.

export const BULLET_SIGNALS = ["high_performing", "problematic", "unused", "in_use", "untracked"] as const;
export type BulletSignal = (typeof BULLET_SIGNALS)[number];

export interface CounterState {
  helpful: number;
  harmful: number;
  countersKnown: boolean;
}

/** The classes are disjoint: high performing needs harmful < 2 < helpful, problematic needs harmful ≥ helpful. */
export function classifyBullet({ helpful, harmful, countersKnown }: CounterState): BulletSignal {
  if (!countersKnown) return "untracked";
  if (helpful > 5 && harmful < 2) return "high_performing";
  if (harmful > 0 && harmful >= helpful) return "problematic";
  if (helpful + harmful === 0) return "unused";
  return "in_use";
}

/** helpful − harmful: the ranking score the ACE implementations use. */
export function bulletScore({ helpful, harmful }: { helpful: number; harmful: number }): number {
  return helpful - harmful;
}
