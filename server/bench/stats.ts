// Nearest-rank percentiles: every reported figure is a time that was actually measured, never an
// interpolation between two runs. (simple-statistics is not installed; this is all we need of it.)

export interface Summary {
  runs: number;
  p50: number;
  p95: number;
  max: number;
}

/** The smallest sample with at least p % of the samples at or below it; p in (0, 100]. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new RangeError("A percentile needs at least one sample.");
  if (!(p > 0 && p <= 100)) throw new RangeError(`A percentile lies in (0, 100], got ${p}.`);
  if (samples.some((sample) => Number.isNaN(sample))) throw new RangeError("Samples must be numbers, got NaN.");
  const sorted = [...samples].sort((a, b) => a - b);
  // p * n / 100 rather than p / 100 * n: 95 * 20 / 100 is exactly 19, 0.95 * 20 is not.
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100));
  return sorted[rank - 1] as number;
}

export function summarize(samples: readonly number[]): Summary {
  return {
    runs: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    max: percentile(samples, 100),
  };
}
