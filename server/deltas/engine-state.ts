// The delta engine's view of a playbook, cached per (playbook, version) in a byte-bounded cache
// (state-cache.ts): loading 10,000 bullets and indexing them for near-duplicates is most of an
// apply's cost. Every write bumps the version, so a state cached under the version read from the
// database is exact.
//
// The similarity index is built on first need (the compiled context reads the state and never
// needs it) and is mutable: it is synced forward after a commit (commit.ts), and the entry it
// belonged to is retired, so nobody validates against an index that has moved past their state.
import { randomUUID } from "node:crypto";
import { changesCompiledLine, createPlaybookState, type DeltaOperation, type EngineOptions, type PlaybookState } from "@/server/ace/delta";
import type { VersionChange } from "@/server/ace/history";
import { redoChanges } from "@/server/ace/replay";
import { buildSimilarityIndex, syncSimilarityIndex, type SimilarityIndex } from "@/server/ace/similarity";
import { countBulletTokens } from "@/server/ace/tokens";
import { cachePerScope } from "@/server/cache/lru";
import { getEnv } from "@/server/config/env";
import { Prisma, type Db, type DbOrTx } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import * as historyRepo from "@/server/history/repository";
import { readSettings } from "@/server/playbooks/manage";
import * as playbookRepo from "@/server/playbooks/repository";
import type { PlaybookSettings } from "@/server/playbooks/schemas";
import * as repo from "./repository";
import { createEngineStateCache, recountEntry, type EngineEntry, type EngineStateCache } from "./state-cache";

/** A read that raced a commit is repeated this many times before the caller is told to try later. */
const READ_ATTEMPTS = 4;

// One cache per database client, on globalThis: Next.js may load this module more than once.
const globalForStates = globalThis as typeof globalThis & { __acePlaybookStates?: (db: Db) => EngineStateCache };
const cacheOf = (globalForStates.__acePlaybookStates ??= cachePerScope<Db, EngineStateCache>(() =>
  createEngineStateCache(getEnv().cacheBytes.playbookStates),
));

/** Caches the entry as the playbook's newest, retiring the one it replaces; an older version is ignored. */
export function remember(db: Db, playbookId: string, entry: EngineEntry): void {
  cacheOf(db).remember(playbookId, entry);
}

/** For benchmarks that time a first load: drops (and retires) every cached playbook state of this database. */
export function forgetEngineStates(db: Db): void {
  cacheOf(db).clear();
}

export interface Snapshot {
  head: repo.PlaybookHead;
  settings: PlaybookSettings;
  entry: EngineEntry;
}

/** Versions written elsewhere (imports, settings, another server process) are replayed onto the
 *  cached state when they are few and small: their records are exact, and replaying 50 changes is
 *  far cheaper than reloading and re-indexing 10,000 bullets. */
const CATCH_UP_VERSIONS = 20;
const CATCH_UP_CHANGES = 2_000;

async function catchUp(db: Db, head: repo.PlaybookHead, cached: EngineEntry): Promise<EngineEntry | null> {
  if (head.version - cached.version > CATCH_UP_VERSIONS) return null;
  const records = await historyRepo.versionChanges(db, head.id, cached.version, head.version);
  const changes = records.flatMap((record) => record.changes);
  if (records.length !== head.version - cached.version || changes.length > CATCH_UP_CHANGES || cached.retired) return null;
  const replayed = redoChanges(cached.state, changes);
  cached.retired = true;
  if (cached.index) syncSimilarityIndex(cached.index, changes);
  return {
    version: head.version,
    state: { ...replayed, nextIdNumber: Math.max(replayed.nextIdNumber, head.nextBulletNumber) },
    index: cached.index,
    tokens: cached.tokens === null ? null : cached.tokens + tokenDelta(changes),
    retired: false,
  };
}

function busy(): AppError {
  return new AppError("BUSY", "The playbook is changing too fast to be read right now. Try again in a moment.");
}

