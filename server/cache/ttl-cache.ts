// Entries that are served for a fixed time after they were stored, on top of the server's one kind
// of cache (server/cache/lru.ts: least recently used first past a bound in bytes). What the hot API
// paths keep between requests (verified API keys, experiment definitions): each app instance has its
// own, so every user states how long a change made through another instance may go unseen.
import { createByteBoundedCache, type LRUCache } from "./lru";

export interface TtlCacheOptions<V> {
  /** How long an entry is served after it was stored. */
  ttlMs: number;
  /** The most the entries may take together, as measured by sizeOf. */
  maxBytes: number;
  /** An estimate of an entry's bytes. */
  sizeOf: (value: V) => number;
  /** The clock (tests move it). */
  now?: () => number;
}

interface Stored<V> {
  value: V;
  storedAt: number;
}

export class TtlCache<V extends NonNullable<unknown>> {
  private readonly entries: LRUCache<string, Stored<V>>;

  constructor(private readonly options: TtlCacheOptions<V>) {
    this.entries = createByteBoundedCache<string, Stored<V>>({
      maxBytes: options.maxBytes,
      sizeOf: (stored, key) => 2 * key.length + options.sizeOf(stored.value),
    });
  }

  get(key: string): V | undefined {
    const stored = this.entries.get(key);
    if (!stored) return undefined;
    const age = this.now() - stored.storedAt;
    // A clock set back (by hand, or by a test) would otherwise keep the entry for as long again.
    if (age >= this.options.ttlMs || age < 0) {
      this.entries.delete(key);
      return undefined;
    }
    return stored.value;
  }

  set(key: string, value: V): void {
    this.entries.set(key, { value, storedAt: this.now() });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose value matches (a revoked key under any token that presented it). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, stored] of [...this.entries.entries()]) if (matches(stored.value)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.entries.calculatedSize;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
