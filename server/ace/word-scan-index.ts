// The word-scan index: a second near-duplicate index, quick to build, that the delta engine searches
// while the default one (createSimilarityIndex, similarity.ts) is built in the background.
import {
  FAMILIES,
  FEATURE_WEIGHTS,
  MARK,
  STOP_EPSILON,
  bestFirst,
  clamp,
  contentWordOf,
  contentWords,
  cosine,
  normalizeForSimilarity,
  vectorizeText,
  createFewSimilarityIndex,
  wordsOf,
  type Family,
  type SimilarityIndex,
  type SimilarityMatch,
  type SimilarityQuery,
} from "./similarity";

/**
 * A near-duplicate index that builds in about a tenth of createSimilarityIndex's time, searches
 * about as fast at the default threshold (0.5 ms for 10,000 bullets) and much more slowly at low
 * ones, where its bound rules out little: the delta engine searches it while the other is built in
 * the background, so a first edit after a start need not wait for that build. Scores are the
 * default index's, bit for bit (the same vectors, summed in the same order); only for vectorizeText.
 * It keeps each bullet's content words as numbers, one array for all, and per word the bullets that
 * have it (made at the first search after an add).
 * A bullet's content words bound its score. In each family the dot product runs over the features
 * both texts have, so it is at most the product of the two vectors' lengths over those features
 * (Cauchy–Schwarz), read from the query's weights and the bullet's counts (sharedLength); the
 * 3-grams are bounded by the two families' lengths alone. So a bullet sharing no word with a query of
 * two or more content words stays under 0.64 and is never read; one sharing a few words and a
 * bigram stays far under 0.85; only the rest are vectorised.
 */
