// What a call costs, from a table of list prices in USD per 1M tokens. Unknown models (a local
// Ollama or vLLM model, an Azure deployment name) have no price: the cost is null, not 0.

export interface ModelPrice {
  /** USD per 1M input (prompt) tokens. */
  input: number;
  /** USD per 1M output (completion) tokens; 0 for embedding models. */
  output: number;
}

export type PriceTable = Record<string, ModelPrice>;

/**
 * OpenAI list prices (standard tier, no cached-input or batch discount) as of August 2025.
 * Override or extend with ACE_LLM_PRICES, e.g. {"my-azure-deployment": {"input": 0.4, "output": 1.6}}.
 */
export const DEFAULT_PRICES: PriceTable = {
  "gpt-5": { input: 1.25, output: 10 },
  "gpt-5-mini": { input: 0.25, output: 2 },
  "gpt-5-nano": { input: 0.05, output: 0.4 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  o3: { input: 2, output: 8 },
  "o3-mini": { input: 1.1, output: 4.4 },
  "o4-mini": { input: 1.1, output: 4.4 },
  "text-embedding-3-small": { input: 0.02, output: 0 },
  "text-embedding-3-large": { input: 0.13, output: 0 },
  "text-embedding-ada-002": { input: 0.1, output: 0 },
};

/**
 * The price of a model: an exact name, or the longest table entry that the name extends with
 * "-…", so dated snapshots (gpt-4.1-mini-2025-04-14) cost what their family costs and
 * gpt-4o-mini-… never matches gpt-4o. A routing prefix such as "openai/" is ignored.
 */
export function priceFor(model: string, table: PriceTable = DEFAULT_PRICES): ModelPrice | null {
  const name = model.trim().toLowerCase().replace(/^.*\//, "");
  let best: { key: string; price: ModelPrice } | null = null;
  for (const [key, price] of Object.entries(table)) {
    const k = key.toLowerCase();
    if ((name === k || name.startsWith(`${k}-`)) && (!best || k.length > best.key.length)) best = { key: k, price };
  }
  return best?.price ?? null;
}

export function estimateCostUsd(
  model: string,
  inputTokens: number,
  outputTokens: number,
  table: PriceTable = DEFAULT_PRICES,
): number | null {
  const price = priceFor(model, table);
  if (!price) return null;
  return (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
}
