// A map made from another with some entries set, in the time it takes to set them: a delta's new
// state over the state it was applied to, instead of a copy of its 10,000 bullets (1.3 ms a delta).

/** Layers a read may go through before a new layer flattens them into one Map. */
export const MAX_LAYERS = 32;
/**
 * Entries the layers may hold above their bottom Map, as a share of the map's size, before a new
 * layer flattens them: replaced entries stay in the layers below, so they cost memory beside it.
 */
const MAX_HELD_SHARE = 0.5;

/**
 * A ReadonlyMap that reads as `new Map(base)` with `top`'s entries set would: the base's keys in
 * their order, then top's new keys in its order. A read goes down the layers; the first walk over
 * all entries (an iteration, forEach) flattens them into one Map, kept, and lets the layers below
 * go. Values are never undefined (bullet states), so a layer that lacks a key is told by get.
 * Its entries are private: structuredClone copies none of them (copy `new Map(map)` instead).
 */
export class LayeredMap<K, V> implements ReadonlyMap<K, V> {
  readonly size: number;
  readonly layers: number;
  /** Entries in the layers, this one's and those below it down to a Map. */
  readonly held: number;
  #base: ReadonlyMap<K, V> | null;
  #top: ReadonlyMap<K, V> | null;
  #flat: Map<K, V> | null = null;

  private constructor(base: ReadonlyMap<K, V>, top: ReadonlyMap<K, V>, layers: number, held: number) {
    this.#base = base;
    this.#top = top;
    this.layers = layers;
    this.held = held;
    let added = 0;
    for (const key of top.keys()) if (!base.has(key)) added += 1;
    this.size = base.size + added;
  }

  /** `base` with `top` set on it; `top` must not change afterwards. */
  static over<K, V>(base: ReadonlyMap<K, V>, top: ReadonlyMap<K, V>): ReadonlyMap<K, V> {
    const layered = base instanceof LayeredMap && !base.#flat ? (base as LayeredMap<K, V>) : null;
    const layers = (layered?.layers ?? 0) + 1;
    const held = (layered?.held ?? 0) + top.size;
    if (layers <= MAX_LAYERS && held <= base.size * MAX_HELD_SHARE) return new LayeredMap(base, top, layers, held);
    return LayeredMap.#copy(base, [top]);
  }

  /** A new Map of `map` with `tops` set on it, the last first: each layer's Map copied once, not once per layer. */
  static #copy<K, V>(map: ReadonlyMap<K, V>, tops: ReadonlyMap<K, V>[]): Map<K, V> {
    let bottom = map;
    while (bottom instanceof LayeredMap && !bottom.#flat) {
      const layer = bottom as LayeredMap<K, V>;
      tops.push(layer.#top as ReadonlyMap<K, V>);
      bottom = layer.#base as ReadonlyMap<K, V>;
    }
    const flat = new Map(bottom instanceof LayeredMap ? (bottom.#flat as Map<K, V>) : bottom);
    for (let i = tops.length - 1; i >= 0; i -= 1) for (const [key, value] of tops[i] as ReadonlyMap<K, V>) flat.set(key, value);
    return flat;
  }

  get(key: K): V | undefined {
    if (this.#flat) return this.#flat.get(key);
    return this.#top?.get(key) ?? this.#base?.get(key);
  }

  has(key: K): boolean {
    if (this.#flat) return this.#flat.has(key);
    return (this.#top?.has(key) ?? false) || (this.#base?.has(key) ?? false);
  }

  #flattened(): Map<K, V> {
    if (!this.#flat) {
      this.#flat = LayeredMap.#copy(this, []);
      this.#base = null;
      this.#top = null;
    }
    return this.#flat;
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.#flattened()) callback.call(thisArg, value, key, this);
  }

  entries(): MapIterator<[K, V]> {
    return this.#flattened().entries();
  }

  keys(): MapIterator<K> {
    return this.#flattened().keys();
  }

  values(): MapIterator<V> {
    return this.#flattened().values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.#flattened()[Symbol.iterator]();
  }
}
