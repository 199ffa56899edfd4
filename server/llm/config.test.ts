import { describe, expect, it } from "vitest";
import { LlmConfigError, llmConfigFromEnv } from "./config";
import { DEFAULT_PRICES } from "./prices";

describe("llmConfigFromEnv", () => {
  it("is offline with defaults when neither an API key nor a base URL is set", () => {
    expect(llmConfigFromEnv({})).toEqual({
      provider: "offline",
      apiKey: null,
      baseUrl: null,
      reflectorModel: "gpt-4.1-mini",
      curatorModel: "gpt-4.1-mini",
      embeddingModel: "text-embedding-3-small",
      timeoutMs: 60_000,
      maxRetries: 3,
      prices: DEFAULT_PRICES,
    });
  });

  it("chooses openai when an API key or a base URL is set", () => {
    expect(llmConfigFromEnv({ OPENAI_API_KEY: "sk-test" }).provider).toBe("openai");
    const local = llmConfigFromEnv({ OPENAI_BASE_URL: "http://localhost:11434/v1/" });
    expect(local).toMatchObject({ provider: "openai", apiKey: null, baseUrl: "http://localhost:11434/v1" });
  });

  it("lets ACE_LLM_PROVIDER force offline even with a key", () => {
    expect(llmConfigFromEnv({ OPENAI_API_KEY: "sk-test", ACE_LLM_PROVIDER: "Offline" }).provider).toBe("offline");
  });

  it("reads models, timeout, retries and treats blank values as unset", () => {
    const config = llmConfigFromEnv({
      OPENAI_API_KEY: "sk-test",
      ACE_REFLECTOR_MODEL: "gpt-4.1",
      ACE_CURATOR_MODEL: " ",
      ACE_LLM_TIMEOUT_MS: "1500",
      ACE_LLM_MAX_RETRIES: "0",
    });
    expect(config).toMatchObject({ reflectorModel: "gpt-4.1", curatorModel: "gpt-4.1-mini", timeoutMs: 1500, maxRetries: 0 });
  });

  it("disables embeddings when ACE_EMBEDDING_MODEL is empty", () => {
    expect(llmConfigFromEnv({ ACE_EMBEDDING_MODEL: "" }).embeddingModel).toBeNull();
    expect(llmConfigFromEnv({ ACE_EMBEDDING_MODEL: "nomic-embed-text" }).embeddingModel).toBe("nomic-embed-text");
  });

  it("lays ACE_LLM_PRICES over the default prices", () => {
    const { prices } = llmConfigFromEnv({ ACE_LLM_PRICES: '{"llama3.1:8b": {"input": 0.05}, "gpt-4.1": {"input": 1, "output": 4}}' });
    expect(prices["llama3.1:8b"]).toEqual({ input: 0.05, output: 0 });
    expect(prices["gpt-4.1"]).toEqual({ input: 1, output: 4 });
    expect(prices["gpt-4o"]).toEqual(DEFAULT_PRICES["gpt-4o"]);
  });

  it.each([
    [{ ACE_LLM_PROVIDER: "anthropic" }, /ACE_LLM_PROVIDER must be "openai" or "offline", but it is "anthropic"/],
    [{ ACE_LLM_PROVIDER: "openai" }, /neither OPENAI_API_KEY nor OPENAI_BASE_URL is set/],
    [{ OPENAI_BASE_URL: "localhost:11434" }, /OPENAI_BASE_URL must be an http:\/\/ or https:\/\/ URL/],
    [{ ACE_LLM_TIMEOUT_MS: "60s" }, /ACE_LLM_TIMEOUT_MS must be a whole number of milliseconds, but it is "60s"/],
    [{ ACE_LLM_TIMEOUT_MS: "0" }, /ACE_LLM_TIMEOUT_MS must be at least 1/],
    [{ ACE_LLM_MAX_RETRIES: "-1" }, /ACE_LLM_MAX_RETRIES must be a whole number of retries/],
    [{ ACE_LLM_MAX_RETRIES: "99" }, /ACE_LLM_MAX_RETRIES must be at most 10/],
    [{ ACE_REFLECTOR_MODEL: "gpt 4" }, /ACE_REFLECTOR_MODEL must be a model name without spaces/],
    [{ ACE_LLM_PRICES: "{gpt-4.1: 2}" }, /ACE_LLM_PRICES is not valid JSON/],
    [{ ACE_LLM_PRICES: '{"gpt-4.1": {"input": -1}}' }, /ACE_LLM_PRICES \(at gpt-4\.1\.input\) must not be negative/],
    [{ ACE_LLM_PRICES: '{"gpt-4.1": 2}' }, /ACE_LLM_PRICES \(at gpt-4\.1\)/],
  ])("rejects %j with an error naming the variable", (env, message) => {
    expect(() => llmConfigFromEnv(env)).toThrow(LlmConfigError);
    expect(() => llmConfigFromEnv(env)).toThrow(message);
  });
});
