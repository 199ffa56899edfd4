// The server's one kind of in-memory cache: least recently used entries go first once the entries'
// estimated sizes add up past a bound in bytes. Built on lru-cache (maxSize + sizeCalculation): a
// count bound alone lets a cache of large values (embeddings, 10,000-bullet playbook states) grow
// to hundreds of megabytes.
import { LRUCache } from "lru-cache";

export type { LRUCache };

export const MEGABYTE = 1024 * 1024;

export interface ByteBoundedCacheOptions<K, V> {
  /** Upper bound of the entries' summed sizes. An entry larger than this alone is not kept. */
  maxBytes: number;
  /** What an entry holds in memory, estimated (approximateBytes estimates any plain value). */
  sizeOf(value: V, key: K): number;
  /** Told when an entry leaves: evicted, replaced, deleted or cleared. */
  onRemove?(value: V, key: K, reason: LRUCache.DisposeReason): void;
}

export function createByteBoundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  options: ByteBoundedCacheOptions<K, V>,
): LRUCache<K, V> {
  const { maxBytes, sizeOf, onRemove } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1)
    throw new RangeError(`A cache's maxBytes must be a positive whole number, got ${maxBytes}.`);
  return new LRUCache<K, V>({
    maxSize: maxBytes,
    // lru-cache wants a positive whole number; an estimate may be neither.
    sizeCalculation: (value, key) => Math.max(1, Math.ceil(sizeOf(value, key))),
    ...(onRemove ? { dispose: onRemove } : {}),
  });
}

/**
 * One cache per scope object (a database client): each scope gets its own cache, made on first use,
 * and it goes when the scope is garbage-collected.
 */
export function cachePerScope<S extends object, C>(create: () => C): (scope: S) => C {
  const caches = new WeakMap<S, C>();
  return (scope) => {
    let cache = caches.get(scope);
    if (cache === undefined) {
      cache = create();
      caches.set(scope, cache);
    }
    return cache;
  };
}

// ---- Estimating sizes --------------------------------------------------------------------------
// V8's layout in round numbers: enough to bound a cache, not a heap profile. Strings count two
// bytes a character (one-byte strings take half that: an estimate errs on the large side).

const HEADER = 16;
const SLOT = 8;

/**
 * Bytes a value holds: strings, numbers, arrays, typed arrays, maps, sets, dates and plain objects,
 * walked deeply; an object reached twice counts once. Functions count as their header only (what a
 * closure holds is invisible from outside).
 */
export function approximateBytes(value: unknown): number {
  const seen = new WeakSet<object>();
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    switch (typeof item) {
      case "string":
        total += HEADER + 2 * item.length;
        continue;
      case "number":
      case "bigint":
        total += SLOT;
        continue;
      case "boolean":
      case "undefined":
      case "symbol":
        continue;
      case "function":
        total += 4 * SLOT;
        continue;
    }
    if (item === null || seen.has(item as object)) continue;
    seen.add(item as object);
    if (ArrayBuffer.isView(item)) {
      total += HEADER * 4 + item.byteLength;
    } else if (item instanceof ArrayBuffer) {
      total += HEADER * 2 + item.byteLength;
    } else if (Array.isArray(item)) {
      total += HEADER + SLOT * item.length;
      for (const element of item) stack.push(element);
    } else if (item instanceof Map) {
      total += HEADER + 3 * SLOT * item.size;
      for (const [key, entry] of item) stack.push(key, entry);
    } else if (item instanceof Set) {
      total += HEADER + 2 * SLOT * item.size;
      for (const entry of item) stack.push(entry);
    } else if (item instanceof Date) {
      total += HEADER + SLOT;
    } else {
      const entries = Object.values(item as object);
      total += HEADER + SLOT * entries.length;
      for (const entry of entries) stack.push(entry);
    }
  }
  return total;
}
