// The experiment definitions this process keeps for a moment, so the assign route need not read
// the experiment on every call; every change made here drops its entry (service.ts).
import type { DbOrTx } from "@/server/db/client";
import { approximateBytes, cachePerScope } from "@/server/cache/lru";
import { TtlCache } from "@/server/cache/ttl-cache";
import type * as repo from "./repository";

/**
 * Definitions the assign route reuses for DEFINITION_TTL_MS instead of reading the experiment, its
 * variants, phases and playbook versions on every call. Bounds: a change made through this process
 * (create, update: weights, coverage, a new phase, status; decide: ship, stop) is seen by the next
 * assignment; one made through another instance, or a new version of a playbook a variant serves
 * as "latest", within DEFINITION_TTL_MS. A stopped experiment therefore stops assigning at once
 * here and within that second elsewhere. Entries are small (one experiment's definition); the
 * cache is bounded at DEFINITIONS_MAX_BYTES all the same.
 */
export const DEFINITION_TTL_MS = 1_000;
const DEFINITIONS_MAX_BYTES = 4 * 1024 * 1024;

export const keptDefinitions = cachePerScope<DbOrTx, TtlCache<repo.ExperimentRow>>(
  () =>
    new TtlCache<repo.ExperimentRow>({
      ttlMs: DEFINITION_TTL_MS,
      maxBytes: DEFINITIONS_MAX_BYTES,
      sizeOf: approximateBytes,
    }),
);

/** Drops this process's kept definition of an experiment (it was changed here). */
export function forgetDefinition(db: DbOrTx, key: string): void {
  keptDefinitions(db).delete(key);
}
