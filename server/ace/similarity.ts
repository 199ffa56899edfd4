// Near-duplicate detection for bullets. The engine only sees scores through SimilarityIndex, so a
// model's embeddings can replace the local n-gram vectors later without touching the engine.
// The default index over a playbook's bullets lives here; what scores texts is in similarity-scores.ts.
import type { BulletState, VersionChange } from "./history";
import { createFewSimilarityIndex } from "./few-similarity-index";
import {
  FAMILIES,
  FEATURE_WEIGHTS,
  MARK,
  STOP_EPSILON,
  bestFirst,
  clamp,
  cosine,
  normalizeForSimilarity,
  rememberingLast,
  vectorizeText,
  walkFeatures,
  type Family,
  type SimilarityIndex,
  type SimilarityMatch,
  type SimilarityQuery,
  type SparseVector,
  type Vectorizer,
} from "./similarity-scores";

export * from "./similarity-scores";
export { createFewSimilarityIndex } from "./few-similarity-index";

// ---- the index ---------------------------------------------------------------------------------

/**
 * How a vectorizer's features group into blocks and the longest each block can be in a stored
 * vector. The index uses it to stop reading postings early (see createSimilarityIndex).
 */
export interface VectorBlocks {
  of(key: string): string;
  /** Block → the largest length a block of a stored vector normally has. */
  caps: Readonly<Record<string, number>>;
}

const NGRAM_BLOCKS: VectorBlocks = {
  of: (key) => key.charAt(0),
  caps: Object.fromEntries((Object.keys(MARK) as Family[]).map((family) => [MARK[family], Math.sqrt(FEATURE_WEIGHTS[family])])),
};
// Any unit vector fits one block of length 1: plain Cauchy–Schwarz.
const ONE_BLOCK: VectorBlocks = { of: () => "", caps: { "": 1 } };

export interface LocalSimilarityOptions {
  /** Default vectorizeText; must return unit-length vectors. */
  vectorize?: Vectorizer;
  /** Default: the n-gram families for vectorizeText, one block otherwise. */
  blocks?: VectorBlocks;
}

interface StoredVector {
  bulletId: string;
  features: Int32Array;
  weights: Float64Array;
}

interface QueryFeature {
  /** Undefined when no stored vector has the feature. */
  id: number | undefined;
  weight: number;
  block: string;
}

// Once no unseen vector can reach the threshold, a posting list is still read, to drop candidates,
// while it is no longer than this many entries per candidate left: scoring a candidate in full
// costs about as much as reading that many postings.
const POSTINGS_PER_CANDIDATE = 64;

/**
 * The default index: local, deterministic, no network. Features are interned to numbers; an
 * inverted index from feature to stored vectors (and the weight each gives the feature) generates
 * candidates, which are then scored exactly.
 * The query's features are read one posting list at a time, and new candidates stop being taken once
 * no unseen vector can reach the threshold: a vector sharing none of the features read so far scores
 * at most, per block, the smaller of (unread length of the query's block × the block's cap)
 * (Cauchy–Schwarz) and Σ |q_f| × the largest weight any vector gives f. With the n-gram blocks and a
 * threshold above 0.8 that mostly means reading bigrams and rare words.
 * A candidate's score is its dot product over the features read (summed while reading) plus at most
 * that same bound over the unread ones. With a small vocabulary even the rarest words are common, so
 * the candidates run into thousands, most sharing one word and little else: reading goes on through
 * the cheaper remaining lists, only adding to the candidates' sums, and drops every candidate whose
 * sum plus the bound falls under the threshold. The few left are scored in full.
 * Vectors with a block over its cap (one-word bullets, which have no bigrams) are always scored,
 * so no bullet at or above the threshold is missed.
 */