export function createWordScanIndex(): WordScanIndex {
  const wordNumbers = new Map<string, number>();
  // Per word of a normalised text, the number of its word feature, or -1 for a function word.
  const numbersOfWords = new Map<string, number>();
  // Per slot a bullet: its id, content, and content words as numbers in `words` from `starts[slot]`,
  // `lengths[slot]` long; REMOVED for a bullet removed or re-indexed (until compaction), FEATURELESS
  // for a text with no feature at all (it matches nothing).
  const ids: string[] = [];
  const contents: string[] = [];
  const starts: number[] = [];
  const lengths: number[] = [];
  let words = new Int32Array(1 << 16);
  let used = 0;
  const slotOf = new Map<string, number>();
  let removedSlots = 0;
  // Per word number, the slots whose bullet has the word and how often, in slot order: made by the
  // first search after a bullet was added, in two passes over `words` (see postingsOf).
  let postings: { starts: Int32Array; slots: Int32Array; counts: Int32Array } | null = null;
  // Scratch. Per word number: its squared weight in the query (0 when absent), and per bullet scored
  // the last bullet that counted it and how often it occurs there. Per slot: the last query that
  // read it from the postings, with the sums read.
  let querySquares = new Float64Array(1024);
  let wordSeen = new Uint32Array(1024);
  let wordCounts = new Int32Array(1024);
  let slotSeen = new Uint32Array(1024);
  let slotQueryWords = new Float64Array(1024);
  let slotOwnWords = new Float64Array(1024);
  let mark = 0;
  let visit = 0;
  let scored = 0;

  function numberOf(word: string): number {
    let number = numbersOfWords.get(word);
    if (number === undefined) {
      const content = contentWordOf(word);
      number = content === null ? -1 : wordNumbers.get(content);
      if (number === undefined) {
        number = wordNumbers.size;
        wordNumbers.set(content as string, number);
      }
      numbersOfWords.set(word, number);
    }
    return number;
  }

  function add(bulletId: string, content: string): void {
    remove(bulletId);
    const slot = ids.length;
    ids.push(bulletId);
    contents.push(content);
    starts.push(used);
    slotOf.set(bulletId, slot);
    const textWords = wordsOf(content);
    if (textWords.length === 0) {
      lengths.push(FEATURELESS);
      return;
    }
    for (const word of textWords) {
      const number = numberOf(word);
      if (number < 0) continue;
      if (used === words.length) {
        const grown = new Int32Array(words.length * 2);
        grown.set(words);
        words = grown;
      }
      words[used++] = number;
    }
    lengths.push(used - (starts[slot] ?? 0));
    postings = null;
  }

  function postingsOf(): { starts: Int32Array; slots: Int32Array; counts: Int32Array } {
    if (postings) return postings;
    // Pass one counts each word's bullets; pass two writes them, with how often each has the word.
    const size = wordNumbers.size;
    const last = new Int32Array(size).fill(-1);
    const begins = new Int32Array(size + 1);
    for (let slot = 0; slot < ids.length; slot += 1) {
      const start = starts[slot] ?? 0;
      const end = start + Math.max(0, lengths[slot] ?? 0);
      for (let at = start; at < end; at += 1) {
        const number = words[at] ?? 0;
        if (last[number] !== slot) begins[number + 1] = (begins[number + 1] ?? 0) + 1;
        last[number] = slot;
      }
    }
    for (let number = 0; number < size; number += 1) begins[number + 1] = (begins[number + 1] ?? 0) + (begins[number] ?? 0);
    const next = begins.slice(0, size);
    const slots = new Int32Array(begins[size] ?? 0);
    const counts = new Int32Array(slots.length);
    last.fill(-1);
    for (let slot = 0; slot < ids.length; slot += 1) {
      const start = starts[slot] ?? 0;
      const end = start + Math.max(0, lengths[slot] ?? 0);
      for (let at = start; at < end; at += 1) {
        const number = words[at] ?? 0;
        if (last[number] !== slot) {
          slots[next[number] ?? 0] = slot;
          next[number] = (next[number] ?? 0) + 1;
        }
        const index = (next[number] ?? 1) - 1;
        counts[index] = (counts[index] ?? 0) + 1;
        last[number] = slot;
      }
    }
    postings = { starts: begins, slots, counts };
    return postings;
  }

  function remove(bulletId: string): void {
    const slot = slotOf.get(bulletId);
    if (slot === undefined) return;
    slotOf.delete(bulletId);
    lengths[slot] = REMOVED;
    removedSlots += 1;
    if (removedSlots > 1_000 && removedSlots > slotOf.size) compact();
  }

  function compact(): void {
    const live = ids.flatMap((_, slot) => ((lengths[slot] ?? REMOVED) === REMOVED ? [] : [slot]));
    const oldWords = words;
    const [oldIds, oldContents, oldStarts, oldLengths] = [ids.splice(0), contents.splice(0), starts.splice(0), lengths.splice(0)];
    words = new Int32Array(Math.max(1 << 16, used));
    used = 0;
    slotOf.clear();
    removedSlots = 0;
    postings = null;
    for (const old of live) {
      const slot = ids.length;
      const [start, length] = [oldStarts[old] ?? 0, oldLengths[old] ?? 0];
      ids.push(oldIds[old] as string);
      contents.push(oldContents[old] as string);
      starts.push(used);
      lengths.push(length);
      slotOf.set(oldIds[old] as string, slot);
      if (length > 0) words.set(oldWords.subarray(start, start + length), used);
      used += Math.max(0, length);
    }
  }

  function query(content: string, { threshold, limit = 5, excludeIds }: SimilarityQuery): SimilarityMatch[] {
    const vector = vectorizeText(content);
    if (vector.size === 0) return [];
    if (querySquares.length < wordNumbers.size) {
      querySquares = new Float64Array(wordNumbers.size * 2);
      wordSeen = new Uint32Array(wordNumbers.size * 2);
      wordCounts = new Int32Array(wordNumbers.size * 2);
    }
    if (slotSeen.length < ids.length) {
      slotSeen = new Uint32Array(ids.length * 2);
      slotQueryWords = new Float64Array(ids.length * 2);
      slotOwnWords = new Float64Array(ids.length * 2);
    }
    // The query's words and bigrams that some bullet has, with their squared weights.
    const queryWords = contentWords(normalizeForSimilarity(content));
    const known: number[] = [];
    const bigrams = new Map<number, number>();
    const bigramSquares: number[] = [];
    let previous: number | undefined;
    for (const [index, word] of queryWords.entries()) {
      const number = wordNumbers.get(word);
      if (number !== undefined && querySquares[number] === 0) {
        querySquares[number] = (vector.get(MARK.word + word) ?? 0) ** 2;
        known.push(number);
      }
      if (number !== undefined && previous !== undefined && !bigrams.has(bigramCode(previous, number))) {
        bigrams.set(bigramCode(previous, number), bigramSquares.length);
        bigramSquares.push((vector.get(`${MARK.bigram}${queryWords[index - 1]} ${word}`) ?? 0) ** 2);
      }
      previous = number;
    }
    const bigramSeen = new Uint32Array(bigramSquares.length);
    const bigramCounts = new Int32Array(bigramSquares.length);
    const queryShares = shares(queryWords.length);
    const floor = threshold - STOP_EPSILON;
    const matches: SimilarityMatch[] = [];

    /** The bullet's bound from its words, then, if that reaches the threshold, its score. */
    const score = (slot: number): void => {
      const count = lengths[slot] ?? REMOVED;
      if (count < 0) return;
      if (mark === 0xffff_ffff) {
        wordSeen.fill(0);
        bigramSeen.fill(0);
        mark = 0;
      }
      mark += 1;
      // Over the features shared with the query: its squared weights, and the bullet's squared counts.
      let sharedQueryWords = 0;
      let sharedQueryBigrams = 0;
      let ownWords = 0;
      let ownBigrams = 0;
      let before = -1;
      const start = starts[slot] ?? 0;
      for (let at = start; at < start + count; at += 1) {
        const number = words[at] ?? 0;
        const square = querySquares[number] ?? 0;
        if (square === 0) {
          before = -1;
          continue;
        }
        if (wordSeen[number] !== mark) {
          wordSeen[number] = mark;
          wordCounts[number] = 0;
          sharedQueryWords += square;
        }
        ownWords += 2 * (wordCounts[number] ?? 0) + 1; // (c + 1)² − c²
        wordCounts[number] = (wordCounts[number] ?? 0) + 1;
        const bigram = before < 0 ? undefined : bigrams.get(bigramCode(before, number));
        if (bigram !== undefined) {
          if (bigramSeen[bigram] !== mark) {
            bigramSeen[bigram] = mark;
            bigramCounts[bigram] = 0;
            sharedQueryBigrams += bigramSquares[bigram] ?? 0;
          }
          ownBigrams += 2 * (bigramCounts[bigram] ?? 0) + 1;
          bigramCounts[bigram] = (bigramCounts[bigram] ?? 0) + 1;
        }
        before = number;
      }
      const own = shares(count);
      const bound =
        Math.sqrt(sharedQueryWords) * sharedLength(ownWords, count, own.word) +
        Math.sqrt(sharedQueryBigrams) * sharedLength(ownBigrams, count - 1, own.bigram) +
        Math.sqrt(queryShares.trigram * own.trigram);
      const bulletId = ids[slot] as string;
      if (bound < floor || excludeIds?.has(bulletId)) return;
      scored += 1;
      let dot = 0;
      for (const [key, weight] of vectorizeText(contents[slot] as string)) dot += (vector.get(key) ?? 0) * weight;
      if (clamp(dot) >= threshold) matches.push({ bulletId, score: clamp(dot) });
    };

    // A bullet sharing no word with the query scores at most √(the query's 3-gram share × 1).
    if (floor > Math.sqrt(queryShares.trigram)) {
      // Only bullets sharing a word can reach the threshold: read them from the word postings, with
      // what their shared words bound, and look closer only at those whose bound reaches it even
      // with every bigram of the query shared.
      visit = visit === 0xffff_ffff ? 1 : visit + 1;
      if (visit === 1) slotSeen.fill(0);
      const touched: number[] = [];
      const { starts: begins, slots, counts } = postingsOf();
      for (const number of known) {
        const square = querySquares[number] ?? 0;
        for (let index = begins[number] ?? 0; index < (begins[number + 1] ?? 0); index += 1) {
          const slot = slots[index] ?? 0;
          if (slotSeen[slot] !== visit) {
            slotSeen[slot] = visit;
            slotQueryWords[slot] = 0;
            slotOwnWords[slot] = 0;
            touched.push(slot);
          }
          slotQueryWords[slot] = (slotQueryWords[slot] ?? 0) + square;
          slotOwnWords[slot] = (slotOwnWords[slot] ?? 0) + (counts[index] ?? 0) ** 2;
        }
      }
      const allBigrams = Math.sqrt(queryShares.bigram);
      for (const slot of touched) {
        const count = lengths[slot] ?? REMOVED;
        if (count < 0) continue;
        const own = shares(count);
        const bound =
          Math.sqrt(slotQueryWords[slot] ?? 0) * sharedLength(slotOwnWords[slot] ?? 0, count, own.word) +
          allBigrams * Math.sqrt(own.bigram) +
          Math.sqrt(queryShares.trigram * own.trigram);
        if (bound >= floor) score(slot);
      }
    } else {
      for (let slot = 0; slot < ids.length; slot += 1) score(slot);
    }
    for (const number of known) querySquares[number] = 0;
    return bestFirst(matches, limit);
  }

  return {
    get size() {
      return slotOf.size;
    },
    get scored() {
      return scored;
    },
    add,
    remove,
    has: (bulletId) => slotOf.has(bulletId),
    query,
    compare: (a, b) => cosine(vectorizeText(a), vectorizeText(b)),
    empty: createWordScanIndex,
    emptyForFew: () => createFewSimilarityIndex(),
  };
}

