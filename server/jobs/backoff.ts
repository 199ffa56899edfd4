// How long a failed attempt waits before the next: exponential, jittered, capped. Pure. The one
// formula for jobs (server/jobs/worker.ts) and for retried LLM calls (server/llm/openai-provider.ts).

export type BackoffOptions = {
  /** Delay after the first failed attempt (default 2 s); doubles with every further attempt. */
  baseMs?: number;
  /** Upper bound of any delay (default 10 min). */
  maxMs?: number;
  /** Spread around the exponential value, as a fraction (default 0.2 = ±20 %). */
  jitter?: number;
};

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { baseMs: 2_000, maxMs: 10 * 60_000, jitter: 0.2 };

/**
 * The wait after attempt number `attempts` (1 = the first try) failed: base × 2^(attempts−1),
 * spread by ±jitter so attempts that failed together (a provider outage) do not return together,
 * and never more than maxMs.
 */
export function backoffDelay(attempts: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const { baseMs, maxMs, jitter } = { ...DEFAULT_BACKOFF, ...options };
  const exponent = Math.max(0, Math.floor(attempts) - 1);
  // 2^exponent overflows to Infinity for absurd attempt counts; the cap below handles it.
  const exponential = Math.min(baseMs * 2 ** exponent, maxMs);
  const spread = 1 + jitter * (2 * random() - 1);
  return Math.max(0, Math.round(Math.min(maxMs, exponential * spread)));
}
