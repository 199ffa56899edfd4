// De-duplication with the provider's embeddings when it has an embeddings model (the local n-gram
// similarity otherwise). Vectors are kept per process by text, so only new bullets are embedded.
import type { PlaybookState } from "@/server/ace/delta/types";
import { createEmbeddingIndex } from "@/server/ace/embedding-index";
import { createSimilarityIndex, type SimilarityIndex } from "@/server/ace/similarity";
import { createByteBoundedCache, type LRUCache } from "@/server/cache/lru";
import { getEnv } from "@/server/config/env";
import type { LlmProvider } from "@/server/llm/types";

// Vectors by provider and text, bounded by ACE_EMBEDDING_CACHE_MB (default 128 MB). They are kept
// as 32-bit floats, the precision the embeddings APIs compute in: 6 KB for 1,536 dimensions, so
// the default holds about 20,000 texts (a count bound of 50,000 number[] used to reach ~600 MB).
let vectors: LRUCache<string, Float32Array> | undefined;

function cached(): LRUCache<string, Float32Array> {
  vectors ??= createByteBoundedCache<string, Float32Array>({
    maxBytes: getEnv().cacheBytes.embeddings,
    sizeOf: (vector, key) => vector.byteLength + 2 * key.length + 64,
  });
  return vectors;
}

export interface EmbeddingSimilarity {
  /** For proposeDelta's `similarity` option; undefined: use the local similarity. */
  similarity?: (state: PlaybookState) => SimilarityIndex;
  /** What the run's record says about it. */
  note: string | null;
}

/** Embeds the playbook's active bullets and the delta's new contents; a failure falls back to local scores. */
export async function embeddingSimilarity(
  llm: LlmProvider,
  state: PlaybookState,
  newContents: readonly string[],
): Promise<EmbeddingSimilarity> {
  if (!llm.embed) return { note: null };
  const cache = cached();
  const keyOf = (text: string) => `${llm.name}\u0000${text}`;
  const texts = [...new Set([...[...state.bullets.values()].filter((b) => b.status === "active").map((b) => b.content), ...newContents])];
  // This run's vectors stay in hand while it runs, whatever the shared cache evicts meanwhile.
  const ours = new Map<string, Float32Array>();
  const missing: string[] = [];
  for (const text of texts) {
    const vector = cache.get(keyOf(text));
    if (vector) ours.set(text, vector);
    else missing.push(text);
  }
  try {
    if (missing.length > 0) {
      const fresh = await llm.embed(missing);
      missing.forEach((text, index) => {
        const vector = fresh[index];
        if (!vector) return;
        const stored = Float32Array.from(vector);
        ours.set(text, stored);
        cache.set(keyOf(text), stored);
      });
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { note: `Near-duplicates were checked with the local similarity: the embeddings call failed (${reason}).` };
  }
  const vectorOf = (text: string) => {
    const vector = ours.get(text) ?? cache.get(keyOf(text));
    return vector ? Array.from(vector) : undefined;
  };
  const similarity = (current: PlaybookState) => {
    const index = createEmbeddingIndex(vectorOf, createSimilarityIndex());
    for (const bullet of current.bullets.values()) if (bullet.status === "active") index.add(bullet.externalId, bullet.content);
    return index;
  };
  return { similarity, note: "Near-duplicates were checked with the provider's embeddings." };
}
