// The delta engine's view of a playbook, cached per (playbook, version) in a byte-bounded cache
// (state-cache.ts): loading 10,000 bullets and indexing them for near-duplicates is most of an
// apply's cost. Every write bumps the version, so a state cached under the version read from the
// database is exact.
//
// The similarity index is built in the background, when someone opens the playbook or a delta first
// searches it (the compiled context reads the state and never needs it), and is mutable: it is
// synced forward after a commit (commit.ts), and the entry it belonged to is retired, so nobody
// validates against an index that has moved past their state.
import { randomUUID } from "node:crypto";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { changesCompiledLine, createPlaybookState, type DeltaOperation, type EngineOptions, type PlaybookState } from "@/server/ace/delta";
import type { BulletState, VersionChange } from "@/server/ace/history";
import { redoChanges } from "@/server/ace/replay";
import { buildSimilarityIndex, createSimilarityIndex, syncSimilarityIndex, type SimilarityIndex } from "@/server/ace/similarity";
import { stateTokens } from "@/server/ace/tokens";
import { createWordScanIndex } from "@/server/ace/word-scan-index";
import { cachePerScope } from "@/server/cache/lru";
import { getEnv } from "@/server/config/env";
import { Prisma, type Db, type DbOrTx } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import { recentlyServing } from "@/server/http/activity";
import * as historyRepo from "@/server/history/repository";
import { readSettings } from "@/server/playbooks/manage";
import { loadBulletStates } from "@/server/playbooks/repositories/bullet-states";
import * as playbookRepo from "@/server/playbooks/repository";
import type { PlaybookSettings } from "@/server/playbooks/schemas";
import * as repo from "./repository";
import {
  carryExtras,
  carrySizes,
  createEngineStateCache,
  recountEntry,
  type EngineEntry,
  type EngineStateCache,
  type EntryExtras,
} from "./state-cache";

/** A read that raced a commit is repeated this many times before the caller is told to try later. */
const READ_ATTEMPTS = 4;

// One cache per database client, on globalThis: Next.js may load this module more than once.
const globalForStates = globalThis as typeof globalThis & { __acePlaybookStates?: (db: Db) => EngineStateCache };
const cacheOf = (globalForStates.__acePlaybookStates ??= cachePerScope<Db, EngineStateCache>(() =>
  createEngineStateCache(getEnv().cacheBytes.playbookStates),
));

/** Caches the entry as the playbook's newest (see EngineStateCache.remember); returns the one cached for its version. */
export function remember(db: Db, playbookId: string, entry: EngineEntry): EngineEntry {
  return cacheOf(db).remember(playbookId, entry);
}

/** Keeps the extras an export read at the entry's version with it, unless the version moved on meanwhile. */
export function keepExtras(entry: EngineEntry, extras: EntryExtras): void {
  if (entry.retired || entry.extras === extras) return;
  entry.extras = extras;
  recountEntry(entry);
}

/** For benchmarks that time a first load: drops (and retires) every cached playbook state of this database. */
export function forgetEngineStates(db: Db): void {
  cacheOf(db).clear();
}

/**
 * The playbook's cached entry, unless retired, without reading the database: its version may be
 * behind the playbook's, so a caller checks it against a version it reads.
 */
export function cachedEntry(db: Db, playbookId: string): EngineEntry | undefined {
  const entry = cacheOf(db).get(playbookId);
  return entry && !entry.retired ? entry : undefined;
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
  return moveOn(cached, changes, {
    version: head.version,
    state: { ...replayed, nextIdNumber: Math.max(replayed.nextIdNumber, head.nextBulletNumber) },
    tokens: cached.tokens === null ? null : cached.tokens + tokenDelta(changes),
    figures: null,
  });
}

/** Changes an index may lag its state by before a commit applies them itself: a bound on the bytes the lag holds. */
const MAX_UNINDEXED_CHANGES = 2_000;

/**
 * The entry that follows `entry` after `changes` (a commit of this process, or versions caught up):
 * the old one is retired, and its index, built or being built in the background, moves on with
 * the changes. A built index takes them when it is next read (builtIndexOf), not here: an approval
 * searches nothing, and indexing a 50-operation delta's new and rewritten bullets took it 1.7 ms.
 */