/** The playbook's current version and engine state. Use `entry` before the next await, or check `retired`. */
export async function loadSnapshot(db: Db, playbookId: string): Promise<Snapshot> {
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt += 1) {
    const head = await repo.findPlaybookHead(db, playbookId);
    if (!head) throw notFound("The playbook");
    const settings = readSettings(head.settings);
    const cached = cacheOf(db).get(playbookId);
    if (cached && cached.version === head.version && !cached.retired) return { head, settings, entry: cached };
    if (cached && cached.version < head.version && !cached.retired) {
      const caughtUp = await catchUp(db, head, cached);
      if (caughtUp) {
        remember(db, playbookId, caughtUp);
        return { head, settings, entry: caughtUp };
      }
    }
    const rows = await readRows(db, playbookId);
    // Both reads fell between two reads of the same version, so no change committed in between.
    const after = await repo.currentVersion(db, playbookId);
    if (after?.version !== head.version) continue;
    const entry = entryOf(head, rows);
    remember(db, playbookId, entry);
    return { head, settings, entry };
  }
  // Writers commit faster than the rows can be read between two of them (a burst of reflections):
  // read everything in one REPEATABLE READ transaction instead, a consistent view that waits for no one.
  const { head, rows } = await db.$transaction(
    async (tx) => {
      const head = await repo.findPlaybookHead(tx, playbookId);
      if (!head) throw notFound("The playbook");
      return { head, rows: await readRows(tx, playbookId) };
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 60_000 },
  );
  const entry = entryOf(head, rows);
  remember(db, playbookId, entry);
  return { head, settings: readSettings(head.settings), entry };
}

type StateRows = Awaited<ReturnType<typeof readRows>>;

function readRows(db: DbOrTx, playbookId: string) {
  return Promise.all([
    repo.loadSectionStates(db, playbookId),
    playbookRepo.loadBulletStates(db, playbookId),
    playbookRepo.activeTokenTotal(db, playbookId),
  ]);
}

function entryOf(head: { version: number; nextBulletNumber: number }, [sections, bullets, stored]: StateRows): EngineEntry {
  return {
    version: head.version,
    state: createPlaybookState(sections, bullets, head.nextBulletNumber),
    index: null,
    tokens: stored.uncounted === 0 ? stored.tokens : null,
    retired: false,
  };
}

/** A snapshot whose entry is still current at the moment the caller resumes (see loadSnapshot). */
export async function freshSnapshot(db: Db, playbookId: string): Promise<Snapshot> {
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt += 1) {
    const snapshot = await loadSnapshot(db, playbookId);
    if (!snapshot.entry.retired) return snapshot;
  }
  throw busy();
}

/** The entry's near-duplicate index, built from its state the first time it is asked for. */
export function similarityIndexOf(entry: EngineEntry): SimilarityIndex {
  if (entry.index) return entry.index;
  entry.index = buildSimilarityIndex(entry.state.bullets.values());
  recountEntry(entry); // about ten times the state's size: the cache must know
  return entry.index;
}

function activeTokens(state: PlaybookState): number {
  let total = 0;
  for (const bullet of state.bullets.values()) if (bullet.status === "active") total += countBulletTokens(bullet);
  return total;
}

/** Operations that change content or status make the engine check the token budget. */
function touchesContent(ops: readonly DeltaOperation[]): boolean {
  return ops.some(
    (op) =>
      op.type === "add" ||
      op.type === "merge" ||
      op.type === "remove" ||
      op.type === "restore" ||
      (op.type === "update" && op.content !== undefined),
  );
}

/**
 * `nearDuplicates: false` when a reviewer approves: the proposal already showed its near-duplicates
 * and the reviewer decided, and the search is a third of an apply's time (a threshold above 1: the
 * engine searches nothing). The entry's index is handed over as a function, built only when an
 * operation searches: a first approval, or an edit that adds no content, after a start does not
 * wait for the index of a large playbook.
 */
export function engineOptions(
  snapshot: Snapshot,
  ops: readonly DeltaOperation[],
  { nearDuplicates = true, similarity }: { nearDuplicates?: boolean; similarity?: SimilarityIndex } = {},
): EngineOptions {
  const { entry, settings } = snapshot;
  if (entry.tokens === null && touchesContent(ops)) entry.tokens = activeTokens(entry.state);
  return {
    maxContentLength: settings.maxContentLength,
    similarityThreshold: nearDuplicates ? settings.similarityThreshold : Number.POSITIVE_INFINITY,
    similarity: similarity ?? (() => similarityIndexOf(entry)),
    // Without a count the budget is not checked: nothing in the delta can change the total.
    ...(entry.tokens === null ? {} : { tokenBudget: settings.tokenBudget, stateTokenCount: entry.tokens }),
    newSectionId: randomUUID,
  };
}

/** How the changes move the active bullets' token total (only lines that change in the compiled playbook count). */
export function tokenDelta(changes: readonly VersionChange[]): number {
  let delta = 0;
  for (const change of changes) {
    if (change.entity !== "bullet") continue;
    if (change.before && change.after && !changesCompiledLine(change.before, change.after)) continue;
    if (change.before?.status === "active") delta -= countBulletTokens(change.before);
    if (change.after?.status === "active") delta += countBulletTokens(change.after);
  }
  return delta;
}
