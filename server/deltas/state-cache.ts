// The playbook states the delta engine works on, one per playbook, in a least-recently-used cache
// bounded in bytes (server/cache/lru.ts): ACE_PLAYBOOK_CACHE_MB per database, 512 by default.
import { LayeredMap, type PlaybookState } from "@/server/ace/delta";
import type { BulletState, VersionChange } from "@/server/ace/history";
import type { SimilarityIndex } from "@/server/ace/similarity";
import type { PlaybookFigures } from "@/server/ace/version-figures";
import { createByteBoundedCache, type LRUCache } from "@/server/cache/lru";
import type { ExportBulletExtras } from "@/server/playbooks/repositories/bullet-states";

export interface EngineEntry {
  version: number;
  state: PlaybookState;
  /**
   * Near-duplicate index of the state's active bullets; null until first needed (similarityIndexOf).
   * It lags the state by `unindexed`, which its next reader applies first (engine-state.ts builtIndexOf).
   */
  index: SimilarityIndex | null;
  /** Changes committed since the index was last brought up to date, oldest first. */
  unindexed: readonly VersionChange[];
  /**
   * Tokens of the active bullets' lines in the compiled playbook (countBulletTokens): the sum of the
   * counts stored with them when loaded, else counted on first need (about 1 s for 10,000 bullets).
   */
  tokens: number | null;
  /**
   * The figures stored with this version (server/metrics/figures.ts) when this process wrote it, so
   * the next write advances them without reading them back; null when the state was loaded or caught up.
   */
  figures: PlaybookFigures | null;
  /**
   * What exports write of the bullets beyond their states (listBulletExtras), read by the first
   * export of this version or an earlier one; null until then.
   */
  extras: EntryExtras | null;
  /** The version moved on from this entry, or it was forgotten: whoever holds it reloads. */
  retired: boolean;
}

/**
 * Bullets' extras as an export read them, and the bullets changed since, whose rows the next export
 * reads again: a commit writes no extras but a changed bullet's update time (new bullets all of
 * theirs), and every row a version writes is one of its recorded changes (commit.ts, import.ts).
 */
export interface EntryExtras {
  /** Rows read again are laid over the older ones (LayeredMap), which stay held below until a copy. */
  rows: ReadonlyMap<string, ExportBulletExtras>;
  stale: ReadonlySet<string>;
  /** A row's estimated size, as the read of all of them found it (listBulletExtras). */
  rowBytes: number;
}

const extrasBytes = ({ rows, rowBytes }: EntryExtras) => rowBytes * (rows.size + (rows instanceof LayeredMap ? rows.held : 0));

/**
 * Bullets that may be stale before the extras are dropped instead: re-reading them by id costs
 * about what a whole read does by then, and the set is copied by every commit.
 */
const MAX_STALE_EXTRAS = 2_000;

/** `extras` after `changes`: their bullets are stale. */
export function carryExtras(extras: EntryExtras | null, changes: readonly VersionChange[]): EntryExtras | null {
  if (!extras) return null;
  let stale: Set<string> | null = null;
  for (const change of changes) {
    if (change.entity !== "bullet" || extras.stale.has(change.id)) continue;
    stale ??= new Set(extras.stale);
    stale.add(change.id);
  }
  if (!stale) return extras;
  return stale.size > MAX_STALE_EXTRAS ? null : { ...extras, stale };
}

// What an entry holds, measured with `node --expose-gc` (heapUsed after gc, before and after) on the
// benchmark's synthetic playbook of 10,000 bullets loaded from PostgreSQL, 195 characters each:
// - the state, 4.7 MB: 280 B a bullet (its object, id, section id, map slot) plus its content, one
//   byte a character for Latin-1 text; two are counted here, as text outside Latin-1 takes;
// - the similarity index, 56 MB: 5.6 KB a bullet. With contents three times as long (586
//   characters) it took 116 MB, so it grows about 15 B a character on top of 2.6 KB a bullet.
const STATE_BYTES_PER_BULLET = 300;
const STATE_BYTES_PER_CHARACTER = 2;
const INDEX_BYTES_PER_BULLET = 2_600;
const INDEX_BYTES_PER_CHARACTER = 15;

/** The entry's estimated size in memory; the index counts only once built (it indexes active bullets), the extras once read. */
export function entryBytes(entry: EngineEntry): number {
  const sizes = sizesOf(entry.state);
  return sizes.state + sizes.held + (entry.index ? sizes.index : 0) + (entry.extras ? extrasBytes(entry.extras) : 0);
}

/** A state's estimated bytes, and those of an index of its active bullets. */
interface StateSizes {
  state: number;
  index: number;
  /**
   * The bullets its map still holds beyond them: states a delta made keep the bullets it replaced in
   * the layers below (LayeredMap) until a later delta copies the map.
   */
  held: number;
}

