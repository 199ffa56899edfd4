import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startMockOpenAi, type MockOpenAi } from "../testing/mock-openai";
import { CircuitBreaker } from "./circuit-breaker";
import { loadEnv } from "@/server/config/env";
import type { LlmConfig } from "./config";
import { LlmError, createOpenAiProvider, forgetStructuredOutputFallbacks, type OpenAiProviderOptions } from "./openai-provider";
import type { ChatMessage } from "./types";

const reflectionSchema = z.object({
  reasoning: z.string(),
  bulletTags: z.array(z.object({ id: z.string(), tag: z.enum(["helpful", "harmful", "neutral"]) })),
});
const reflection = { reasoning: "The answer used the pagination bullet.", bulletTags: [{ id: "str-00001", tag: "helpful" }] };
const messages: ChatMessage[] = [
  { role: "system", content: "You are the reflector. Tag each playbook bullet." },
  { role: "user", content: "Playbook:\n[str-00001] Paginate list calls.\n\nTrace: the agent paginated." },
];
const request = { purpose: "reflector", messages, schema: reflectionSchema, schemaName: "reflection" } as const;

let mock: MockOpenAi;
let sleeps: number[];
let warnings: string[];

beforeAll(async () => {
  mock = await startMockOpenAi();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.reset();
  mock.setDefault({ status: 500, body: { error: { message: "no scripted answer" } } });
  forgetStructuredOutputFallbacks();
  sleeps = [];
  warnings = [];
});

function config(overrides: Partial<LlmConfig> = {}): LlmConfig {
  return { ...loadEnv({ OPENAI_BASE_URL: mock.url }).llm, maxRetries: 2, timeoutMs: 5_000, ...overrides };
}

function provider(overrides: Partial<LlmConfig> = {}, options: OpenAiProviderOptions = {}) {
  return createOpenAiProvider(config(overrides), {
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    warn: (message) => void warnings.push(message),
    ...options,
  });
}

async function llmError(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe("structured output", () => {
  it("asks for json_schema and returns the parsed answer, its usage and the raw text", async () => {
    mock.script({ content: reflection, usage: { prompt_tokens: 120, completion_tokens: 30 } });
    const result = await provider().complete(request);
    expect(result).toMatchObject({
      provider: "openai",
      model: "gpt-4.1-mini",
      rawText: JSON.stringify(reflection),
      parsed: { ok: true, value: reflection },
      inputTokens: 120,
      outputTokens: 30,
      attempts: 1,
      mode: "json_schema",
    });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    const sent = mock.requests[0]!;
    expect(sent.headers.authorization).toBe("Bearer not-needed");
    expect(sent.body).toMatchObject({ model: "gpt-4.1-mini", messages });
    expect(sent.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "reflection", strict: true, schema: { type: "object", required: ["reasoning", "bulletTags"] } },
    });
  });

  it("uses the model configured for each purpose", async () => {
    mock.script({ content: reflection }, { content: reflection });
    const p = provider({ reflectorModel: "gpt-4.1", curatorModel: "o4-mini" });
    expect(p.modelFor("curator")).toBe("o4-mini");
    await p.complete(request);
    await p.complete({ ...request, purpose: "curator" });
    expect(mock.requests.map((r) => r.body.model)).toEqual(["gpt-4.1", "o4-mini"]);
  });

  it("falls back to json_object with the schema in the system message, and remembers the fallback", async () => {
    mock.script({ rejectJsonSchema: true }, { content: reflection });
    const p = provider();
    const first = await p.complete(request);
    expect(first).toMatchObject({ mode: "json_object", attempts: 2, parsed: { ok: true, value: reflection } });
    const fallback = mock.requests[1]!.body;
    expect(fallback.response_format).toEqual({ type: "json_object" });
    const system = fallback.messages![0]!.content as string;
    expect(system).toMatch(/^You are the reflector\. Tag each playbook bullet\.\n\nAnswer with one JSON object/);
    expect(system).toContain('"bulletTags"');
    expect(fallback.messages).toHaveLength(2);
    expect(warnings).toEqual([expect.stringContaining("rejected structured outputs (json_schema) for gpt-4.1-mini")]);

    mock.script({ content: reflection });
    const second = await provider().complete(request); // a new provider for the same server and model
    expect(second).toMatchObject({ mode: "json_object", attempts: 1 });
    expect(mock.requests[2]!.body.response_format).toEqual({ type: "json_object" });
    expect(sleeps).toEqual([]);
  });

  it("adds a system message for the schema when the request has none", async () => {
    mock.script({ rejectJsonSchema: true }, { content: reflection });
    await provider().complete({ ...request, messages: [messages[1]!] });
    const sent = mock.requests[1]!.body.messages!;
    expect(sent.map((m) => m.role)).toEqual(["system", "user"]);
  });
});

