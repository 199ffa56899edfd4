// The provider for OpenAI and every OpenAI-compatible server (Azure, Ollama, vLLM, llama.cpp).
// Asks for structured outputs (json_schema) and falls back to json_object with the schema in the
// system message on servers that lack them; retries transient failures with back-off; reports
// to a circuit breaker; never throws for an answer that does not parse.
import { setTimeout as sleepTimer } from "node:timers/promises";
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, type ClientOptions } from "openai";
import type { ChatCompletion, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { countTokens } from "../ace/tokens";
import { backoffDelay } from "../jobs/backoff";
import type { CircuitBreaker } from "./circuit-breaker";
import type { LlmConfig } from "./config";
import { LlmError, TRANSIENT_LLM_ERROR_KINDS, type LlmErrorKind } from "./errors";
import { parseModelJson } from "./json";
import { jsonObjectInstruction, responseJsonSchema } from "./structured-output";
import type { ChatMessage, CompletionRequest, CompletionResult, LlmProvider, LlmPurpose } from "./types";
import { formatDuration } from "@/server/ace/text/format";

export { LlmError, type LlmErrorKind } from "./errors";

export interface OpenAiProviderOptions {
  breaker?: Pick<CircuitBreaker, "acquire" | "recordSuccess" | "recordFailure" | "release">;
  fetch?: ClientOptions["fetch"];
  /** Waits between retries; tests pass one that records and returns at once. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of back-off jitter in [0, 1). */
  random?: () => number;
  /** Told when a server's json_schema rejection switches a model to json_object. Default: console.warn. */
  warn?: (message: string) => void;
}

export const EMBEDDING_BATCH_SIZE = 256;
/** Waits between retries of one call: 1 s, 2 s, 4 s … up to 30 s, ±25 %. */
export const BACKOFF = { baseMs: 1_000, maxMs: 30_000, jitter: 0.25 } as const;
/** A Retry-After longer than this is still reported in LlmError.retryAfterMs, but not slept through. */
export const MAX_RETRY_AFTER_MS = 60_000;
const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** Placeholder key for local servers that take none; the SDK refuses to start without one. */
const NO_API_KEY = "not-needed";

/** (baseURL, model) pairs whose server rejected json_schema, remembered for the process lifetime. */
const jsonObjectOnly = new Set<string>();

/** For tests that reuse a base URL and model across cases. */
export function forgetStructuredOutputFallbacks(): void {
  jsonObjectOnly.clear();
}

interface Failure {
  kind: LlmErrorKind;
  status?: number;
  detail: string;
  retryAfterMs?: number;
  cause: unknown;
}

export function createOpenAiProvider(config: LlmConfig, options: OpenAiProviderOptions = {}): LlmProvider {
  const baseURL = config.baseUrl ?? OPENAI_BASE_URL;
  const client = new OpenAI({
    apiKey: config.apiKey ?? NO_API_KEY,
    baseURL,
    timeout: config.timeoutMs,
    maxRetries: 0, // retries happen here, where they are counted, reported and broken by the circuit
    fetch: options.fetch,
  });
  const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => sleepTimer(ms, undefined, { signal }));
  const random = options.random ?? Math.random;
  const breaker = options.breaker;
  const warn = options.warn ?? ((message: string) => console.warn(message));

  const modelFor = (purpose: LlmPurpose) => (purpose === "reflector" ? config.reflectorModel : config.curatorModel);

  /** Runs one logical call through the breaker and the retry loop. */
  async function call<R>(
    what: { model: string; signal?: AbortSignal },
    send: () => Promise<R>,
    /** Lets complete() switch to json_object on a json_schema rejection: true means "try again now". */
    recover?: (error: unknown) => boolean,
  ): Promise<{ value: R; attempts: number }> {
    const permit = breaker ? await breaker.acquire() : ({ allowed: true, probe: false } as const);
    if (!permit.allowed) {
      const last = permit.state.lastError ? ` The last failure: ${permit.state.lastError}` : "";
      const when = permit.retryAfterMs > 0 ? `in ${formatDuration(permit.retryAfterMs)}` : "after the probe call in flight ends";
      throw new LlmError(
        "circuit_open",
        `Calls to the LLM provider are paused after ${permit.state.consecutiveFailures} failed calls in a row; ` +
          `they resume ${when}.${last}`,
        { attempts: 0, retryAfterMs: permit.retryAfterMs },
      );
    }
    let attempts = 0;
    const failures: Failure[] = [];
    try {
      for (;;) {
        attempts++;
        try {
          const value = await send();
          await breaker?.recordSuccess();
          return { value, attempts };
        } catch (error) {
          if (what.signal?.aborted || error instanceof APIUserAbortError) throw error;
          if (recover?.(error)) continue;
          const failure = classify(error);
          failures.push(failure);
          const retriesUsed = failures.length - 1;
          if (!TRANSIENT_LLM_ERROR_KINDS.has(failure.kind) || retriesUsed >= config.maxRetries) {
            const llmError = toLlmError(failures, attempts, { baseURL, model: what.model, timeoutMs: config.timeoutMs });
            if (TRANSIENT_LLM_ERROR_KINDS.has(llmError.kind)) await breaker?.recordFailure(llmError.message);
            else await breaker?.recordSuccess(); // it answered: a 400 or 401 is our problem, not its health
            throw llmError;
          }
          await sleep(retryDelayMs(failure, retriesUsed + 1, random), what.signal);
        }
      }
    } catch (error) {
      if (!(error instanceof LlmError)) {
        breaker?.release(permit);
        // The caller's abort ends the call with the caller's reason, not the SDK's wrapper.
        if (what.signal?.aborted) what.signal.throwIfAborted();
      }
      throw error;
    }
  }

  async function complete<T>(req: CompletionRequest<T>): Promise<CompletionResult<T>> {
    const started = performance.now();
    const model = modelFor(req.purpose);
    const fallbackKey = `${baseURL}|${model}`;
    let mode: CompletionResult<T>["mode"] = jsonObjectOnly.has(fallbackKey) ? "json_object" : "json_schema";
    const { schema: jsonSchema, strict } = responseJsonSchema(req.schema);

    const send = () =>
      client.chat.completions.create(
        mode === "json_schema"
          ? {
              model,
              messages: req.messages,
              response_format: { type: "json_schema", json_schema: { name: req.schemaName, schema: jsonSchema, strict } },
            }
          : {
              model,
              messages: withSchemaInstruction(req.messages, jsonObjectInstruction(req.schemaName, jsonSchema)),
              response_format: { type: "json_object" },
            },
        { signal: req.signal },
      );
    const recover = (error: unknown) => {
      if (mode !== "json_schema" || !rejectsJsonSchema(error)) return false;
      // Said out loud: on api.openai.com this would mean our schema is at fault, not the server.
      warn(
        `${baseURL} rejected structured outputs (json_schema) for ${model}: ${(error as Error).message}. ` +
          "Using json_object with the schema in the system message for this model from now on.",
      );
      jsonObjectOnly.add(fallbackKey);
      mode = "json_object";
      return true;
    };

    const { value: response, attempts } = await call({ model, signal: req.signal }, send, recover);
    const { rawText, problem } = answerText(response);
    let parsed = problem ? ({ ok: false, error: problem } as const) : parseModelJson(rawText, req.schema, req.schemaName);
    if (!parsed.ok && response.choices?.[0]?.finish_reason === "length") {
      parsed = { ok: false, error: `${parsed.error} The answer was cut off at the model's output token limit.` };
    }
    return {
      provider: "openai",
      model: response.model || model,
      rawText,
      parsed,
      inputTokens: response.usage?.prompt_tokens ?? estimatePromptTokens(req.messages),
      outputTokens: response.usage?.completion_tokens ?? countTokens(rawText),
      latencyMs: Math.round(performance.now() - started),
      attempts,
      mode,
    };
  }

  async function embed(texts: string[]): Promise<number[][]> {
    const model = config.embeddingModel;
    if (!model) throw new Error("Embeddings are disabled (ACE_EMBEDDING_MODEL is empty).");
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += EMBEDDING_BATCH_SIZE) {
      // The API rejects empty strings; a space embeds as "nothing" just as well.
      const batch = texts.slice(start, start + EMBEDDING_BATCH_SIZE).map((t) => (t === "" ? " " : t));
      const { value: response } = await call({ model }, () => client.embeddings.create({ model, input: batch, encoding_format: "float" }));
      const data = [...(response.data ?? [])].sort((a, b) => a.index - b.index);
      if (data.length !== batch.length) {
        throw new LlmError("bad_request", `The provider returned ${data.length} embeddings for ${batch.length} texts (model ${model}).`, {
          attempts: 1,
          retryable: false,
        });
      }
      for (const item of data) vectors.push(item.embedding);
    }
    return vectors;
  }

  return {
    name: "openai",
    modelFor,
    complete,
    ...(config.embeddingModel ? { embed } : {}),
  };
}

