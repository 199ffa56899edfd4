// De-duplication with the provider's embeddings when it has an embeddings model (the local n-gram
// similarity otherwise). Vectors are kept per process by text, so only new bullets are embedded.
import type { PlaybookState } from "@/server/ace/delta/types";
import { createEmbeddingIndex } from "@/server/ace/embedding-index";
import { createSimilarityIndex, type SimilarityIndex } from "@/server/ace/similarity";
import type { LlmProvider } from "@/server/llm/types";

/** Texts remembered per process; past this the oldest go first. */
const MAX_CACHED = 50_000;
const cache = new Map<string, number[]>();

function remember(key: string, vector: number[]) {
  cache.set(key, vector);
  while (cache.size > MAX_CACHED) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
}

export interface EmbeddingSimilarity {
  /** For proposeDelta's `similarity` option; undefined: use the local similarity. */
  similarity?: (state: PlaybookState) => SimilarityIndex;
  /** What the run's record says about it. */
  note: string | null;
}

/** Embeds the playbook's active bullets and the delta's new contents; a failure falls back to local scores. */
export async function embeddingSimilarity(llm: LlmProvider, state: PlaybookState, newContents: readonly string[]): Promise<EmbeddingSimilarity> {
  if (!llm.embed) return { note: null };
  const keyOf = (text: string) => `${llm.name}\u0000${text}`;
  const texts = [...new Set([...[...state.bullets.values()].filter((b) => b.status === "active").map((b) => b.content), ...newContents])];
  const missing = texts.filter((text) => !cache.has(keyOf(text)));
  try {
    if (missing.length > 0) {
      const vectors = await llm.embed(missing);
      missing.forEach((text, index) => {
        const vector = vectors[index];
        if (vector) remember(keyOf(text), vector);
      });
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { note: `Near-duplicates were checked with the local similarity: the embeddings call failed (${reason}).` };
  }
  const similarity = (current: PlaybookState) => {
    const index = createEmbeddingIndex((text) => cache.get(keyOf(text)), createSimilarityIndex());
    for (const bullet of current.bullets.values()) if (bullet.status === "active") index.add(bullet.externalId, bullet.content);
    return index;
  };
  return { similarity, note: "Near-duplicates were checked with the provider's embeddings." };
}
