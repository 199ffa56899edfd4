// What near-duplicate detection scores texts with: the SimilarityIndex every index implements (the
// engine only sees scores through it, so a model's embeddings can replace the local vectors), and
// the local n-gram vectors with their cosine.

export interface SimilarityMatch {
  bulletId: string;
  /** Cosine similarity in [0, 1]; 1 means the same text after normalisation. */
  score: number;
}

export interface SimilarityQuery {
  /** Inclusive: a score equal to the threshold is a match. Must be above 0. */
  threshold: number;
  /** Best matches first; default 5. */
  limit?: number;
  excludeIds?: ReadonlySet<string>;
}

export interface SimilarityIndex {
  readonly size: number;
  /** Indexes (or re-indexes) one bullet's content under its id. */
  add(bulletId: string, content: string): void;
  remove(bulletId: string): void;
  has(bulletId: string): boolean;
  /** Indexed bullets whose score against `content` reaches the threshold, best first, ties by id. */
  query(content: string, query: SimilarityQuery): SimilarityMatch[];
  /** The same score for two texts outside the index. */
  compare(a: string, b: string): number;
  /** A new, empty index that scores the same way. */
  empty(): SimilarityIndex;
  /**
   * A new, empty index that scores the same way, made for a few texts (a delta keeps the bullets it
   * writes in one); empty() when absent.
   */
  emptyForFew?(): SimilarityIndex;
}

// ---- vectors -----------------------------------------------------------------------------------

/** A unit-length sparse vector: feature → weight. */
export type SparseVector = ReadonlyMap<string, number>;
export type Vectorizer = (text: string) => SparseVector;

/**
 * Share of the score each feature family carries. Every family is normalised on its own and scaled
 * by √weight, so the cosine of two vectors is Σ weight × (the family's own cosine):
 * - word unigrams 0.4: the content words carry what a bullet says, in any order;
 * - character 3-grams 0.4: survive inflection and typos ("retry"/"retries", "timeout"/"time-out"),
 *   which word features alone score as different words;
 * - word bigrams 0.2: phrase and order; they are sparse, so a paraphrase loses most of them, and a
 *   larger weight would push honest paraphrases under 0.85. Being rare, they also let the index
 *   stop early: a bullet sharing no bigram with the query scores at most 0.4 + 0.4 = 0.8.
 * A family a text lacks (a one-word bullet has no bigrams) hands its weight to the others, so every
 * vector has length 1 and identical texts score 1.
 */
export const FEATURE_WEIGHTS = { word: 0.4, bigram: 0.2, trigram: 0.4 } as const;
export type Family = keyof typeof FEATURE_WEIGHTS;
export const FAMILIES = Object.keys(FEATURE_WEIGHTS) as Family[];

// One-character family marks: the first character of every feature key.
export const MARK: Record<Family, string> = { word: "w", bigram: "b", trigram: "c" };

const ASCII = /^[\x00-\x7f]*$/u;

/** Lower case, NFKC (full-width letters, ligatures), punctuation, symbols and controls as spaces. */
export function normalizeForSimilarity(text: string): string {
  // NFKC changes no ASCII character, and every ASCII character but letters, digits and the space
  // is punctuation, a symbol or a control: most bullets take the quicker way, to the same text.
  if (ASCII.test(text)) {
    return text
      .toLowerCase()
      .replace(/[^a-z0-9 ]+/g, " ")
      .replace(/ {2,}/g, " ")
      .trim();
  }
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}\p{C}]+/gu, " ")
    .replace(/\s+/gu, " ")
    .trim();
}

/** The words of normalizeForSimilarity(text), without making the normalised text for ASCII text. */
export function wordsOf(text: string): string[] {
  if (ASCII.test(text)) return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const normalized = normalizeForSimilarity(text);
  return normalized === "" ? [] : normalized.split(" ");
}

// Function words say little about what a bullet advises, yet two unrelated sentences share many of
// them; word features skip them (character 3-grams still see them). Negations stay: "not" matters.
const FUNCTION_WORDS = new Set(
  (
    "a an the this that these those it its they them their there is are was were be been being to of in on at " +
    "by for from with as into than then so and or if when while which who whom whose what"
  ).split(" "),
);

/** Content words, with a plural "s" dropped so "response" and "responses" are one word feature. */
export function contentWords(normalized: string): string[] {
  const words: string[] = [];
  for (const word of normalized.split(" ")) {
    const content = contentWordOf(word);
    if (content !== null) words.push(content);
  }
  return words;
}