export function moveOn(
  entry: EngineEntry,
  changes: readonly VersionChange[],
  next: Omit<EngineEntry, "index" | "unindexed" | "extras" | "retired">,
): EngineEntry {
  entry.retired = true;
  carrySizes(entry.state, next.state, changes);
  // The lag moves on with the index; the retired entry keeps none, so nobody applies it twice.
  const unindexed = entry.index ? [...entry.unindexed, ...changes] : [];
  entry.unindexed = [];
  const moved: EngineEntry = { ...next, index: entry.index, unindexed, extras: carryExtras(entry.extras, changes), retired: false };
  if (unindexed.length > MAX_UNINDEXED_CHANGES) builtIndexOf(moved);
  const warm = warms.get(entry);
  if (warm) {
    warms.delete(entry);
    warm.pending.push(...changes);
    if (warm.quick) syncSimilarityIndex(warm.quick, changes);
    warm.owner = moved;
    if (warm.pending.length <= MAX_PENDING_CHANGES) warms.set(moved, warm);
  }
  return moved;
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
    // Another read of the same version that was remembered first is used: one index for both.
    return { head, settings, entry: remember(db, playbookId, entryOf(head, rows)) };
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
  return { head, settings: readSettings(head.settings), entry: remember(db, playbookId, entryOf(head, rows)) };
}

type StateRows = Awaited<ReturnType<typeof readRows>>;

function readRows(db: DbOrTx, playbookId: string) {
  return Promise.all([
    repo.loadSectionStates(db, playbookId),
    loadBulletStates(db, playbookId),
    playbookRepo.activeTokenTotal(db, playbookId),
  ]);
}