describe("answers that do not parse", () => {
  it("returns malformed JSON as a readable parse failure and keeps the raw text", async () => {
    const raw = 'Sure! {"reasoning": "ok", bulletTags: []}';
    mock.script({ content: raw });
    const result = await provider().complete(request);
    expect(result.rawText).toBe(raw);
    expect(result.parsed).toEqual({ ok: false, error: expect.stringMatching(/^The model's answer is not JSON: .+/) });
  });

  it("names the field that breaks the schema", async () => {
    mock.script({ content: { reasoning: "ok", bulletTags: [{ id: "str-00001", tag: "great" }] } });
    const result = await provider().complete(request);
    expect(result.parsed).toEqual({
      ok: false,
      error: "The model's answer does not match the reflection schema: bulletTags.0.tag: expected one of helpful|harmful|neutral",
    });
  });

  it("says when an answer was cut off at the token limit", async () => {
    mock.script({ content: '{"reasoning": "The answer us', finishReason: "length" });
    const result = await provider().complete(request);
    expect(result.parsed).toMatchObject({ ok: false, error: expect.stringMatching(/cut off at the model's output token limit\.$/) });
  });

  it("does not count parse failures against the circuit breaker", async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1 });
    mock.script({ content: "not json" }, { content: "still not json" });
    const p = provider({}, { breaker });
    await p.complete(request);
    await p.complete(request);
    expect((await breaker.snapshot()).state).toBe("closed");
  });
});

describe("token usage", () => {
  it("estimates tokens when the server reports no usage", async () => {
    mock.script({ content: reflection, usage: null });
    const result = await provider().complete(request);
    expect(result.inputTokens).toBeGreaterThan(20);
    expect(result.outputTokens).toBeGreaterThan(10);
  });
});

describe("retries", () => {
  it("retries a 429 after the Retry-After the provider asked for", async () => {
    mock.script({ status: 429, headers: { "retry-after": "2" } }, { content: reflection });
    const result = await provider().complete(request);
    expect(result).toMatchObject({ attempts: 2, parsed: { ok: true } });
    expect(sleeps).toEqual([2_000]);
  });

  it("prefers retry-after-ms and caps what it sleeps", async () => {
    mock.script(
      { status: 429, headers: { "retry-after-ms": "250", "retry-after": "1" } },
      { status: 429, headers: { "retry-after": "3600" } },
      { content: reflection },
    );
    await provider().complete(request);
    expect(sleeps).toEqual([250, 60_000]);
  });

  it("backs off exponentially on 5xx without Retry-After, then fails with server_error", async () => {
    const error = await llmError(provider({ maxRetries: 3 }).complete(request));
    expect(error).toMatchObject({ kind: "server_error", retryable: true, attempts: 4, status: 500 });
    expect(error.message).toBe("The provider answered 500 four times: no scripted answer");
    expect(sleeps).toEqual([1_000, 2_000, 4_000]);
    expect(mock.count("chat")).toBe(4);
  });

  it("says how many times it failed in words", async () => {
    const error = await llmError(provider({ maxRetries: 2 }).complete(request));
    expect(error.message).toBe("The provider answered 500 three times: no scripted answer");
  });

  it.each([
    [401, "auth", /refused the API key \(401\).*OPENAI_API_KEY/],
    [403, "auth", /refused the API key \(403\)/],
    [400, "bad_request", /rejected the request \(400\): messages must not be empty/],
    [404, "bad_request", /does not know model "gpt-4.1-mini"/],
  ] as const)("fails at once on %i (%s)", async (status, kind, message) => {
    mock.script({ status, body: { error: { message: "messages must not be empty" } } });
    const error = await llmError(provider().complete(request));
    expect(error).toMatchObject({ kind, retryable: false, attempts: 1, status });
    expect(error.message).toMatch(message);
    expect(mock.count("chat")).toBe(1);
  });

  it("times out a slow answer, retries it, and reports a timeout", async () => {
    mock.script({ delayMs: 1_000, then: { content: reflection } }, { content: reflection });
    const recovered = await provider({ timeoutMs: 100, maxRetries: 1 }).complete(request);
    expect(recovered).toMatchObject({ attempts: 2, parsed: { ok: true } });

    mock.script({ delayMs: 1_000, then: { content: reflection } });
    const error = await llmError(provider({ timeoutMs: 100, maxRetries: 0 }).complete(request));
    expect(error).toMatchObject({ kind: "timeout", retryable: true, attempts: 1 });
    expect(error.message).toMatch(/did not answer within 100 ms \(once\).*ACE_LLM_TIMEOUT_MS/);
  });

  it("reports a server that cannot be reached as a connection error", async () => {
    const gone = await startMockOpenAi();
    await gone.close();
    const p = createOpenAiProvider(
      { ...config({ maxRetries: 1 }), baseUrl: gone.url },
      { sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 },
    );
    const error = await llmError(p.complete(request));
    expect(error).toMatchObject({ kind: "connection", attempts: 2 });
    expect(error.message).toContain(`Could not reach the provider at ${gone.url} (twice)`);
  });

  it("ends with the caller's reason when the caller aborts", async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1 });
    mock.script({ delayMs: 1_000, then: { content: reflection } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("run cancelled")), 50);
    await expect(provider({}, { breaker }).complete({ ...request, signal: controller.signal })).rejects.toThrow("run cancelled");
    expect((await breaker.snapshot()).state).toBe("closed");
  });
});

