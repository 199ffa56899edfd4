import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES, estimateCostUsd, priceFor } from "./prices";

describe("prices", () => {
  it("prices a call per 1M input and output tokens", () => {
    // gpt-4.1-mini: $0.40 in, $1.60 out per 1M tokens.
    expect(estimateCostUsd("gpt-4.1-mini", 1_000_000, 0)).toBeCloseTo(0.4, 10);
    expect(estimateCostUsd("gpt-4.1-mini", 2_000, 500)).toBeCloseTo(0.0008 + 0.0008, 10);
  });

  it("prices dated snapshots as their family, preferring the longest match", () => {
    expect(priceFor("gpt-4.1-mini-2025-04-14")).toEqual(DEFAULT_PRICES["gpt-4.1-mini"]);
    expect(priceFor("gpt-4o-mini-2024-07-18")).toEqual(DEFAULT_PRICES["gpt-4o-mini"]);
    expect(priceFor("gpt-4o-2024-08-06")).toEqual(DEFAULT_PRICES["gpt-4o"]);
    expect(priceFor("openai/gpt-4.1")).toEqual(DEFAULT_PRICES["gpt-4.1"]);
  });

  it("does not match a name that merely starts with the same letters", () => {
    expect(priceFor("gpt-4.10")).toBeNull();
    expect(priceFor("o4")).toBeNull();
  });

  it("has no price for unknown models such as local Ollama models", () => {
    expect(estimateCostUsd("llama3.1:8b", 1000, 1000)).toBeNull();
  });

  it("uses the table it is given", () => {
    expect(estimateCostUsd("llama3.1:8b", 1_000_000, 1_000_000, { "llama3.1": { input: 0, output: 0 } })).toBeNull();
    expect(estimateCostUsd("llama3.1:8b", 1_000_000, 1_000_000, { "llama3.1:8b": { input: 1, output: 2 } })).toBe(3);
  });

  it("prices embeddings on input only", () => {
    expect(estimateCostUsd("text-embedding-3-small", 1_000_000, 0)).toBeCloseTo(0.02, 10);
  });
});
