// Every environment variable the app and the CLI read, read here and nowhere else, checked with zod.
// A bad value stops the start with the variable's name, what it accepts and what it got (README,
// "Configuration", and .env.example list them). getEnv() reads process.env once; loadEnv(source)
// reads any record, so tests pass their own settings instead of changing process.env.
import { resolve } from "node:path";
import { z } from "zod";
import { LLM_DEFAULTS, type LlmConfig, type LlmProviderKind } from "@/server/llm/config";
import { DEFAULT_PRICES, type PriceTable } from "@/server/llm/prices";

export type EnvSource = Readonly<Record<string, string | undefined>>;

export type DatabaseConfig =
  | { kind: "postgres"; url: string }
  /** dataDir ":memory:" means an in-memory PGlite (tests); otherwise files live in <dataDir>/pglite. */
  | { kind: "pglite"; dataDir: string };

export const MEMORY_DATA_DIR = ":memory:";

const DEMO_SEED_SETTINGS = ["auto", "always", "off"] as const;
export type DemoSeedSetting = (typeof DEMO_SEED_SETTINGS)[number];

export interface AppEnv {
  /** DATABASE_URL, else the embedded database in DATA_DIR. */
  database: DatabaseConfig;
  /** PORT: where `npm start` serves; the embedded database's lock names it so the CLI can find the server. */
  port: number;
  /** ACE_DEMO_SEED. */
  demoSeed: DemoSeedSetting;
  llm: LlmConfig;
  /** ACE_RUN_CONCURRENCY: reflector and curator runs at once in the web server; 0 turns the worker off. */
  runConcurrency: number;
  /**
   * ACE_RUNS_PER_S_WHILE_SERVING: runs started per second while the server is answering requests
   * (server/http/activity.ts), so background work gives way to agents and people; 0: no limit.
   */
  runsPerSecondWhileServing: number;
  /**
   * ACE_CONTEXT_COUNTER_REFRESH_S, in milliseconds: how long versions that change only counters wait
   * before agents' compiled context serves them (server/context/publication.ts); 0 serves each at once.
   */
  contextCounterRefreshMs: number;
  /** Bounds of the in-memory caches, in bytes. */
  cacheBytes: {
    /** ACE_EMBEDDING_CACHE_MB: the provider's embeddings of bullet texts, kept so only new texts are embedded. */
    embeddings: number;
    /** ACE_PLAYBOOK_CACHE_MB: the delta engine's playbook states and their near-duplicate indexes, per database. */
    playbookStates: number;
  };
}

const ENV_DEFAULTS = {
  dataDir: ".data",
  port: 3000,
  demoSeed: "auto",
  runConcurrency: 2,
  runsPerSecondWhileServing: 2,
  contextCounterRefreshS: 60,
  embeddingCacheMb: 128,
  playbookCacheMb: 512,
} as const;

export class ConfigError extends Error {
  override name = "ConfigError";
}

// ---- What each variable accepts --------------------------------------------------------------
// Messages complete "<VARIABLE> …" and are followed by `, got "<value>"` and the variable's hint.
// The builders are exported for the other settings read the same way (server/auth/config.ts).

/** Bytes in a mebibyte: the cache settings are in MB. */
export const MB = 1024 * 1024;

export function wholeNumber(min: number, max: number, unit?: string) {
  const range = `a whole number${unit ? ` of ${unit}` : ""} from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d+$/, { error: `must be ${range}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `must be ${range}` })
        .max(max, { error: `must be ${range}` }),
    );
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const listed = values
    .map((value) => `"${value}"`)
    .join(", ")
    .replace(/, ([^,]*)$/, " or $1");
  return z
    .string()
    .toLowerCase()
    .pipe(z.enum(values, { error: `must be ${listed}` }));
}

const modelName = z
  .string()
  .regex(/^\S+$/, { error: "must be a model name without spaces" })
  .max(200, { error: "must be a model name of at most 200 characters" });

const postgresUrl = z.string().regex(/^postgres(ql)?:\/\//i, { error: "must be a PostgreSQL URL (postgres://… or postgresql://…)" });

const priceTable = z.record(
  z.string().min(1),
  z.strictObject(
    {
      input: z.number({ error: "needs input, a price in USD per 1M tokens" }).nonnegative({ error: "must not be negative" }),
      output: z.number({ error: "must be a price in USD per 1M tokens" }).nonnegative({ error: "must not be negative" }).default(0),
    },
    { error: 'must be {"input": USD, "output": USD} per 1M tokens' },
  ),
  { error: "must be a JSON object of model names" },
);

const jsonText = z.string().transform((text, ctx): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    ctx.addIssue({ code: "custom", message: `is not valid JSON (${(error as Error).message})`, input: text });
    return z.NEVER;
  }
});