describe("circuit breaker", () => {
  it("opens after N failed calls, fails fast without calling, then a probe after the cooldown closes it", async () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 2, cooldownMs: 60_000, now: () => now });
    const p = provider({ maxRetries: 1 }, { breaker });

    for (let call = 0; call < 2; call++) {
      const error = await llmError(p.complete(request));
      expect(error).toMatchObject({ kind: "server_error", attempts: 2 });
    }
    expect(mock.count("chat")).toBe(4);
    expect(await breaker.snapshot()).toMatchObject({ state: "open", consecutiveFailures: 2 });

    now += 30_000;
    const fast = await llmError(p.complete(request));
    expect(fast).toMatchObject({ kind: "circuit_open", attempts: 0, retryable: true, retryAfterMs: 30_000 });
    expect(fast.message).toMatch(
      /paused after 2 failed calls in a row; they resume in 30 s\. The last failure: The provider answered 500 twice/,
    );
    expect(mock.count("chat")).toBe(4);

    now += 30_000;
    mock.script({ content: reflection });
    const probe = await p.complete(request);
    expect(probe.parsed.ok).toBe(true);
    expect(mock.count("chat")).toBe(5);
    expect(await breaker.snapshot()).toMatchObject({ state: "closed", consecutiveFailures: 0 });
  });

  it("does not count a rejected API key as the provider failing", async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1 });
    mock.script({ status: 401 });
    await llmError(provider({}, { breaker }).complete(request));
    expect((await breaker.snapshot()).state).toBe("closed");
  });
});

describe("embeddings", () => {
  it("embeds in batches of at most 256 and keeps the input order", async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `bullet number ${i}`);
    const p = provider();
    const vectors = await p.embed!(texts);
    expect(vectors).toHaveLength(300);
    expect(mock.requests.map((r) => (r.body.input as string[]).length)).toEqual([256, 44]);
    expect(mock.requests[0]!.body).toMatchObject({ model: "text-embedding-3-small", encoding_format: "float" });
    const [again] = await p.embed!(["bullet number 299"]);
    expect(again).toEqual(vectors[299]);
  });

  it("retries embeddings like completions", async () => {
    mock.scriptEmbeddings({ status: 503 }, { vectors: [[1, 0]] });
    expect(await provider().embed!(["x"])).toEqual([[1, 0]]);
    expect(sleeps).toHaveLength(1);
  });

  it("has no embed when embeddings are disabled", () => {
    expect(provider({ embeddingModel: null }).embed).toBeUndefined();
  });
});