function entryOf(head: { version: number; nextBulletNumber: number }, [sections, bullets, stored]: StateRows): EngineEntry {
  return {
    version: head.version,
    state: createPlaybookState(sections, bullets, head.nextBulletNumber),
    index: null,
    unindexed: [],
    tokens: stored.uncounted === 0 ? stored.tokens : null,
    figures: null,
    extras: null,
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

/** The entry's built index, brought up to its state first; null when none is built. */
function builtIndexOf(entry: EngineEntry): SimilarityIndex | null {
  if (entry.index && entry.unindexed.length > 0) {
    syncSimilarityIndex(entry.index, entry.unindexed);
    entry.unindexed = [];
  }
  return entry.index;
}

/**
 * The entry's near-duplicate index, built from its state the first time it is asked for; an index
 * being built in the background for it is finished here instead.
 */
export function similarityIndexOf(entry: EngineEntry): SimilarityIndex {
  const built = builtIndexOf(entry);
  if (built) return built;
  const warm = warms.get(entry);
  if (warm) return finishWarm(warm);
  entry.index = buildSimilarityIndex(entry.state.bullets.values());
  recountEntry(entry); // about ten times the state's size: the cache must know
  return entry.index;
}

// ---- Building the index in the background -----------------------------------------------------
// The index of 10,000 bullets takes a few hundred milliseconds, which a first edit after a start
// would wait for. Instead it is built in the background, a slice of bullets per turn of the event
// loop so requests go on meanwhile, from when someone opens the playbook (playbook.get) or when a
// delta first searches it (searchableIndexOf). Until it is done, deltas search a word-scan index,
// quick to build and exact, of the same state. A commit or a catch-up hands the build on to the
// entry that follows (moveOn), which applies their changes once every bullet of the state it started
// from is in. Whoever needs the index itself (MCP search) finishes the build.

interface Warm {
  /** The entry the index will be for. */
  owner: EngineEntry;
  index: SimilarityIndex;
  /** The bullets of the state the build started from that are not indexed yet. */
  remaining: Iterator<BulletState>;
  /** Changes since that state, applied once `remaining` is done. */
  pending: VersionChange[];
  /**
   * What deltas search meanwhile (quickIndexOf): built in about a tenth of the time, 3 MB for
   * 10,000 bullets, kept in step with the owner's state and dropped with the build.
   */
  quick: SimilarityIndex | null;
}

/** Bullets indexed per turn of the event loop: about 10 ms. */
const WARM_SLICE = 300;
/**
 * While requests are being answered (one in the last 100 ms), a slice of 30 bullets (about 1 ms)
 * every 50 ms: the build still ends, in about 15 s for 10,000 bullets under constant load, and takes
 * about 2 % of the event loop from the requests meanwhile.
 */
const SERVING_WINDOW_MS = 100;
const BUSY_SLICE = 30;
const BUSY_PAUSE_MS = 50;
/** Changes handed on to a build that has not ended yet, past which it is given up (first need builds the index). */
const MAX_PENDING_CHANGES = 10_000;

// On globalThis, as the states are: the route that starts a build and the one that needs the index
// may be separate module instances.
const globalForWarms = globalThis as typeof globalThis & { __aceIndexWarms?: WeakMap<EngineEntry, Warm> };
const warms = (globalForWarms.__aceIndexWarms ??= new WeakMap());

/** Indexes up to `count` more bullets; true once none is left. */
function indexSlice(warm: Warm, count: number): boolean {
  for (let added = 0; added < count; added += 1) {
    const next = warm.remaining.next();
    if (next.done) return true;
    if (next.value.status === "active") warm.index.add(next.value.externalId, next.value.content);
  }
  return false;
}

function finishWarm(warm: Warm): SimilarityIndex {
  while (!indexSlice(warm, Number.POSITIVE_INFINITY));
  syncSimilarityIndex(warm.index, warm.pending);
  warms.delete(warm.owner);
  warm.owner.index = warm.index;
  recountEntry(warm.owner);
  return warm.index;
}

/** How a background build paces itself; see WARM_SLICE and BUSY_SLICE. */
interface WarmPace {
  /** Bullets per turn (tests make it small to meet the build half-way). */
  slice?: number;
  /** While `busy()`, this many bullets every BUSY_PAUSE_MS instead. */
  busySlice?: number;
  busy?: () => boolean;
}

const serving = () => recentlyServing(SERVING_WINDOW_MS);

/**
 * Starts building the playbook's near-duplicate index in the background, unless it is built or
 * being built. Resolves when the build is done or given up (the state was dropped or reloaded);
 * callers need not wait for it.
 */
export async function warmSimilarityIndex(db: Db, playbookId: string, pace: WarmPace = {}): Promise<void> {
  // Built or being built for the cached state: nothing to read (a later version moves it on).
  const cached = cacheOf(db).get(playbookId);
  if (cached && !cached.retired && (cached.index || warms.has(cached))) return;
  const { entry } = await loadSnapshot(db, playbookId);
  const warm = startWarm(entry);
  if (warm) await runWarm(warm, pace);
}

/** The entry's build under way, or a new one; null when it needs none (built) or may not have one (retired). */
function startWarm(entry: EngineEntry): Warm | null {
  if (entry.index || entry.retired) return null;
  const underWay = warms.get(entry);
  if (underWay) return underWay;
  const warm: Warm = { owner: entry, index: createSimilarityIndex(), remaining: entry.state.bullets.values(), pending: [], quick: null };
  warms.set(entry, warm);
  return warm;
}

/** Indexes the warm's bullets a slice at a time; reads nothing from the database. */
async function runWarm(warm: Warm, { slice = WARM_SLICE, busySlice = BUSY_SLICE, busy = () => false }: WarmPace): Promise<void> {
  // Until it is done, or its entry was finished by a caller, or dropped without a successor.
  while (warms.get(warm.owner) === warm && !warm.owner.retired) {
    const giveWay = busy();
    if (indexSlice(warm, giveWay ? busySlice : slice)) {
      finishWarm(warm);
      return;
    }
    await (giveWay ? sleep(BUSY_PAUSE_MS) : nextTurn());
  }
}

/**
 * The near-duplicate index a delta searches: the entry's own once built. Before that, a word-scan
 * index of the same state (the same matches and scores, built in a tenth of the time), and the
 * entry's index is built in the background for the deltas that follow.
 */
export function searchableIndexOf(entry: EngineEntry): SimilarityIndex {
  const built = builtIndexOf(entry);
  if (built) return built;
  const underWay = warms.get(entry);
  const warm = underWay ?? startWarm(entry);
  if (!warm) return similarityIndexOf(entry);
  if (!underWay) {
    // After the delta that asked: its search and commit come first.
    sleep(BUSY_PAUSE_MS)
      .then(() => runWarm(warm, { busy: serving }))
      .catch((error: unknown) => {
        console.error("[ace-studio] building a near-duplicate index in the background failed:", error);
      });
  }
  warm.quick ??= quickIndexOf(warm);
  return warm.quick;
}

/**
 * Bullets the word-scan index of a build may score in full, as a share of those it holds, before
 * the next search finishes the build instead. Scoring one in full costs about what indexing one
 * does; at the default threshold a search scores a handful, but at a low one (0.5) almost every
 * bullet it scans.
 */
const QUICK_SCORING_SHARE = 0.25;

/** The word-scan index of the warm owner's state, within its QUICK_SCORING_SHARE. */
function quickIndexOf(warm: Warm): SimilarityIndex {
  const scan = buildSimilarityIndex(warm.owner.state.bullets.values(), createWordScanIndex);
  const budget = scan.size * QUICK_SCORING_SHARE;
  return {
    get size() {
      return scan.size;
    },
    add: scan.add,
    remove: scan.remove,
    has: scan.has,
    compare: scan.compare,
    empty: scan.empty,
    query: (content, query) => (scan.scored > budget ? similarityIndexOf(warm.owner) : scan).query(content, query),
  };
}

function activeTokens(state: PlaybookState): number {
  let total = 0;
  for (const bullet of state.bullets.values()) if (bullet.status === "active") total += stateTokens(bullet);
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
 * engine searches nothing). The entry's index is handed over as a function, called only when an
 * operation searches, and no delta waits for the index of a large playbook to be built
 * (searchableIndexOf).
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
    similarity: similarity ?? (() => searchableIndexOf(entry)),
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
    if (change.before?.status === "active") delta -= stateTokens(change.before);
    if (change.after?.status === "active") delta += stateTokens(change.after);
  }
  return delta;
}