export interface WordScanIndex extends SimilarityIndex {
  /** Bullets its searches could not rule out on their words and scored in full, so far. */
  readonly scored: number;
}

// Slot lengths that are not a number of words.
const REMOVED = -1;
const FEATURELESS = -2;

// Two word numbers side by side, exact in a double while the numbers stay under 2^26.
const bigramCode = (first: number, second: number) => first * 67_108_864 + second;

/**
 * Each family's share of a non-empty text's vector (its squared length), by its number of content
 * words: a text without two has no bigram, and every non-empty text has 3-grams.
 */
const SHARES_BY_WORDS = [0, 1, 2].map((words): Record<Family, number> => {
  const present: Record<Family, boolean> = { word: words > 0, bigram: words > 1, trigram: true };
  const total = FAMILIES.reduce((sum, family) => sum + (present[family] ? FEATURE_WEIGHTS[family] : 0), 0);
  return Object.fromEntries(FAMILIES.map((family) => [family, present[family] ? FEATURE_WEIGHTS[family] / total : 0])) as Record<
    Family,
    number
  >;
});
/**
 * The length of a family's shared features in a bullet's vector, at most: its weights are counts ×
 * √(share / Σ count²), and Σ count² is at least the number of occurrences (each count is at least 1).
 */
function sharedLength(sharedCountSquares: number, occurrences: number, share: number): number {
  if (sharedCountSquares === 0) return 0;
  return Math.min(Math.sqrt(share), Math.sqrt((sharedCountSquares * share) / occurrences));
}

const shares = (contentWordCount: number) => SHARES_BY_WORDS[Math.min(contentWordCount, 2)] as Record<Family, number>;
