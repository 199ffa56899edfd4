import { describe, expect, it } from "vitest";
import { createEmbeddingIndex } from "./embedding-index";
import { createSimilarityIndex } from "./similarity";

const VECTORS: Record<string, number[]> = {
  "Retry with exponential backoff on 429.": [1, 0, 0],
  "Back off exponentially when rate limited.": [0.95, 0.31, 0],
  "Convert dates to UTC before comparing.": [0, 0, 1],
};

describe("embedding similarity index", () => {
  it("scores by the cosine of the embeddings, so a paraphrase with no words in common is a near-duplicate", () => {
    const index = createEmbeddingIndex((text) => VECTORS[text], createSimilarityIndex());
    index.add("str-00001", "Retry with exponential backoff on 429.");
    index.add("str-00002", "Convert dates to UTC before comparing.");
    const matches = index.query("Back off exponentially when rate limited.", { threshold: 0.85 });
    expect(matches.map((match) => match.bulletId)).toEqual(["str-00001"]);
    expect(matches[0]!.score).toBeCloseTo(0.95, 2);
    expect(index.compare("Retry with exponential backoff on 429.", "Convert dates to UTC before comparing.")).toBe(0);
  });

  it("falls back to the local similarity for a text without a vector, so a gap never hides a duplicate", () => {
    const index = createEmbeddingIndex((text) => VECTORS[text], createSimilarityIndex());
    index.add("str-00003", "Always paginate through every page of results before answering.");
    const matches = index.query("Always paginate through every page of results before answering!", { threshold: 0.85 });
    expect(matches.map((match) => match.bulletId)).toEqual(["str-00003"]);
  });

  it("honours exclusions, removal and the limit, best first", () => {
    const index = createEmbeddingIndex((text) => VECTORS[text], createSimilarityIndex());
    index.add("a-00001", "Retry with exponential backoff on 429.");
    index.add("a-00002", "Back off exponentially when rate limited.");
    expect(index.size).toBe(2);
    expect(
      index.query("Retry with exponential backoff on 429.", { threshold: 0.5, excludeIds: new Set(["a-00001"]) }).map((m) => m.bulletId),
    ).toEqual(["a-00002"]);
    expect(index.query("Retry with exponential backoff on 429.", { threshold: 0.5, limit: 1 }).map((m) => m.bulletId)).toEqual(["a-00001"]);
    index.remove("a-00001");
    expect(index.has("a-00001")).toBe(false);
    expect(index.empty().size).toBe(0);
  });
});