// Builds under way per database, so that closing one can wait for them (backgroundBuilds).
const globalForBuilds = globalThis as typeof globalThis & { __aceIndexBuilds?: WeakMap<Db, Set<Promise<void>>> };
const builds = (globalForBuilds.__aceIndexBuilds ??= new WeakMap());

/** warmSimilarityIndex without waiting for it, giving way to requests (the page that opened the playbook renders first). */
export function warmInBackground(db: Db, playbookId: string): void {
  inBackground(db, warmSimilarityIndex(db, playbookId, { busy: serving }), `building the near-duplicate index of playbook ${playbookId}`);
}

// Playbooks whose state is being loaded in the background, per database.
const globalForLoads = globalThis as typeof globalThis & { __aceStateLoads?: WeakMap<Db, Set<string>> };
const loads = (globalForLoads.__aceStateLoads ??= new WeakMap());

/**
 * Loads the playbook's current state (or catches the cached one up) without waiting for it, for
 * readers that use it when it is there (the bullet list's sorted pages); one load per playbook at a time.
 */
export function loadInBackground(db: Db, playbookId: string): void {
  const loading = loads.get(db) ?? new Set<string>();
  loads.set(db, loading);
  if (loading.has(playbookId)) return;
  loading.add(playbookId);
  const load = sleep(BUSY_PAUSE_MS)
    .then(() => loadSnapshot(db, playbookId))
    .finally(() => loading.delete(playbookId));
  inBackground(db, load, `loading the state of playbook ${playbookId}`);
}

/** Tracks work started in the background (backgroundBuilds waits for it): a playbook deleted meanwhile is no trouble; anything else is logged. */
function inBackground(db: Db, work: Promise<unknown>, what: string): void {
  const underWay = builds.get(db) ?? new Set<Promise<void>>();
  builds.set(db, underWay);
  const tracked = work
    .then(() => undefined)
    .catch((error: unknown) => {
      if (error instanceof AppError && error.code === "NOT_FOUND") return;
      console.error(`[ace-studio] ${what} in the background failed:`, error);
    })
    .finally(() => underWay.delete(tracked));
  underWay.add(tracked);
}

/** Resolves once the background builds started on this database are over (before it is closed). */
export async function backgroundBuilds(db: Db): Promise<void> {
  await Promise.all([...(builds.get(db) ?? [])]);
}
