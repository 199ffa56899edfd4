// Which provider serves the runs: the offline rules (default without a key) or an OpenAI-compatible
// endpoint through the SDK, with a circuit breaker whose state lives in the database so the UI can
// show it, a restart does not forget it, and several app instances share it.
import type { Db } from "@/server/db/client";
import { CircuitBreaker, type BreakerStore } from "@/server/llm/circuit-breaker";
import { getEnv } from "@/server/config/env";
import type { LlmConfig } from "@/server/llm/config";
import { createOpenAiProvider, type OpenAiProviderOptions } from "@/server/llm/openai-provider";
import { estimateCostUsd } from "@/server/llm/prices";
import type { LlmProvider } from "@/server/llm/types";
import * as repo from "./repository";
import type { CircuitView, RunRole } from "./schemas";

const BREAKER_KEY = "llm.circuit";

interface ProviderBase {
  /** Shown with every run and as the author of its delta: "offline", "openai gpt-4.1-mini". */
  label: string;
  modelFor(role: RunRole): string;
  /** Epoch ms until which the circuit is open and no call may be made; null when calls may go. */
  circuitOpenUntil(): Promise<number | null>;
  circuit(): Promise<CircuitView>;
  describe(): { name: "offline" | "openai"; reflectorModel: string; curatorModel: string; baseUrl: string | null };
}

export type RunProvider =
  | (ProviderBase & { name: "offline" })
  | (ProviderBase & {
      name: "openai";
      llm: LlmProvider;
      costOf(model: string, inputTokens: number, outputTokens: number): number | null;
    });

const CLOSED: CircuitView = { state: "closed", consecutiveFailures: 0, lastError: null, reopensAt: null };

export function offlineProvider(): RunProvider {
  return {
    name: "offline",
    label: "offline",
    modelFor: () => "rules",
    circuitOpenUntil: async () => null,
    circuit: async () => CLOSED,
    describe: () => ({ name: "offline", reflectorModel: "rules", curatorModel: "rules", baseUrl: null }),
  };
}

/** The breaker's state in one row that every app instance on the database reads and updates atomically. */
export function breakerStore(db: Db): BreakerStore {
  return {
    load: () => repo.readAppSetting(db, BREAKER_KEY),
    async save(state) {
      await repo.writeAppSetting(db, BREAKER_KEY, state);
    },
    update: (change) => repo.updateAppSetting(db, BREAKER_KEY, change),
  };
}

export function openAiRunProvider(
  db: Db,
  config: LlmConfig,
  options: { breaker?: CircuitBreaker; sdk?: Omit<OpenAiProviderOptions, "breaker"> } = {},
): RunProvider {
  const breaker = options.breaker ?? new CircuitBreaker({ store: breakerStore(db) });
  const llm = createOpenAiProvider(config, { ...options.sdk, breaker });
  return {
    name: "openai",
    label: `openai ${config.reflectorModel === config.curatorModel ? config.reflectorModel : `${config.reflectorModel}/${config.curatorModel}`}`,
    llm,
    modelFor: (role) => llm.modelFor(role),
    costOf: (model, inputTokens, outputTokens) => estimateCostUsd(model, inputTokens, outputTokens, config.prices),
    async circuitOpenUntil() {
      const state = await breaker.snapshot();
      return state.state === "open" && state.reopensAt !== null ? state.reopensAt : null;
    },
    async circuit() {
      const state = await breaker.snapshot();
      return {
        state: state.state === "half-open" ? "half_open" : state.state,
        consecutiveFailures: state.consecutiveFailures,
        lastError: state.lastError,
        reopensAt: state.state === "open" && state.reopensAt !== null ? new Date(state.reopensAt) : null,
      };
    },
    describe: () => ({
      name: "openai",
      reflectorModel: config.reflectorModel,
      curatorModel: config.curatorModel,
      baseUrl: config.baseUrl,
    }),
  };
}

const providers = new WeakMap<Db, RunProvider>();

/** The provider the environment configures, one per database (and so one breaker per process). */
export function runProviderFor(db: Db): RunProvider {
  let provider = providers.get(db);
  if (!provider) {
    const config = getEnv().llm;
    provider = config.provider === "offline" ? offlineProvider() : openAiRunProvider(db, config);
    providers.set(db, provider);
  }
  return provider;
}

/** Tests and the bench run against their own provider (the mock server, a test clock). */
export function useRunProvider(db: Db, provider: RunProvider): void {
  providers.set(db, provider);
}
