// Near-duplicate scores from a model's embeddings instead of the local n-gram vectors, behind the
// same SimilarityIndex the engine reads. The caller embeds every text the engine may ask about
// first (the playbook's bullets and the delta's new contents); a text without a vector is scored by
// the local index instead, so a gap never hides a duplicate the local check would have found.
import type { SimilarityIndex, SimilarityMatch, SimilarityQuery } from "./similarity";

export type VectorOf = (text: string) => readonly number[] | undefined;

function unit(vector: readonly number[]): Float64Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Float64Array.from(vector, (value) => value * scale);
}

function dot(a: Float64Array, b: Float64Array): number {
  const length = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < length; i += 1) sum += a[i]! * b[i]!;
  // Embedding cosines can dip below 0; the engine's scores live in [0, 1].
  return Math.min(1, Math.max(0, sum));
}

export function createEmbeddingIndex(vectorOf: VectorOf, local: SimilarityIndex): SimilarityIndex {
  const vectors = new Map<string, Float64Array>();
  const contents = new Map<string, string>();
  const localOnly = local.empty();
  const cache = new Map<string, Float64Array | null>();
  const embedded = (text: string): Float64Array | null => {
    let found = cache.get(text);
    if (found === undefined) {
      const vector = vectorOf(text);
      found = vector && vector.length > 0 ? unit(vector) : null;
      cache.set(text, found);
    }
    return found;
  };

  const index: SimilarityIndex = {
    get size() {
      return contents.size;
    },
    add(bulletId, content) {
      index.remove(bulletId);
      contents.set(bulletId, content);
      const vector = embedded(content);
      if (vector) vectors.set(bulletId, vector);
      else localOnly.add(bulletId, content);
    },
    remove(bulletId) {
      contents.delete(bulletId);
      vectors.delete(bulletId);
      localOnly.remove(bulletId);
    },
    has: (bulletId) => contents.has(bulletId),
    query(content: string, query: SimilarityQuery): SimilarityMatch[] {
      const limit = query.limit ?? 5;
      const vector = embedded(content);
      const matches: SimilarityMatch[] = [];
      for (const [bulletId, other] of vectors) {
        if (query.excludeIds?.has(bulletId)) continue;
        const score = vector ? dot(vector, other) : local.compare(content, contents.get(bulletId) ?? "");
        if (score >= query.threshold) matches.push({ bulletId, score });
      }
      matches.push(...localOnly.query(content, { ...query, limit }));
      matches.sort((a, b) => b.score - a.score || (a.bulletId < b.bulletId ? -1 : a.bulletId > b.bulletId ? 1 : 0));
      return matches.slice(0, limit);
    },
    compare(a, b) {
      const left = embedded(a);
      const right = embedded(b);
      return left && right ? dot(left, right) : local.compare(a, b);
    },
    empty: () => createEmbeddingIndex(vectorOf, local.empty()),
  };
  return index;
}
