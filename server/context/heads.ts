// The playbook heads that context requests resolve (name, version, settings, published version),
// kept for a moment in this process: an agent's conditional poll is then answered (304) without a
// database round trip, which was half of what a cached poll cost on PGlite.
//
// Bounds, as for verified API keys (server/apikeys/service.ts):
// - A write made through this process (commitChanges, an import, a settings change, a publication)
//   drops the playbook's head once it has committed, so this process never answers with a head
//   older than its own writes.
// - A write made by another app instance on the same PostgreSQL database, or by the CLI, is seen
//   within HEAD_TTL_MS: its agents' next poll after that gets the new version.
// Kept on globalThis, like the request counter (server/http/activity.ts): Next.js may load the route
// handlers and the job worker, whose reflections write versions, as separate module instances.
import { approximateBytes, MEGABYTE } from "@/server/cache/lru";
import { TtlCache } from "@/server/cache/ttl-cache";
import type { DbOrTx } from "@/server/db/client";
import { contextNow } from "./clock";
import type { PlaybookHead } from "./repository";

/** How long a head read from the database is served before it is read again. */
export const HEAD_TTL_MS = 1_000;
const HEADS_MAX_BYTES = MEGABYTE;

interface Heads {
  cache: TtlCache<PlaybookHead>;
  /** Counts the writes that dropped heads: a read that a write overtook is not kept. */
  writes: number;
}

const KEY = Symbol.for("ace-studio.playbook-heads");

function headsOf(db: DbOrTx): Heads {
  const holder = globalThis as typeof globalThis & { [KEY]?: WeakMap<DbOrTx, Heads> };
  const all = (holder[KEY] ??= new WeakMap());
  let heads = all.get(db);
  if (!heads) {
    heads = {
      cache: new TtlCache<PlaybookHead>({ ttlMs: HEAD_TTL_MS, maxBytes: HEADS_MAX_BYTES, sizeOf: approximateBytes, now: contextNow }),
      writes: 0,
    };
    all.set(db, heads);
  }
  return heads;
}

/**
 * The head under `key` (a name or an id as the caller was given it), read with `read` unless this
 * process read it less than HEAD_TTL_MS ago and has written nothing to it since. A missing playbook
 * is not kept: it is read again each time.
 */
export async function keptHead(db: DbOrTx, key: string, read: () => Promise<PlaybookHead | null>): Promise<PlaybookHead | null> {
  const heads = headsOf(db);
  const kept = heads.cache.get(key);
  if (kept) return kept;
  const writesBefore = heads.writes;
  const head = await read();
  // A write that committed while this read was under way may have been missed by it.
  if (head && heads.writes === writesBefore) heads.cache.set(key, head);
  return head;
}

function drop(db: DbOrTx, matches: (head: PlaybookHead) => boolean): void {
  const heads = headsOf(db);
  heads.writes += 1;
  heads.cache.deleteWhere(matches);
}

/** Drops every head kept for this database: its tables were emptied (tests) or restored. */
export function forgetHeads(db: DbOrTx): void {
  drop(db, () => true);
}

/** Called after a transaction that changed the playbook's row has committed (or a statement that did). */
export function forgetHead(db: DbOrTx, playbookId: string): void {
  drop(db, (head) => head.id === playbookId);
}
