// Stops calling an LLM provider that keeps failing, so a queue of curation runs fails fast with a
// clear reason instead of each run waiting out its retries. Opens after N consecutive failed
// calls, stays open for a cooldown (doubling on each re-open up to a cap), then lets one probe
// call through (half-open): success closes it, failure re-opens it.
// State is plain JSON so the caller can persist it (an AppSetting row) and show it in the UI.
import { z } from "zod";

export type BreakerStatus = "closed" | "open" | "half-open";

export const breakerStateSchema = z.object({
  state: z.enum(["closed", "open", "half-open"]),
  consecutiveFailures: z.number().int().nonnegative(),
  /** Epoch milliseconds of the latest opening; null while it has never opened since the last close. */
  openedAt: z.number().nullable(),
  /** When the next call may probe; null unless open. */
  reopensAt: z.number().nullable(),
  /** Cooldown of the latest opening; the next re-open doubles it. */
  cooldownMs: z.number().nonnegative(),
  lastError: z.string().nullable(),
  lastFailureAt: z.number().nullable(),
});
export type BreakerState = z.infer<typeof breakerStateSchema>;

export interface BreakerStore {
  /** What save() stored, as read back: the breaker checks it (null or anything invalid: closed). */
  load(): Promise<unknown>;
  save(state: BreakerState): Promise<void>;
}

export interface CircuitBreakerOptions {
  /** Consecutive failed calls that open the circuit. Default 5. */
  failureThreshold?: number;
  /** First cooldown. Default 60 s. */
  cooldownMs?: number;
  /** Cap for the doubling cooldown. Default 15 min. */
  maxCooldownMs?: number;
  now?: () => number;
  store?: BreakerStore;
  /** Persisting is best effort: a store that fails must not fail the LLM call. Default: console.warn. */
  onStoreError?: (error: unknown) => void;
}

export type BreakerPermit = { allowed: true; probe: boolean } | { allowed: false; state: BreakerState; retryAfterMs: number };

export const BREAKER_DEFAULTS = { failureThreshold: 5, cooldownMs: 60_000, maxCooldownMs: 15 * 60_000 } as const;

/** Longest error text kept: enough to read, small enough for a settings row. */
const MAX_ERROR_LENGTH = 500;

export class CircuitBreaker {
  readonly failureThreshold: number;
  readonly baseCooldownMs: number;
  readonly maxCooldownMs: number;
  private readonly now: () => number;
  private readonly store: BreakerStore | undefined;
  private readonly onStoreError: (error: unknown) => void;
  private current: BreakerState;
  private loading: Promise<void> | null = null;
  /** Process-local: a persisted half-open state after a crash must not wait for a probe that is gone. */
  private probeInFlight = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.failureThreshold = Math.max(1, options.failureThreshold ?? BREAKER_DEFAULTS.failureThreshold);
    this.baseCooldownMs = options.cooldownMs ?? BREAKER_DEFAULTS.cooldownMs;
    this.maxCooldownMs = Math.max(this.baseCooldownMs, options.maxCooldownMs ?? BREAKER_DEFAULTS.maxCooldownMs);
    this.now = options.now ?? Date.now;
    this.store = options.store;
    this.onStoreError = options.onStoreError ?? ((error) => console.warn("Could not persist the LLM circuit breaker state:", error));
    this.current = closedState(this.baseCooldownMs);
  }

  /**
   * The state as the UI should show it: an open circuit whose cooldown has passed reads
   * "half-open", since the next call will be the probe.
   */
  async snapshot(): Promise<BreakerState> {
    await this.ensureLoaded();
    const state = { ...this.current };
    if (state.state === "open" && state.reopensAt !== null && this.now() >= state.reopensAt) state.state = "half-open";
    return state;
  }

  /** Asks to make a call. Every allowed call must end in recordSuccess, recordFailure or release. */
  async acquire(): Promise<BreakerPermit> {
    await this.ensureLoaded();
    const s = this.current;
    if (s.state === "closed") return { allowed: true, probe: false };
    const now = this.now();
    const due = s.state === "half-open" || (s.reopensAt !== null && now >= s.reopensAt);
    if (due && !this.probeInFlight) {
      this.probeInFlight = true;
      if (s.state !== "half-open") await this.update({ ...s, state: "half-open" });
      return { allowed: true, probe: true };
    }
    const retryAfterMs = s.state === "open" && s.reopensAt !== null ? Math.max(0, s.reopensAt - now) : 0;
    return { allowed: false, state: { ...s }, retryAfterMs };
  }

  /** The provider answered (even with an answer that did not parse): it is reachable. */
  async recordSuccess(): Promise<void> {
    await this.ensureLoaded();
    this.probeInFlight = false;
    const s = this.current;
    if (s.state === "closed" && s.consecutiveFailures === 0) return; // the common case writes nothing
    await this.update({ ...closedState(this.baseCooldownMs), lastError: s.lastError, lastFailureAt: s.lastFailureAt });
  }

  /** A call failed in a way that says the provider is unwell (rate limit, 5xx, timeout, connection). */
  async recordFailure(error: string): Promise<void> {
    await this.ensureLoaded();
    const s = this.current;
    const now = this.now();
    const lastError = error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH - 1)}…` : error;
    const failed = { ...s, consecutiveFailures: s.consecutiveFailures + 1, lastError, lastFailureAt: now };
    if (s.state === "half-open") {
      this.probeInFlight = false;
      const cooldownMs = Math.min(this.maxCooldownMs, s.cooldownMs * 2);
      await this.update({ ...failed, state: "open", openedAt: now, reopensAt: now + cooldownMs, cooldownMs });
    } else if (s.state === "closed" && failed.consecutiveFailures >= this.failureThreshold) {
      const cooldownMs = this.baseCooldownMs;
      await this.update({ ...failed, state: "open", openedAt: now, reopensAt: now + cooldownMs, cooldownMs });
    } else {
      // Closed below the threshold, or a call that started before the circuit opened.
      await this.update(failed);
    }
  }

  /** The call ended without telling anything about the provider (the caller aborted it). */
  release(permit: BreakerPermit): void {
    if (permit.allowed && permit.probe) this.probeInFlight = false;
  }

  /** Closes the circuit by hand (a "resume calls" button). */
  async reset(): Promise<void> {
    await this.ensureLoaded();
    this.probeInFlight = false;
    await this.update(closedState(this.baseCooldownMs));
  }

  private async update(next: BreakerState): Promise<void> {
    this.current = next;
    try {
      await this.store?.save({ ...next });
    } catch (error) {
      this.onStoreError(error);
    }
  }

  private ensureLoaded(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const stored = await this.store?.load();
        // A row written by an older version or edited by hand must not wedge the breaker.
        const parsed = breakerStateSchema.safeParse(stored);
        if (parsed.success) this.current = parsed.data;
      } catch (error) {
        this.onStoreError(error);
      }
    })();
    return this.loading;
  }
}

function closedState(cooldownMs: number): BreakerState {
  return {
    state: "closed",
    consecutiveFailures: 0,
    openedAt: null,
    reopensAt: null,
    cooldownMs,
    lastError: null,
    lastFailureAt: null,
  };
}