/** The json_object instruction goes into the system message, or a new one when there is none. */
function withSchemaInstruction(messages: ChatMessage[], instruction: string): ChatCompletionMessageParam[] {
  const index = messages.findIndex((m) => m.role === "system");
  if (index === -1) return [{ role: "system", content: instruction }, ...messages];
  return messages.map((m, i) => (i === index ? { ...m, content: `${m.content}\n\n${instruction}` } : m));
}

function answerText(response: ChatCompletion): { rawText: string; problem?: string } {
  const choice = response.choices?.[0];
  const content = choice?.message?.content;
  if (typeof content === "string" && content !== "") return { rawText: content };
  const refusal = choice?.message?.refusal;
  if (refusal) return { rawText: refusal, problem: `The model refused to answer: ${refusal}` };
  const reason = choice?.finish_reason ? ` (finish_reason: ${choice.finish_reason})` : "";
  return { rawText: "", problem: `The model's answer is empty${reason}.` };
}

/** Chat-format overhead: about 4 tokens per message plus 3 to prime the answer (OpenAI's cookbook). */
function estimatePromptTokens(messages: ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + 4 + countTokens(m.content), 3);
}

/**
 * Servers without structured outputs answer 400 (vLLM, older llama.cpp and Ollama), 404 or 422
 * with a message naming the field; other 400s are real errors.
 */
