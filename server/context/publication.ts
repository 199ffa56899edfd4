// Which version of a playbook agents' compiled context serves. Every reflection writes a tag delta,
// and so a version; if each of those changed the context's ETag, polling agents would download the
// context again after every trace. So a version that changes only counters is not served at once:
//
// - A version that changes anything besides counters (text, sections, order by hand, archiving,
//   a rollback, an import) is published in the transaction that writes it: agents see it at once.
// - Versions that change only counters are published together, by the first context request at
//   least ACE_CONTEXT_COUNTER_REFRESH_S (default 60) after the last publication. Until then the
//   context, its ETag and its x-playbook-version stay those of the published version.
//
// Staleness bound: counters in a served context are at most ACE_CONTEXT_COUNTER_REFRESH_S behind
// the playbook (a counter change made after the last publication shows at the first request once
// the interval has passed). The versions themselves, their figures and the counter history the
// Evolution charts read are written as before, exactly, one per reflection.
//
// The published version lives in the database (Playbook.contextVersion), so every app instance
// serves the same version and ETag, and an agent behind a load balancer keeps its 304s.
import { describeChanges } from "@/server/ace/version-figures";
import type { VersionChange } from "@/server/ace/history";
import { getEnv } from "@/server/config/env";
import type { DbOrTx, Tx } from "@/server/db/client";
import { contextNow } from "./clock";
import { forgetHead } from "./heads";
import * as repo from "./repository";

export { setContextClock } from "./clock";

/**
 * For a writer that sets the playbook's columns with its version bump (commitChanges): the columns
 * that publish the new version when it changes more than counters, which publishIfContentChanged
 * writes for other writers (the bump makes the version newer than any published one).
 */
export function publicationWithBump(
  changes: readonly VersionChange[],
  version: number,
): { contextVersion: number; contextPublishedAt: Date } | null {
  return describeChanges(changes).contentChanged ? { contextVersion: version, contextPublishedAt: new Date(contextNow()) } : null;
}

/**
 * Called by every writer of a version, in its transaction: a version that changes more than
 * counters is published at once.
 */
export async function publishIfContentChanged(tx: Tx, playbookId: string, version: number, changes: readonly VersionChange[]) {
  const publication = publicationWithBump(changes, version);
  if (publication) await repo.publishContentVersion(tx, playbookId, version, publication.contextPublishedAt);
}

/**
 * The version a context request serves: the published one, or the head when only counters changed
 * since and the refresh interval has passed (then it is published, for every instance).
 */
export async function servedVersion(db: DbOrTx, head: repo.PlaybookHead): Promise<number> {
  if (head.contextVersion >= head.version) return head.version;
  const now = contextNow();
  if (now - head.contextPublishedAt.getTime() < getEnv().contextCounterRefreshMs) return head.contextVersion;
  const published = await repo.publishCounterVersions(db, head.id, { from: head.contextVersion, to: head.version, at: new Date(now) });
  forgetHead(db, head.id);
  if (published) return head.version;
  // Another request or instance published first: serve what it published.
  const fresh = await repo.findPlaybookById(db, head.id);
  return fresh ? Math.min(fresh.contextVersion, fresh.version) : head.contextVersion;
}
