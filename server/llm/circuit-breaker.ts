// Stops calling an LLM provider that keeps failing, so a queue of curation runs fails fast with a
// clear reason instead of each run waiting out its retries. Opens after N consecutive failed
// calls, stays open for a cooldown (doubling on each re-open up to a cap), then lets one probe
// call through (half-open): success closes it, failure re-opens it.
// State is plain JSON so the caller can persist it (an AppSetting row) and show it in the UI. With a
// store that can update atomically, breakers in several processes (app instances on one database)
// share one state: failures add up across them, one probe goes out at a time, and each sees another's
// opening within syncMs.
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
  /** Half-open: the probe under way holds the slot until then (a process that died mid-probe frees it). */
  probeUntil: z.number().optional(),
});
export type BreakerState = z.infer<typeof breakerStateSchema>;

export interface BreakerStore {
  /** What save() stored, as read back: the breaker checks it (null or anything invalid: closed). */
  load(): Promise<unknown>;
  save(state: BreakerState): Promise<void>;
  /**
   * Optional: reads the stored state, and writes what `change` makes of it (null: nothing), as one
   * atomic step (a row lock, a transaction), returning the state stored afterwards. With it, breakers
   * of several processes share one state exactly.
   */
  update?(change: (stored: unknown) => BreakerState | null): Promise<unknown>;
}

export interface CircuitBreakerOptions {
  /** Consecutive failed calls that open the circuit. Default 5. */
  failureThreshold?: number;
  /** First cooldown. Default 60 s. */
  cooldownMs?: number;
  /** Cap for the doubling cooldown. Default 15 min. */
  maxCooldownMs?: number;
  /**
   * How old this process's copy of the stored state may be when a call asks (default 1 s): the
   * longest another process's opening goes unseen here. Transitions always read the stored state.
   */
  syncMs?: number;
  /** How long a probe holds the half-open slot against other processes (default 5 min). */
  probeTimeoutMs?: number;
  now?: () => number;
  store?: BreakerStore;
  /** Persisting is best effort: a store that fails must not fail the LLM call. Default: console.warn. */
  onStoreError?: (error: unknown) => void;
}

export type BreakerPermit = { allowed: true; probe: boolean } | { allowed: false; state: BreakerState; retryAfterMs: number };

export const BREAKER_DEFAULTS = {
  failureThreshold: 5,
  cooldownMs: 60_000,
  maxCooldownMs: 15 * 60_000,
  syncMs: 1_000,
  probeTimeoutMs: 5 * 60_000,
} as const;

/** Longest error text kept: enough to read, small enough for a settings row. */
const MAX_ERROR_LENGTH = 500;

/** One transition: from the current state and time, the state to store (null: none) and the caller's answer. */
type Step<T> = (state: BreakerState, now: number) => { next: BreakerState | null; result: T };

