// Timing: warm-up runs first (JIT, caches, connection pools), then timed runs one after another.
import { performance } from "node:perf_hooks";

export interface RunPlan {
  warmup: number;
  runs: number;
}

/** Rejects when the work takes longer than `ms`, so a hung query cannot stall the whole report. */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${Math.round(ms / 1000)} s; gave up.`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Milliseconds one call of `work` takes. */
export async function timeOnce(work: () => Promise<unknown>, timeoutMs: number, what: string): Promise<number> {
  const start = performance.now();
  await withTimeout(work(), timeoutMs, what);
  return performance.now() - start;
}

/** `plan.warmup` untimed calls, then `plan.runs` timed ones; `work` gets the index of the call. */
export function measure(work: (call: number) => Promise<unknown>, plan: RunPlan, timeoutMs: number, what: string): Promise<number[]> {
  return measurePrepared(async (call) => call, work, plan, timeoutMs, what);
}

/** As measure, with an untimed `prepare` before every call (say, proposing the delta an approval times). */
export async function measurePrepared<T>(
  prepare: (call: number) => Promise<T>,
  work: (prepared: T) => Promise<unknown>,
  plan: RunPlan,
  timeoutMs: number,
  what: string,
): Promise<number[]> {
  let call = 0;
  for (let i = 0; i < plan.warmup; i++) {
    const prepared = await withTimeout(prepare(call++), timeoutMs, what);
    await withTimeout(work(prepared), timeoutMs, what);
  }
  const samples: number[] = [];
  for (let i = 0; i < plan.runs; i++) {
    const prepared = await withTimeout(prepare(call++), timeoutMs, what);
    samples.push(await timeOnce(() => work(prepared), timeoutMs, what));
  }
  return samples;
}