// Each state's sizes, counted once: a pass over 10,000 bullets took 1.2 ms of every commit, which
// caches the state it made. A state a commit or a catch-up made is sized from its predecessor's.
const SIZES = new WeakMap<PlaybookState, StateSizes>();

function sizesOf(state: PlaybookState): StateSizes {
  let sizes = SIZES.get(state);
  if (!sizes) {
    sizes = { state: 0, index: 0, held: 0 };
    for (const bullet of state.bullets.values()) addSizes(sizes, bullet, 1);
    SIZES.set(state, sizes);
  }
  return sizes;
}

const stateBytes = (bullet: BulletState) => STATE_BYTES_PER_BULLET + STATE_BYTES_PER_CHARACTER * bullet.content.length;

function addSizes(sizes: StateSizes, bullet: BulletState, sign: 1 | -1): void {
  const characters = bullet.content.length;
  sizes.state += sign * stateBytes(bullet);
  if (bullet.status === "active") sizes.index += sign * (INDEX_BYTES_PER_BULLET + INDEX_BYTES_PER_CHARACTER * characters);
}

/**
 * Sizes `next` from `from`'s sizes, when they were counted, and the changes that lead from one to
 * the other (every changed bullet, before and after), instead of a pass over every bullet.
 */
export function carrySizes(from: PlaybookState, next: PlaybookState, changes: readonly VersionChange[]): void {
  const known = SIZES.get(from);
  if (!known || SIZES.has(next)) return;
  // Layered over `from`'s map, `next`'s keeps what the changes replaced; a copy keeps nothing more.
  const layered = next.bullets instanceof LayeredMap;
  const sizes = { ...known, held: layered ? known.held : 0 };
  for (const change of changes) {
    if (change.entity !== "bullet") continue;
    if (change.before) {
      addSizes(sizes, change.before, -1);
      if (layered) sizes.held += stateBytes(change.before);
    }
    if (change.after) addSizes(sizes, change.after, 1);
  }
  SIZES.set(next, sizes);
}

/**
 * The cache holds each entry in a slot of its own: lru-cache (11.x) recounts a key's size only when
 * a set brings a different value, so an entry that grew (its index built) is set again in a new slot.
 */
interface Slot {
  entry: EngineEntry;
}

// How to count an entry again in the cache that holds it. On globalThis, as the caches are
// (engine-state.ts): Next.js may load these modules more than once.
const globalForRecounts = globalThis as typeof globalThis & { __acePlaybookStateRecounts?: WeakMap<EngineEntry, () => void> };
const recounts = (globalForRecounts.__acePlaybookStateRecounts ??= new WeakMap());

/** Counts the entry's size again after it grew (its index built, its extras read), if a cache still holds it. */
export function recountEntry(entry: EngineEntry): void {
  recounts.get(entry)?.();
}

export interface EngineStateCache {
  /** The playbook's cached entry, now the most recently used. */
  get(playbookId: string): EngineEntry | undefined;
  /**
   * Caches the entry as the playbook's newest, retiring the one it replaces; an older version is
   * ignored. Returns the entry cached for its version: another one, loaded at the same time and
   * remembered first, is kept (and its index, built or being built, with it).
   */
  remember(playbookId: string, entry: EngineEntry): EngineEntry;
  /** Drops and retires every entry. */
  clear(): void;
  /** The cached entries' summed estimated sizes. */
  readonly bytes: number;
}

/**
 * Leaving the cache retires an entry only when it is deleted or cleared (forgotten on purpose).
 * Evicted to make room, or dropped by a set (replaced, or grown past the whole bound), it stays
 * usable by whoever holds it: its state is still exact for its version, a commit from it still
 * checks that version, and retiring it would make writers on several large playbooks retire one
 * another's states until they run out of attempts. A newer version that replaces it retires it
 * in remember(), since its similarity index then moves on with the newer state.
 */
export function createEngineStateCache(maxBytes: number): EngineStateCache {
  const slots: LRUCache<string, Slot> = createByteBoundedCache<string, Slot>({
    maxBytes,
    sizeOf: (slot) => entryBytes(slot.entry),
    onRemove: (slot, _playbookId, reason) => {
      if (reason === "delete") slot.entry.retired = true;
    },
  });
  return {
    get: (playbookId) => slots.get(playbookId)?.entry,
    remember(playbookId, entry) {
      // peek: looking at the current entry is no use of it.
      const current = slots.peek(playbookId)?.entry;
      if (current && current.version === entry.version && !current.retired) return current;
      if (current && current.version >= entry.version) return entry;
      if (current) current.retired = true;
      recounts.set(entry, () => {
        if (slots.peek(playbookId)?.entry === entry) slots.set(playbookId, { entry });
      });
      slots.set(playbookId, { entry });
      return entry;
    },
    clear: () => slots.clear(),
    get bytes() {
      return slots.calculatedSize;
    },
  };
}
