// Which LLM provider and models ACE calls, read from the environment when asked (not at import),
// so tests and the CLI can pass their own env and a bad value fails the call that needs it.
import { z } from "zod";
import { DEFAULT_PRICES, type PriceTable } from "./prices";

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

export class LlmConfigError extends Error {
  override name = "LlmConfigError";
}

type Env = Record<string, string | undefined>;

const modelName = z
  .string()
  .regex(/^\S+$/, { error: "must be a model name without spaces" })
  .max(200, { error: "must be a model name of at most 200 characters" });

const priceTableSchema = z.record(
  z.string().min(1),
  z.strictObject({
    input: z.number({ error: "needs input, a price in USD per 1M tokens" }).nonnegative({ error: "must not be negative" }),
    output: z.number({ error: "must be a price in USD per 1M tokens" }).nonnegative({ error: "must not be negative" }).default(0),
  }),
);

/** One variable: its schema's first complaint becomes an error that names the variable and its value. */
function read<T>(name: string, raw: unknown, schema: z.ZodType<T>, fix: string): T {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` (at ${issue.path.join(".")})` : "";
  throw new LlmConfigError(`${name}${where} ${issue?.message ?? "is invalid"}, but it is ${JSON.stringify(raw)}. ${fix}`);
}

/** Blank counts as unset, so `FOO=` in a .env file means "use the default". */
function present(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function integerVariable(env: Env, name: string, min: number, max: number, unit: string, fallback: number): number {
  const value = present(env, name);
  if (value === undefined) return fallback;
  return read(
    name,
    value,
    z
      .string()
      .regex(/^\d+$/, { error: `must be a whole number of ${unit}` })
      .transform(Number)
      .pipe(z.number().min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` })),
    `Unset it to use the default (${fallback}).`,
  );
}

export function llmConfigFromEnv(env: Env = process.env): LlmConfig {
  const apiKey = present(env, "OPENAI_API_KEY") ?? null;
  const baseUrlRaw = present(env, "OPENAI_BASE_URL");
  const baseUrl =
    baseUrlRaw === undefined
      ? null
      : read(
          "OPENAI_BASE_URL",
          baseUrlRaw,
          z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }),
          "Use the server's OpenAI-compatible base URL, e.g. http://localhost:11434/v1 for Ollama.",
        ).replace(/\/+$/, "");

  const providerRaw = present(env, "ACE_LLM_PROVIDER")?.toLowerCase();
  const provider: LlmProviderKind =
    providerRaw === undefined
      ? apiKey || baseUrl
        ? "openai"
        : "offline"
      : read(
          "ACE_LLM_PROVIDER",
          providerRaw,
          z.enum(["openai", "offline"], { error: 'must be "openai" or "offline"' }),
          "Unset it to choose by whether OPENAI_API_KEY or OPENAI_BASE_URL is set.",
        );
  if (provider === "openai" && !apiKey && !baseUrl) {
    throw new LlmConfigError(
      'ACE_LLM_PROVIDER is "openai" but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set. ' +
        "Set OPENAI_API_KEY for api.openai.com, OPENAI_BASE_URL for a local or compatible server, " +
        'or ACE_LLM_PROVIDER="offline".',
    );
  }

  const model = (name: string, fallback: string) => {
    const value = present(env, name);
    return value === undefined ? fallback : read(name, value, modelName, `Unset it to use ${fallback}.`);
  };
  // Unlike the other variables, an empty ACE_EMBEDDING_MODEL means something: no embeddings.
  const embeddingRaw = env.ACE_EMBEDDING_MODEL;
  const embeddingModel =
    embeddingRaw === undefined
      ? LLM_DEFAULTS.embeddingModel
      : embeddingRaw.trim() === ""
        ? null
        : model("ACE_EMBEDDING_MODEL", LLM_DEFAULTS.embeddingModel);

  return {
    provider,
    apiKey,
    baseUrl,
    reflectorModel: model("ACE_REFLECTOR_MODEL", LLM_DEFAULTS.reflectorModel),
    curatorModel: model("ACE_CURATOR_MODEL", LLM_DEFAULTS.curatorModel),
    embeddingModel,
    timeoutMs: integerVariable(env, "ACE_LLM_TIMEOUT_MS", 1, 3_600_000, "milliseconds", LLM_DEFAULTS.timeoutMs),
    maxRetries: integerVariable(env, "ACE_LLM_MAX_RETRIES", 0, 10, "retries", LLM_DEFAULTS.maxRetries),
    prices: { ...DEFAULT_PRICES, ...pricesFromEnv(env) },
  };
}

function pricesFromEnv(env: Env): PriceTable {
  const raw = present(env, "ACE_LLM_PRICES");
  if (raw === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new LlmConfigError(
      `ACE_LLM_PRICES is not valid JSON (${(error as Error).message}). ` +
        'Write it as {"model-name": {"input": 0.4, "output": 1.6}} in USD per 1M tokens.',
    );
  }
  return read(
    "ACE_LLM_PRICES",
    json,
    priceTableSchema,
    'Write it as {"model-name": {"input": 0.4, "output": 1.6}} in USD per 1M tokens.',
  );
}
