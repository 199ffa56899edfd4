// Which LLM provider and models ACE calls. The values come from the environment, read and checked
// once in server/config/env.ts (getEnv().llm); tests build their own with loadEnv({...}).llm.
import type { PriceTable } from "./prices";

export type LlmProviderKind = "openai" | "offline";

export interface LlmConfig {
  provider: LlmProviderKind;
  /** null when unset; a local server reached through baseUrl may need none. */
  apiKey: string | null;
  /** Any OpenAI-compatible endpoint (Azure, Ollama, vLLM, llama.cpp); null means api.openai.com. */
  baseUrl: string | null;
  reflectorModel: string;
  curatorModel: string;
  /** null when embeddings are disabled (ACE_EMBEDDING_MODEL set to an empty string). */
  embeddingModel: string | null;
  timeoutMs: number;
  maxRetries: number;
  /** DEFAULT_PRICES with ACE_LLM_PRICES laid over it. */
  prices: PriceTable;
}

export const LLM_DEFAULTS = {
  reflectorModel: "gpt-4.1-mini",
  curatorModel: "gpt-4.1-mini",
  embeddingModel: "text-embedding-3-small",
  timeoutMs: 60_000,
  maxRetries: 3,
} as const;