function rejectsJsonSchema(error: unknown): boolean {
  if (!(error instanceof APIError) || ![400, 404, 422].includes(error.status ?? 0)) return false;
  const text = `${error.message} ${error.param ?? ""} ${JSON.stringify(error.error ?? "")}`;
  return /response_format|json_schema|structured output/i.test(text);
}

function classify(error: unknown): Failure {
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout", detail: error.message, cause: error };
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return { kind: "connection", detail: `${error.message}${cause}`, cause: error };
  }
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const detail = error.message.replace(/^\d{3} /, "");
    const retryAfterMs = retryAfterFromHeaders(error.headers);
    const base = { status, detail, cause: error, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    if (status === 429) return { kind: "rate_limited", ...base };
    if (status === 408) return { kind: "timeout", ...base };
    if (status >= 500 || status === 409) return { kind: "server_error", ...base };
    if (status === 401 || status === 403) return { kind: "auth", ...base };
    return { kind: "bad_request", ...base };
  }
  // Not the SDK's: a bug here or a broken response body. Reported as is, never retried.
  throw error;
}

/** retry-after-ms (OpenAI, Azure) first, then Retry-After in seconds or as an HTTP date. */
export function retryAfterFromHeaders(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number.parseFloat(ms))) return Math.max(0, Number.parseFloat(ms));
  const after = headers?.get("retry-after");
  if (!after) return undefined;
  const seconds = Number(after);
  if (after.trim() !== "" && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The provider's Retry-After when it gave one (capped), else the exponential backoff jobs use too. */
export function retryDelayMs(failure: Pick<Failure, "retryAfterMs">, retry: number, random: () => number): number {
  if (failure.retryAfterMs !== undefined) return Math.min(failure.retryAfterMs, MAX_RETRY_AFTER_MS);
  return backoffDelay(retry, BACKOFF, random);
}

function toLlmError(failures: Failure[], attempts: number, where: { baseURL: string; model: string; timeoutMs: number }): LlmError {
  const last = failures[failures.length - 1]!;
  const same = failures.filter((f) => f.kind === last.kind);
  const n = failures.every((f) => f.kind === last.kind) ? times(failures.length) : "";
  const statuses = [...new Set(same.map((f) => f.status).filter((s) => s !== undefined))].join("/");
  let message: string;
  switch (last.kind) {
    case "rate_limited":
      message = `The provider rate-limited the call (429)${n ? ` ${n}` : ""}: ${last.detail}. Wait and run it again, or raise the API key's rate limit.`;
      break;
    case "server_error":
      message = `The provider answered ${statuses}${n ? ` ${n}` : ""}: ${last.detail}`;
      break;
    case "timeout":
      message =
        `The provider did not answer within ${formatDuration(where.timeoutMs)}${n ? ` (${n})` : ""}: ${last.detail} ` +
        `Raise ACE_LLM_TIMEOUT_MS for slow models, or check the server at ${where.baseURL}.`;
      break;
    case "connection":
      message =
        `Could not reach the provider at ${where.baseURL}${n ? ` (${n})` : ""}: ${last.detail}. ` +
        "Check OPENAI_BASE_URL and that the server is running.";
      break;
    case "auth":
      message = `The provider refused the API key (${last.status}): ${last.detail}. Check OPENAI_API_KEY.`;
      break;
    default:
      message =
        last.status === 404
          ? `The provider does not know model "${where.model}" or this endpoint (404): ${last.detail}. Check the model name and OPENAI_BASE_URL.`
          : `The provider rejected the request (${last.status}): ${last.detail}`;
  }
  if (!n) message = `The call failed ${times(failures.length)}; the last time: ${message}`;
  return new LlmError(last.kind, message, {
    attempts,
    ...(last.retryAfterMs === undefined ? {} : { retryAfterMs: last.retryAfterMs }),
    ...(last.status === undefined ? {} : { status: last.status }),
    cause: last.cause,
  });
}

const TIMES = [
  "",
  "once",
  "twice",
  "three times",
  "four times",
  "five times",
  "six times",
  "seven times",
  "eight times",
  "nine times",
  "ten times",
  "eleven times",
];

function times(n: number): string {
  return TIMES[n] || `${n} times`;
}
