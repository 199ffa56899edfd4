// The contract between ACE's LLM-calling code (reflector, curator) and a provider. Kept free of
// SDK types so the offline provider and test doubles implement it without importing `openai`.
import type { ZodType } from "zod";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export type LlmPurpose = "reflector" | "curator";

export interface CompletionRequest<T> {
  purpose: LlmPurpose;
  messages: ChatMessage[];
  schema: ZodType<T>;
  /** Names the answer's shape for the provider (json_schema.name) and in parse errors: "reflection", "curation". */
  schemaName: string;
  signal?: AbortSignal;
}

export type ParsedAnswer<T> = { ok: true; value: T } | { ok: false; error: string };

export type LlmProviderName = "openai" | "offline";

export interface CompletionResult<T> {
  provider: LlmProviderName;
  model: string;
  /** The model's answer as received, kept for the run record even when it does not parse. */
  rawText: string;
  parsed: ParsedAnswer<T>;
  inputTokens: number;
  outputTokens: number;
  /** Wall time of the whole call, retries and back-off included. */
  latencyMs: number;
  /** HTTP calls made, including the one a server rejected for json_schema before the json_object fallback. */
  attempts: number;
  mode: "json_schema" | "json_object";
}

export interface LlmProvider {
  name: LlmProviderName;
  modelFor(purpose: LlmPurpose): string;
  complete<T>(req: CompletionRequest<T>): Promise<CompletionResult<T>>;
  /** Absent when embeddings are disabled (ACE_EMBEDDING_MODEL=""). Vectors come back in input order. */
  embed?(texts: string[]): Promise<number[][]>;
}
