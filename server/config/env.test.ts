import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_PRICES } from "@/server/llm/prices";
import { ConfigError, getEnv, loadEnv, resetEnv } from "./env";

describe("loadEnv", () => {
  it("gives README's defaults when nothing is set", () => {
    expect(loadEnv({})).toEqual({
      database: { kind: "pglite", dataDir: resolve(".data") },
      port: 3000,
      demoSeed: "auto",
      llm: {
        provider: "offline",
        apiKey: null,
        baseUrl: null,
        reflectorModel: "gpt-4.1-mini",
        curatorModel: "gpt-4.1-mini",
        embeddingModel: "text-embedding-3-small",
        timeoutMs: 60_000,
        maxRetries: 3,
        prices: DEFAULT_PRICES,
      },
      runConcurrency: 2,
      runsPerSecondWhileServing: 2,
      contextCounterRefreshMs: 60_000,
      cacheBytes: { embeddings: 128 * 1024 * 1024, playbookStates: 512 * 1024 * 1024 },
    });
  });

  it("treats a blank value as unset, so `FOO=` in a .env file means the default", () => {
    const env = loadEnv({ DATABASE_URL: " ", PORT: "", ACE_RUN_CONCURRENCY: "", ACE_CURATOR_MODEL: " ", ACE_LLM_PRICES: "" });
    expect(env).toMatchObject({ database: { kind: "pglite" }, port: 3000, runConcurrency: 2, llm: { curatorModel: "gpt-4.1-mini" } });
  });

  it("reads the database: PostgreSQL from DATABASE_URL, else the embedded one in DATA_DIR", () => {
    expect(loadEnv({ DATABASE_URL: "postgresql://u@h:5432/db" }).database).toEqual({ kind: "postgres", url: "postgresql://u@h:5432/db" });
    expect(loadEnv({ DATABASE_URL: "postgres://u@h/db", DATA_DIR: "ignored" }).database).toMatchObject({ kind: "postgres" });
    expect(loadEnv({ DATA_DIR: "tmp/x" }).database).toEqual({ kind: "pglite", dataDir: resolve("tmp/x") });
    expect(loadEnv({ DATA_DIR: ":memory:" }).database).toEqual({ kind: "pglite", dataDir: ":memory:" });
  });

  it("reads the port, the demo seed in any case, the run concurrency and the cache bounds", () => {
    const env = loadEnv({
      PORT: "8080",
      ACE_DEMO_SEED: "Always",
      ACE_RUN_CONCURRENCY: "0",
      ACE_EMBEDDING_CACHE_MB: "16",
      ACE_PLAYBOOK_CACHE_MB: "64",
    });
    expect(env).toMatchObject({
      port: 8080,
      demoSeed: "always",
      runConcurrency: 0,
      cacheBytes: { embeddings: 16 * 1024 * 1024, playbookStates: 64 * 1024 * 1024 },
    });
  });

  it("reads how long counter-only versions wait before the compiled context serves them: 60 s unless set, 0 at once", () => {
    expect(loadEnv({}).contextCounterRefreshMs).toBe(60_000);
    expect(loadEnv({ ACE_CONTEXT_COUNTER_REFRESH_S: "5" }).contextCounterRefreshMs).toBe(5_000);
    expect(loadEnv({ ACE_CONTEXT_COUNTER_REFRESH_S: "0" }).contextCounterRefreshMs).toBe(0);
  });

  it("chooses the openai provider when an API key or a base URL is set, and ACE_LLM_PROVIDER can force offline", () => {
    expect(loadEnv({ OPENAI_API_KEY: "sk-test" }).llm).toMatchObject({ provider: "openai", apiKey: "sk-test" });
    expect(loadEnv({ OPENAI_BASE_URL: "http://localhost:11434/v1/" }).llm).toMatchObject({
      provider: "openai",
      apiKey: null,
      baseUrl: "http://localhost:11434/v1",
    });
    expect(loadEnv({ OPENAI_API_KEY: "sk-test", ACE_LLM_PROVIDER: "Offline" }).llm.provider).toBe("offline");
  });

  it("reads models, timeout and retries", () => {
    const { llm } = loadEnv({ ACE_REFLECTOR_MODEL: "gpt-4.1", ACE_LLM_TIMEOUT_MS: "1500", ACE_LLM_MAX_RETRIES: "0" });
    expect(llm).toMatchObject({ reflectorModel: "gpt-4.1", curatorModel: "gpt-4.1-mini", timeoutMs: 1500, maxRetries: 0 });
  });

  it("turns embeddings off when ACE_EMBEDDING_MODEL is empty, unlike other blank variables", () => {
    expect(loadEnv({ ACE_EMBEDDING_MODEL: "" }).llm.embeddingModel).toBeNull();
    expect(loadEnv({ ACE_EMBEDDING_MODEL: "nomic-embed-text" }).llm.embeddingModel).toBe("nomic-embed-text");
  });

  it("lays ACE_LLM_PRICES over the default prices", () => {
    const { prices } = loadEnv({ ACE_LLM_PRICES: '{"llama3.1:8b": {"input": 0.05}, "gpt-4.1": {"input": 1, "output": 4}}' }).llm;
    expect(prices["llama3.1:8b"]).toEqual({ input: 0.05, output: 0 });
    expect(prices["gpt-4.1"]).toEqual({ input: 1, output: 4 });
    expect(prices["gpt-4o"]).toEqual(DEFAULT_PRICES["gpt-4o"]);
  });

  it("hands out a frozen object: tests pass their own source instead of changing it", () => {
    const env = loadEnv({});
    expect(Object.isFrozen(env) && Object.isFrozen(env.llm) && Object.isFrozen(env.database)).toBe(true);
  });

  it.each([
    [
      { DATABASE_URL: "mysql://root:secret@h/db" },
      /^DATABASE_URL must be a PostgreSQL URL \(postgres:\/\/… or postgresql:\/\/…\), got a "mysql:" URL\. Unset it/,
    ],
    [{ DATABASE_URL: "localhost" }, /DATABASE_URL must be a PostgreSQL URL .*got something that is not a URL/],
    [{ PORT: "http" }, /^PORT must be a whole number from 1 to 65535, got "http"\. Unset it to use 3000\.$/],
    [{ PORT: "70000" }, /PORT must be a whole number from 1 to 65535, got "70000"/],
    [{ ACE_DEMO_SEED: "yes" }, /^ACE_DEMO_SEED must be "auto", "always" or "off", got "yes"/],
    [
      { ACE_RUN_CONCURRENCY: "two" },
      /^ACE_RUN_CONCURRENCY must be a whole number of runs from 0 to 64, got "two"\. Unset it to use 2; 0 turns/,
    ],
    [{ ACE_RUN_CONCURRENCY: "-1" }, /ACE_RUN_CONCURRENCY must be a whole number of runs from 0 to 64, got "-1"/],
    [{ ACE_RUN_CONCURRENCY: "65" }, /ACE_RUN_CONCURRENCY must be a whole number of runs from 0 to 64, got "65"/],
    [{ ACE_RUN_CONCURRENCY: "1.5" }, /ACE_RUN_CONCURRENCY must be a whole number/],
    [{ ACE_EMBEDDING_CACHE_MB: "0" }, /ACE_EMBEDDING_CACHE_MB must be a whole number of megabytes from 1 to 1048576, got "0"/],
    [
      { ACE_PLAYBOOK_CACHE_MB: "half" },
      /^ACE_PLAYBOOK_CACHE_MB must be a whole number of megabytes from 1 to 1048576, got "half"\. Unset it to use 512\./,
    ],
    [
      { ACE_CONTEXT_COUNTER_REFRESH_S: "1m" },
      /^ACE_CONTEXT_COUNTER_REFRESH_S must be a whole number of seconds from 0 to 3600, got "1m"\. Unset it to use 60; 0 serves/,
    ],
    [
      { ACE_RUNS_PER_S_WHILE_SERVING: "fast" },
      /^ACE_RUNS_PER_S_WHILE_SERVING must be a whole number of runs a second from 0 to 1000, got "fast"\. Unset it to use 2; 0 starts/,
    ],
    [{ ACE_CONTEXT_COUNTER_REFRESH_S: "3601" }, /ACE_CONTEXT_COUNTER_REFRESH_S must be a whole number of seconds from 0 to 3600/],
    [{ ACE_LLM_PROVIDER: "anthropic" }, /^ACE_LLM_PROVIDER must be "openai" or "offline", got "anthropic"/],
    [{ ACE_LLM_PROVIDER: "openai" }, /ACE_LLM_PROVIDER is "openai" but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set/],
    [{ OPENAI_BASE_URL: "localhost:11434" }, /^OPENAI_BASE_URL must be an http:\/\/ or https:\/\/ URL, got "localhost:11434"/],
    [{ ACE_LLM_TIMEOUT_MS: "60s" }, /^ACE_LLM_TIMEOUT_MS must be a whole number of milliseconds from 1 to 3600000, got "60s"/],
    [{ ACE_LLM_TIMEOUT_MS: "0" }, /ACE_LLM_TIMEOUT_MS must be a whole number of milliseconds from 1 to/],
    [{ ACE_LLM_MAX_RETRIES: "99" }, /^ACE_LLM_MAX_RETRIES must be a whole number of retries from 0 to 10, got "99"/],
    [{ ACE_REFLECTOR_MODEL: "gpt 4" }, /^ACE_REFLECTOR_MODEL must be a model name without spaces, got "gpt 4"/],
    [{ ACE_CURATOR_MODEL: "x".repeat(201) }, /^ACE_CURATOR_MODEL must be a model name of at most 200 characters/],
    [{ ACE_EMBEDDING_MODEL: "text embedding" }, /^ACE_EMBEDDING_MODEL must be a model name without spaces/],
    [{ ACE_LLM_PRICES: "{gpt-4.1: 2}" }, /^ACE_LLM_PRICES is not valid JSON/],
    [{ ACE_LLM_PRICES: "[1, 2]" }, /^ACE_LLM_PRICES must be a JSON object of model names/],
    [{ ACE_LLM_PRICES: '{"gpt-4.1": {"input": -1}}' }, /^ACE_LLM_PRICES \(at gpt-4\.1\.input\) must not be negative/],
    [{ ACE_LLM_PRICES: '{"gpt-4.1": {"output": 1}}' }, /^ACE_LLM_PRICES \(at gpt-4\.1\.input\) needs input/],
    [{ ACE_LLM_PRICES: '{"gpt-4.1": 2}' }, /^ACE_LLM_PRICES \(at gpt-4\.1\) must be \{"input": USD, "output": USD\}/],
  ])("refuses %j with an error naming the variable, what it accepts and what it got", (source, message) => {
    expect(() => loadEnv(source)).toThrow(ConfigError);
    expect(() => loadEnv(source)).toThrow(message);
  });

  it("never repeats a database password in its error", () => {
    expect(() => loadEnv({ DATABASE_URL: "mysql://root:hunter2@h/db" })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("hunter2") }),
    );
  });

  it("lists every bad variable at once", () => {
    expect(() => loadEnv({ PORT: "x", ACE_DEMO_SEED: "sometimes", ACE_LLM_MAX_RETRIES: "many" })).toThrow(
      /^3 settings are invalid:\n- PORT .*\n- ACE_DEMO_SEED .*\n- ACE_LLM_MAX_RETRIES .*$/,
    );
  });
});

describe("getEnv", () => {
  const saved = process.env.ACE_RUN_CONCURRENCY;
  afterEach(() => {
    if (saved === undefined) delete process.env.ACE_RUN_CONCURRENCY;
    else process.env.ACE_RUN_CONCURRENCY = saved;
    resetEnv();
  });

  it("reads process.env once, and again after resetEnv()", () => {
    process.env.ACE_RUN_CONCURRENCY = "3";
    resetEnv();
    const first = getEnv();
    expect(first.runConcurrency).toBe(3);
    process.env.ACE_RUN_CONCURRENCY = "5";
    expect(getEnv()).toBe(first);
    resetEnv();
    expect(getEnv().runConcurrency).toBe(5);
  });
});