/** A variable left unset, or blank (`FOO=` in a .env file), takes its default. */
export function setting<Out, Fallback>(schema: z.ZodType<Out, string>, fallback: Fallback) {
  return z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()))
    .pipe(schema.optional())
    .transform((value): Out | Fallback => (value === undefined ? fallback : value));
}

const variables = z.object({
  DATABASE_URL: setting(postgresUrl, null),
  DATA_DIR: setting(z.string(), ENV_DEFAULTS.dataDir),
  PORT: setting(wholeNumber(1, 65_535), ENV_DEFAULTS.port),
  ACE_DEMO_SEED: setting(oneOf(DEMO_SEED_SETTINGS), ENV_DEFAULTS.demoSeed),
  OPENAI_API_KEY: setting(z.string(), null),
  OPENAI_BASE_URL: setting(
    z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).transform((url) => url.replace(/\/+$/, "")),
    null,
  ),
  ACE_LLM_PROVIDER: setting(oneOf(["openai", "offline"]), null),
  ACE_REFLECTOR_MODEL: setting(modelName, LLM_DEFAULTS.reflectorModel),
  ACE_CURATOR_MODEL: setting(modelName, LLM_DEFAULTS.curatorModel),
  // Unlike the others, an empty ACE_EMBEDDING_MODEL means something: no embeddings.
  ACE_EMBEDDING_MODEL: z
    .string()
    .optional()
    .transform((value) => (value === undefined ? LLM_DEFAULTS.embeddingModel : value.trim() === "" ? null : value.trim()))
    .pipe(modelName.nullable()),
  ACE_LLM_TIMEOUT_MS: setting(wholeNumber(1, 3_600_000, "milliseconds"), LLM_DEFAULTS.timeoutMs),
  ACE_LLM_MAX_RETRIES: setting(wholeNumber(0, 10, "retries"), LLM_DEFAULTS.maxRetries),
  ACE_LLM_PRICES: setting(jsonText.pipe(priceTable), {} as PriceTable),
  ACE_RUN_CONCURRENCY: setting(wholeNumber(0, 64, "runs"), ENV_DEFAULTS.runConcurrency),
  ACE_RUNS_PER_S_WHILE_SERVING: setting(wholeNumber(0, 1_000, "runs a second"), ENV_DEFAULTS.runsPerSecondWhileServing),
  ACE_CONTEXT_COUNTER_REFRESH_S: setting(wholeNumber(0, 3_600, "seconds"), ENV_DEFAULTS.contextCounterRefreshS),
  ACE_EMBEDDING_CACHE_MB: setting(wholeNumber(1, 1_048_576, "megabytes"), ENV_DEFAULTS.embeddingCacheMb),
  ACE_PLAYBOOK_CACHE_MB: setting(wholeNumber(1, 1_048_576, "megabytes"), ENV_DEFAULTS.playbookCacheMb),
});

type VariableName = keyof typeof variables.shape;

/** How to put each variable right; said after what it accepts. */
const HINTS: Record<VariableName, string> = {
  DATABASE_URL: "Unset it to use the embedded database in DATA_DIR (default ./.data).",
  DATA_DIR: "Unset it to use ./.data.",
  PORT: `Unset it to use ${ENV_DEFAULTS.port}.`,
  ACE_DEMO_SEED: `Unset it to use "${ENV_DEFAULTS.demoSeed}".`,
  OPENAI_API_KEY: "",
  OPENAI_BASE_URL: "Use the server's OpenAI-compatible base URL, e.g. http://localhost:11434/v1 for Ollama.",
  ACE_LLM_PROVIDER: "Unset it to choose by whether OPENAI_API_KEY or OPENAI_BASE_URL is set.",
  ACE_REFLECTOR_MODEL: `Unset it to use ${LLM_DEFAULTS.reflectorModel}.`,
  ACE_CURATOR_MODEL: `Unset it to use ${LLM_DEFAULTS.curatorModel}.`,
  ACE_EMBEDDING_MODEL: `Unset it to use ${LLM_DEFAULTS.embeddingModel}, or set it empty to turn embeddings off.`,
  ACE_LLM_TIMEOUT_MS: `Unset it to use ${LLM_DEFAULTS.timeoutMs}.`,
  ACE_LLM_MAX_RETRIES: `Unset it to use ${LLM_DEFAULTS.maxRetries}.`,
  ACE_LLM_PRICES: 'Write it as {"model-name": {"input": 0.4, "output": 1.6}} in USD per 1M tokens.',
  ACE_RUN_CONCURRENCY: `Unset it to use ${ENV_DEFAULTS.runConcurrency}; 0 turns the background worker off.`,
  ACE_RUNS_PER_S_WHILE_SERVING: `Unset it to use ${ENV_DEFAULTS.runsPerSecondWhileServing}; 0 starts runs as fast as slots free up, even while requests wait.`,
  ACE_CONTEXT_COUNTER_REFRESH_S: `Unset it to use ${ENV_DEFAULTS.contextCounterRefreshS}; 0 serves every counter change at once.`,
  ACE_EMBEDDING_CACHE_MB: `Unset it to use ${ENV_DEFAULTS.embeddingCacheMb}.`,
  ACE_PLAYBOOK_CACHE_MB: `Unset it to use ${ENV_DEFAULTS.playbookCacheMb}.`,
};