/** The word feature a word of a normalised text gives, or null for a function word. */
export function contentWordOf(word: string): string | null {
  if (FUNCTION_WORDS.has(word)) return null;
  return word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word;
}

// The last text vectorized and its vector: the engine asks two indexes (the playbook's and its
// delta's own) about each new text in turn. Vectors are read only, so the same one serves both.
let lastVectorized: { text: string; vector: SparseVector } | null = null;

export function vectorizeText(text: string): SparseVector {
  if (lastVectorized?.text !== text) lastVectorized = { text, vector: vectorOfText(text) };
  return lastVectorized.vector;
}

function vectorOfText(text: string): SparseVector {
  const normalized = normalizeForSimilarity(text);
  const counts: Record<Family, Map<string, number>> = { word: new Map(), bigram: new Map(), trigram: new Map() };
  if (normalized === "") return new Map();
  walkFeatures(normalized, {
    word: (word) => increment(counts.word, MARK.word + word),
    bigram: (first, second) => increment(counts.bigram, `${MARK.bigram}${first} ${second}`),
    trigram: (text, at) => increment(counts.trigram, MARK.trigram + text.slice(at, at + 3)),
    gram: (gram) => increment(counts.trigram, MARK.trigram + gram),
  });
  return combineFamilies(counts);
}

/** What walkFeatures hands each feature to: its parts, so a caller can look them up without making the key. */
export interface FeatureSink {
  word(word: string): void;
  bigram(first: string, second: string): void;
  /** A character 3-gram of text without astral characters: `text.slice(at, at + 3)`. */
  trigram(text: string, at: number): void;
  /** A character 3-gram of text with astral characters: three code points. */
  gram(gram: string): void;
}

/**
 * Every feature of a normalised text, as often as it occurs: content words and word bigrams in word
 * order, then character 3-grams. The features come as parts, not keys: the index
 * (createSimilarityIndex) counts those of 10,000 bullets without making 2 million key strings.
 */
export function walkFeatures(normalized: string, sink: FeatureSink): void {
  const words = contentWords(normalized);
  for (let index = 0; index < words.length; index += 1) {
    sink.word(words[index] as string);
    if (index + 1 < words.length) sink.bigram(words[index] as string, words[index + 1] as string);
  }
  // Padded so word starts and ends are features too; code points, so astral characters stay whole.
  const padded = ` ${normalized} `;
  if (/[\uD800-\uDFFF]/u.test(padded)) {
    const chars = [...padded];
    for (let index = 0; index + 3 <= chars.length; index += 1) sink.gram(chars.slice(index, index + 3).join(""));
  } else {
    for (let index = 0; index + 3 <= padded.length; index += 1) sink.trigram(padded, index);
  }
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function combineFamilies(families: Record<Family, Map<string, number>>): SparseVector {
  const present = FAMILIES.filter((family) => families[family].size > 0);
  const total = present.reduce((sum, family) => sum + FEATURE_WEIGHTS[family], 0);
  const vector = new Map<string, number>();
  for (const family of present) {
    let squares = 0;
    for (const count of families[family].values()) squares += count * count;
    const scale = Math.sqrt(FEATURE_WEIGHTS[family] / total / squares);
    for (const [key, count] of families[family]) vector.set(key, count * scale);
  }
  return vector;
}

/** Dot product of two unit vectors, clamped to [0, 1] against rounding. */
export function cosine(a: SparseVector, b: SparseVector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [key, weight] of small) dot += weight * (large.get(key) ?? 0);
  return clamp(dot);
}

export const clamp = (score: number) => Math.min(1, Math.max(0, score));

// Rounding slack for an early stop, so a bullet scoring exactly the threshold is never skipped.
export const STOP_EPSILON = 1e-9;

/** The best `limit` matches, ties by id. */
export function bestFirst(matches: SimilarityMatch[], limit: number): SimilarityMatch[] {
  matches.sort((a, b) => b.score - a.score || (a.bulletId < b.bulletId ? -1 : a.bulletId > b.bulletId ? 1 : 0));
  return matches.slice(0, limit);
}

/** The vectorizer, remembering the last text's vector (vectors are never changed once made). */
export function rememberingLast(vectorize: Vectorizer): Vectorizer {
  let last: { text: string; vector: SparseVector } | null = null;
  return (text) => {
    if (last?.text !== text) last = { text, vector: vectorize(text) };
    return last.vector;
  };
}