export class CircuitBreaker {
  readonly failureThreshold: number;
  readonly baseCooldownMs: number;
  readonly maxCooldownMs: number;
  private readonly syncMs: number;
  private readonly probeTimeoutMs: number;
  private readonly now: () => number;
  private readonly store: BreakerStore | undefined;
  private readonly onStoreError: (error: unknown) => void;
  private current: BreakerState;
  /** When `current` was last read from or written to the store (by this.now()); never: -Infinity. */
  private syncedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | null = null;
  /** Transitions of this process, one after another, so a release is stored before the next acquire reads. */
  private chain: Promise<unknown> = Promise.resolve();
  /** Process-local: a persisted half-open state after a crash must not wait for a probe that is gone. */
  private probeInFlight = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.failureThreshold = Math.max(1, options.failureThreshold ?? BREAKER_DEFAULTS.failureThreshold);
    this.baseCooldownMs = options.cooldownMs ?? BREAKER_DEFAULTS.cooldownMs;
    this.maxCooldownMs = Math.max(this.baseCooldownMs, options.maxCooldownMs ?? BREAKER_DEFAULTS.maxCooldownMs);
    this.syncMs = options.syncMs ?? BREAKER_DEFAULTS.syncMs;
    this.probeTimeoutMs = options.probeTimeoutMs ?? BREAKER_DEFAULTS.probeTimeoutMs;
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
    await this.sync();
    const { probeUntil: _probe, ...state } = this.current;
    if (state.state === "open" && state.reopensAt !== null && this.now() >= state.reopensAt) state.state = "half-open";
    return state;
  }

  /** Asks to make a call. Every allowed call must end in recordSuccess, recordFailure or release. */
  async acquire(): Promise<BreakerPermit> {
    await this.sync();
    if (this.current.state === "closed") return { allowed: true, probe: false }; // the common case reads nothing
    const permit = await this.transition<BreakerPermit>((s, now) => {
      if (s.state === "closed") return { next: null, result: { allowed: true, probe: false } };
      const probing = s.state === "half-open" && s.probeUntil !== undefined && s.probeUntil > now;
      const due = s.state === "half-open" ? !probing : s.reopensAt !== null && now >= s.reopensAt;
      if (due && !this.probeInFlight) {
        return { next: { ...s, state: "half-open", probeUntil: now + this.probeTimeoutMs }, result: { allowed: true, probe: true } };
      }
      const retryAfterMs = s.state === "open" && s.reopensAt !== null ? Math.max(0, s.reopensAt - now) : 0;
      const { probeUntil: _probe, ...shown } = s;
      return { next: null, result: { allowed: false, state: shown, retryAfterMs } };
    });
    if (permit.allowed && permit.probe) this.probeInFlight = true;
    return permit;
  }

  /** The provider answered (even with an answer that did not parse): it is reachable. */
  async recordSuccess(): Promise<void> {
    await this.sync();
    this.probeInFlight = false;
    const s = this.current;
    if (s.state === "closed" && s.consecutiveFailures === 0) return; // the common case writes nothing
    await this.transition((stored) => ({
      next:
        stored.state === "closed" && stored.consecutiveFailures === 0
          ? null
          : { ...closedState(this.baseCooldownMs), lastError: stored.lastError, lastFailureAt: stored.lastFailureAt },
      result: undefined,
    }));
  }

  /** A call failed in a way that says the provider is unwell (rate limit, 5xx, timeout, connection). */
  async recordFailure(error: string): Promise<void> {
    const lastError = error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH - 1)}…` : error;
    this.probeInFlight = false;
    await this.transition((s, now) => {
      const { probeUntil: _probe, ...rest } = s;
      const failed = { ...rest, consecutiveFailures: s.consecutiveFailures + 1, lastError, lastFailureAt: now };
      if (s.state === "half-open") {
        const cooldownMs = Math.min(this.maxCooldownMs, s.cooldownMs * 2);
        return { next: { ...failed, state: "open", openedAt: now, reopensAt: now + cooldownMs, cooldownMs }, result: undefined };
      }
      if (s.state === "closed" && failed.consecutiveFailures >= this.failureThreshold) {
        const cooldownMs = this.baseCooldownMs;
        return { next: { ...failed, state: "open", openedAt: now, reopensAt: now + cooldownMs, cooldownMs }, result: undefined };
      }
      // Closed below the threshold, or a call that started before the circuit opened.
      return { next: failed, result: undefined };
    });
  }

  /** The call ended without telling anything about the provider (the caller aborted it). */
  release(permit: BreakerPermit): void {
    if (!(permit.allowed && permit.probe)) return;
    this.probeInFlight = false;
    void this.transition((s) => {
      if (s.state !== "half-open" || s.probeUntil === undefined) return { next: null, result: undefined };
      const { probeUntil: _probe, ...freed } = s;
      return { next: freed, result: undefined };
    });
  }

  /** Closes the circuit by hand (a "resume calls" button). */
  async reset(): Promise<void> {
    this.probeInFlight = false;
    await this.transition(() => ({ next: closedState(this.baseCooldownMs), result: undefined }));
  }

  /** Runs a transition after this process's earlier ones. */
  private transition<T>(step: Step<T>): Promise<T> {
    const run = this.chain.then(() => this.apply(step));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Atomically on the stored state when the store can, else on this process's copy, then saved. */
  private async apply<T>(step: Step<T>): Promise<T> {
    const now = this.now();
    if (this.store?.update) {
      try {
        let result: { value: T } | undefined;
        const stored = await this.store.update((raw) => {
          const out = step(parseState(raw) ?? closedState(this.baseCooldownMs), now);
          result = { value: out.result };
          return out.next === null ? null : { ...out.next };
        });
        this.current = parseState(stored) ?? closedState(this.baseCooldownMs);
        this.syncedAt = now;
        if (result) return result.value;
      } catch (error) {
        this.onStoreError(error);
      }
    }
    await this.sync();
    const out = step(this.current, now);
    if (out.next) {
      this.current = out.next;
      try {
        await this.store?.save({ ...out.next });
      } catch (error) {
        this.onStoreError(error);
      }
    }
    return out.result;
  }

  /** Reads the stored state when this process's copy is older than syncMs (at first use: always). */
  private sync(): Promise<void> {
    if (!this.store || this.now() - this.syncedAt < this.syncMs) return this.loading ?? Promise.resolve();
    this.loading ??= (async () => {
      const at = this.now();
      try {
        // A row written by an older version or edited by hand must not wedge the breaker.
        const stored = parseState(await this.store?.load());
        if (stored) this.current = stored;
      } catch (error) {
        this.onStoreError(error);
      } finally {
        this.syncedAt = at;
        this.loading = null;
      }
    })();
    return this.loading;
  }
}

function parseState(raw: unknown): BreakerState | null {
  const parsed = breakerStateSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
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