/** A value as a message repeats it, shortened. */
export function quotedValue(raw: string): string {
  return JSON.stringify(raw.length > 120 ? `${raw.slice(0, 117)}...` : raw);
}

/** A database URL may hold a password: only its scheme is repeated. */
function shownValue(name: string, raw: string): string | null {
  if (name !== "DATABASE_URL") return quotedValue(raw);
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1];
  return scheme ? `a "${scheme}:" URL` : "something that is not a URL";
}

/**
 * `<VARIABLE> <what it accepts>, got <value>. <hint>` for one problem zod found; `shown` says how a
 * value is repeated, null for never (a secret).
 */
export function describeIssue(
  issue: z.core.$ZodIssue,
  source: EnvSource,
  hints: Readonly<Record<string, string>>,
  shown: (name: string, raw: string) => string | null,
): string {
  const [name, ...inside] = issue.path.map(String);
  if (name === undefined) return issue.message;
  const where = inside.length > 0 ? ` (at ${inside.join(".")})` : "";
  const raw = source[name];
  const value = raw === undefined ? null : shown(name, raw);
  const got = value === null ? "" : `, got ${value}`;
  const hint = hints[name] ?? "";
  return `${name}${where} ${issue.message}${got}.${hint ? ` ${hint}` : ""}`;
}

/** One error for every bad setting, so a person fixes them all at once. */
export function settingsError(problems: readonly string[]): ConfigError {
  return new ConfigError(
    problems.length === 1 ? problems[0]! : `${problems.length} settings are invalid:\n${problems.map((p) => `- ${p}`).join("\n")}`,
  );
}

// ---- Reading ---------------------------------------------------------------------------------

/** Reads and checks every variable of `source`; throws a ConfigError naming each bad one. */
export function loadEnv(source: EnvSource = process.env): AppEnv {
  const parsed = variables.safeParse(source);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => describeIssue(issue, source, HINTS, shownValue));
  if (parsed.success) {
    const v = parsed.data;
    if (v.ACE_LLM_PROVIDER === "openai" && !v.OPENAI_API_KEY && !v.OPENAI_BASE_URL) {
      problems.push(
        'ACE_LLM_PROVIDER is "openai" but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set. ' +
          "Set OPENAI_API_KEY for api.openai.com, OPENAI_BASE_URL for a local or compatible server, " +
          'or ACE_LLM_PROVIDER="offline".',
      );
    }
  }
  if (!parsed.success || problems.length > 0) throw settingsError(problems);
  const v = parsed.data;
  const provider: LlmProviderKind = v.ACE_LLM_PROVIDER ?? (v.OPENAI_API_KEY || v.OPENAI_BASE_URL ? "openai" : "offline");
  return deepFreeze({
    database: v.DATABASE_URL
      ? { kind: "postgres", url: v.DATABASE_URL }
      : { kind: "pglite", dataDir: v.DATA_DIR === MEMORY_DATA_DIR ? MEMORY_DATA_DIR : resolve(v.DATA_DIR) },
    port: v.PORT,
    demoSeed: v.ACE_DEMO_SEED,
    llm: {
      provider,
      apiKey: v.OPENAI_API_KEY,
      baseUrl: v.OPENAI_BASE_URL,
      reflectorModel: v.ACE_REFLECTOR_MODEL,
      curatorModel: v.ACE_CURATOR_MODEL,
      embeddingModel: v.ACE_EMBEDDING_MODEL,
      timeoutMs: v.ACE_LLM_TIMEOUT_MS,
      maxRetries: v.ACE_LLM_MAX_RETRIES,
      prices: { ...DEFAULT_PRICES, ...v.ACE_LLM_PRICES },
    },
    runConcurrency: v.ACE_RUN_CONCURRENCY,
    runsPerSecondWhileServing: v.ACE_RUNS_PER_S_WHILE_SERVING,
    contextCounterRefreshMs: v.ACE_CONTEXT_COUNTER_REFRESH_S * 1000,
    cacheBytes: { embeddings: v.ACE_EMBEDDING_CACHE_MB * MB, playbookStates: v.ACE_PLAYBOOK_CACHE_MB * MB },
  });
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (inner && typeof inner === "object" && !Object.isFrozen(inner)) deepFreeze(inner as object);
  return Object.freeze(value);
}

let current: AppEnv | undefined;

/** This process's settings, read from process.env on first use (the server reads them at start). */
export function getEnv(): AppEnv {
  current ??= loadEnv();
  return current;
}

/** Forgets what getEnv() read, so the next call reads process.env again (tests that change it). */
export function resetEnv(): void {
  current = undefined;
}