export function createSimilarityIndex(options: LocalSimilarityOptions = {}): SimilarityIndex {
  const vectorize = options.vectorize ?? vectorizeText;
  // Queries remember their last text's vector, and so do the indexes for a few texts made from this
  // one: a delta asks this index and its own about a text, then writes it there.
  const vectorizeQuery = rememberingLast(vectorize);
  const blocks = options.blocks ?? (options.vectorize ? ONE_BLOCK : NGRAM_BLOCKS);
  const featureIds = new Map<string, number>();
  const featureBlocks: string[] = [];
  // Postings hold slots, and beside them the weight the slot's vector gives the feature; a removed or
  // re-indexed bullet leaves its old slot empty until compaction.
  const postings: number[][] = [];
  const postingWeights: number[][] = [];
  // Per feature, the largest |weight| any stored vector within the caps gives it: a second bound.
  const maxWeights: number[] = [];
  const slots: (StoredVector | null)[] = [];
  const slotOf = new Map<string, number>();
  const alwaysScored = new Set<number>();
  let emptySlots = 0;

  function featureId(key: string): number {
    let id = featureIds.get(key);
    if (id === undefined) {
      id = featureBlocks.length;
      featureIds.set(key, id);
      featureBlocks.push(blocks.of(key));
      postings.push([]);
      postingWeights.push([]);
      maxWeights.push(0);
    }
    return id;
  }

  function remove(bulletId: string): void {
    const slot = slotOf.get(bulletId);
    if (slot === undefined) return;
    slotOf.delete(bulletId);
    slots[slot] = null;
    alwaysScored.delete(slot);
    emptySlots += 1;
    if (emptySlots > 1_000 && emptySlots > slotOf.size) compact();
  }

  function add(bulletId: string, content: string): void {
    remove(bulletId);
    store(slots.length, options.vectorize ? vectorOf(bulletId, vectorize(content)) : ngramVectorOf(bulletId, content));
  }

  function vectorOf(bulletId: string, vector: SparseVector): StoredVector {
    const features = new Int32Array(vector.size);
    const weights = new Float64Array(vector.size);
    let index = 0;
    for (const [key, weight] of vector) {
      features[index] = featureId(key);
      weights[index] = weight;
      index += 1;
    }
    return { bulletId, features, weights };
  }

  // The default vectorizer's features counted straight into feature ids, the same vector as
  // vectorOf(vectorizeText(content)) in the same order (words, bigrams, trigrams, each as first
  // seen), with the same arithmetic, so scores are bit for bit the same. Words are numbered, so a
  // bigram of two numbered words and a trigram of three ASCII characters are looked up by a small
  // integer (a V8 Smi: no string made or hashed). Scratch: per feature id its count in the text being
  // added, zero again after each add.
  const wordNumbers = new Map<string, number>();
  const wordFeatures: number[] = [];
  const bigramIds = new Map<number, number>();
  const trigramIds = new Map<number, number>();
  const WORD_NUMBERS = 1 << 15; // two of them side by side stay under 2^30
  let counts = new Int32Array(4096);

  function wordNumber(word: string): number {
    let number = wordNumbers.get(word);
    if (number === undefined) {
      number = wordFeatures.length;
      wordNumbers.set(word, number);
      wordFeatures.push(featureId(MARK.word + word));
    }
    return number;
  }

  function ngramVectorOf(bulletId: string, content: string): StoredVector {
    const normalized = normalizeForSimilarity(content);
    const order: Record<Family, number[]> = { word: [], bigram: [], trigram: [] };
    const note = (family: Family, id: number) => {
      if (id >= counts.length) {
        const grown = new Int32Array(Math.max(id + 1, counts.length * 2));
        grown.set(counts);
        counts = grown;
      }
      if (counts[id] === 0) order[family].push(id);
      counts[id] = (counts[id] ?? 0) + 1;
    };
    if (normalized !== "") {
      walkFeatures(normalized, {
        word: (word) => note("word", wordFeatures[wordNumber(word)] as number),
        bigram: (first, second) => {
          const a = wordNumber(first);
          const b = wordNumber(second);
          const code = a < WORD_NUMBERS && b < WORD_NUMBERS ? a * WORD_NUMBERS + b : -1;
          let id = code < 0 ? undefined : bigramIds.get(code);
          if (id === undefined) {
            id = featureId(`${MARK.bigram}${first} ${second}`);
            if (code >= 0) bigramIds.set(code, id);
          }
          note("bigram", id);
        },
        trigram: (text, at) => {
          const a = text.charCodeAt(at);
          const b = text.charCodeAt(at + 1);
          const c = text.charCodeAt(at + 2);
          const code = a < 128 && b < 128 && c < 128 ? (a << 14) | (b << 7) | c : -1;
          let id = code < 0 ? undefined : trigramIds.get(code);
          if (id === undefined) {
            id = featureId(MARK.trigram + text.slice(at, at + 3));
            if (code >= 0) trigramIds.set(code, id);
          }
          note("trigram", id);
        },
        gram: (gram) => note("trigram", featureId(MARK.trigram + gram)),
      });
    }
    const present = FAMILIES.filter((family) => order[family].length > 0);
    const total = present.reduce((sum, family) => sum + FEATURE_WEIGHTS[family], 0);
    const features = new Int32Array(order.word.length + order.bigram.length + order.trigram.length);
    const weights = new Float64Array(features.length);
    let index = 0;
    for (const family of present) {
      let squares = 0;
      for (const id of order[family]) squares += (counts[id] ?? 0) * (counts[id] ?? 0);
      const scale = Math.sqrt(FEATURE_WEIGHTS[family] / total / squares);
      for (const id of order[family]) {
        features[index] = id;
        weights[index] = (counts[id] ?? 0) * scale;
        counts[id] = 0;
        index += 1;
      }
    }
    return { bulletId, features, weights };
  }

  function store(slot: number, stored: StoredVector): void {
    const { features, weights } = stored;
    slots[slot] = stored;
    slotOf.set(stored.bulletId, slot);
    for (let index = 0; index < features.length; index += 1) {
      const feature = features[index] ?? 0;
      postings[feature]?.push(slot);
      postingWeights[feature]?.push(weights[index] ?? 0);
    }
    if (exceedsCaps(stored)) {
      alwaysScored.add(slot);
      return;
    }
    for (let index = 0; index < features.length; index += 1) {
      const feature = features[index] ?? 0;
      maxWeights[feature] = Math.max(maxWeights[feature] ?? 0, Math.abs(weights[index] ?? 0));
    }
  }

  function exceedsCaps(stored: StoredVector): boolean {
    const squares: Record<string, number> = {};
    for (let index = 0; index < stored.features.length; index += 1) {
      const block = featureBlocks[stored.features[index] ?? 0] ?? "";
      squares[block] = (squares[block] ?? 0) + (stored.weights[index] ?? 0) ** 2;
    }
    return Object.entries(squares).some(([block, sum]) => Math.sqrt(sum) > (blocks.caps[block] ?? 1) + STOP_EPSILON);
  }

  function compact(): void {
    const live = slots.filter((stored): stored is StoredVector => stored !== null);
    slots.length = 0;
    slotOf.clear();
    alwaysScored.clear();
    for (const list of postings) list.length = 0;
    for (const list of postingWeights) list.length = 0;
    maxWeights.fill(0);
    emptySlots = 0;
    live.forEach((stored, slot) => store(slot, stored));
  }

  // Per-query scratch: the query's weights by feature id (dense, so scoring a candidate is one pass
  // over typed arrays), and per slot a visit mark and the dot product over the features read so far
  // (meaningful only while the mark is this query's). queryWeights is reset after each query.
  let queryWeights = new Float64Array(1024);
  let visited = new Uint32Array(1024);
  let partial = new Float64Array(1024);
  let visit = 0;

  /** Slots that may reach the threshold: the reading and dropping described above. */
  function candidates(query: readonly QueryFeature[], threshold: number): number[] {
    // Cheapest bound reduction first: features no stored vector has cost nothing, then the most
    // |q_f| × maxWeight_f per posting read; a bigram such as "page index" that thousands of bullets
    // share is read after a rare word that lowers the bound as much.
    const ordered = [...query].sort((a, b) => readingPriority(b) - readingPriority(a));
    // Per block, the unread part of the query: its squared length and Σ |q_f| × maxWeight_f.
    const unread = new Map<string, { squares: number; maxDot: number }>();
    const account = ({ id, weight, block }: QueryFeature, sign: 1 | -1) => {
      const entry = unread.get(block) ?? { squares: 0, maxDot: 0 };
      entry.squares += sign * weight * weight;
      entry.maxDot += sign * Math.abs(weight) * (id === undefined ? 0 : (maxWeights[id] ?? 0));
      unread.set(block, entry);
    };
    ordered.forEach((feature) => account(feature, 1));
    const bound = () => {
      let sum = 0;
      for (const [block, { squares, maxDot }] of unread) {
        sum += Math.min(Math.sqrt(Math.max(0, squares)) * (blocks.caps[block] ?? 1), Math.max(0, maxDot));
      }
      return sum;
    };
    const floor = threshold - STOP_EPSILON;
    if (visited.length < slots.length) {
      visited = new Uint32Array(slots.length * 2);
      partial = new Float64Array(slots.length * 2);
    }
    // Marks wrap within the Uint32Array's range; 0 is never a query's mark.
    visit = visit === 0xffff_ffff ? 1 : visit + 1;
    if (visit === 1) visited.fill(0);
    // Marked as seen, so reading never makes them candidates to drop: the bound does not hold for them.
    const always = [...alwaysScored];
    for (const slot of always) visited[slot] = visit;
    const found: number[] = [];
    let next = 0;
    // Taking candidates: every slot in a posting list read, while an unseen vector may still reach the threshold.
    for (; next < ordered.length && bound() >= floor; next += 1) {
      const feature = ordered[next] as QueryFeature;
      if (feature.id !== undefined) {
        const list = postings[feature.id] ?? [];
        const weights = postingWeights[feature.id] ?? [];
        for (let index = 0; index < list.length; index += 1) {
          const slot = list[index] ?? 0;
          if (visited[slot] !== visit) {
            visited[slot] = visit;
            partial[slot] = 0;
            found.push(slot);
          }
          partial[slot] = (partial[slot] ?? 0) + feature.weight * (weights[index] ?? 0);
        }
      }
      account(feature, -1);
    }
    // Dropping candidates: the remaining lists that are cheap next to scoring the candidates left.
    for (; next < ordered.length && found.length > 0; next += 1) {
      const feature = ordered[next] as QueryFeature;
      const list = feature.id === undefined ? [] : (postings[feature.id] ?? []);
      if (list.length > found.length * POSTINGS_PER_CANDIDATE) continue;
      const weights = feature.id === undefined ? [] : (postingWeights[feature.id] ?? []);
      for (let index = 0; index < list.length; index += 1) {
        const slot = list[index] ?? 0;
        if (visited[slot] === visit) partial[slot] = (partial[slot] ?? 0) + feature.weight * (weights[index] ?? 0);
      }
      account(feature, -1);
      const rest = bound();
      let kept = 0;
      for (const slot of found) {
        if ((partial[slot] ?? 0) + rest >= floor) found[kept++] = slot;
        else visited[slot] = 0;
      }
      found.length = kept;
    }
    return [...found, ...always];
  }

  function readingPriority({ id, weight }: QueryFeature): number {
    if (id === undefined) return Number.MAX_VALUE;
    return (Math.abs(weight) * (maxWeights[id] ?? 0)) / ((postings[id]?.length ?? 0) + 1);
  }

  function query(content: string, { threshold, limit = 5, excludeIds }: SimilarityQuery): SimilarityMatch[] {
    const features = [...vectorizeQuery(content)].map(([key, weight]): QueryFeature => {
      return { id: featureIds.get(key), weight, block: blocks.of(key) };
    });
    if (queryWeights.length < featureBlocks.length) queryWeights = new Float64Array(featureBlocks.length * 2);
    for (const { id, weight } of features) if (id !== undefined) queryWeights[id] = weight;
    const matches: SimilarityMatch[] = [];
    for (const slot of candidates(features, threshold)) {
      const stored = slots[slot];
      if (!stored || excludeIds?.has(stored.bulletId)) continue;
      let dot = 0;
      for (let index = 0; index < stored.features.length; index += 1) {
        dot += (queryWeights[stored.features[index] ?? 0] ?? 0) * (stored.weights[index] ?? 0);
      }
      const score = clamp(dot);
      if (score >= threshold) matches.push({ bulletId: stored.bulletId, score });
    }
    for (const { id } of features) if (id !== undefined) queryWeights[id] = 0;
    return bestFirst(matches, limit);
  }

  return {
    get size() {
      return slotOf.size;
    },
    add,
    remove,
    has: (bulletId) => slotOf.has(bulletId),
    query,
    compare: (a, b) => cosine(vectorize(a), vectorize(b)),
    empty: () => createSimilarityIndex(options),
    emptyForFew: () => createFewSimilarityIndex(vectorizeQuery),
  };
}

/** An index of the active bullets (archived ones are not duplicates a curator should merge with). */
export function buildSimilarityIndex(bullets: Iterable<BulletState>): SimilarityIndex;
export function buildSimilarityIndex<Index extends SimilarityIndex>(bullets: Iterable<BulletState>, create: () => Index): Index;
export function buildSimilarityIndex(
  bullets: Iterable<BulletState>,
  create: () => SimilarityIndex = createSimilarityIndex,
): SimilarityIndex {
  const index = create();
  for (const bullet of bullets) if (bullet.status === "active") index.add(bullet.externalId, bullet.content);
  return index;
}

/** Keeps a cached index in step with a version's changes, so services need not rebuild it per delta. */
export function syncSimilarityIndex(index: SimilarityIndex, changes: readonly VersionChange[]): void {
  for (const change of changes) {
    if (change.entity !== "bullet") continue;
    const { before, after } = change;
    if (!after || after.status !== "active") index.remove(change.id);
    else if (!before || before.status !== "active" || before.content !== after.content || !index.has(change.id)) {
      index.add(change.id, after.content);
    }
  }
}
