// When this process last served a request. The job worker reads it to give way: while agents and
// people are being answered, reflector and curator runs start at a bounded rate instead of taking
// the event loop (and, on PGlite, the database) from them. Kept on globalThis because Next.js may
// load route handlers and the worker's start-up code as separate module instances.
import { performance } from "node:perf_hooks";

interface Activity {
  inFlight: number;
  /** performance.now() of the last request's start or end. */
  lastAt: number;
}

const KEY = Symbol.for("ace-studio.request-activity");

function activity(): Activity {
  const holder = globalThis as typeof globalThis & { [KEY]?: Activity };
  holder[KEY] ??= { inFlight: 0, lastAt: Number.NEGATIVE_INFINITY };
  return holder[KEY];
}

/** Runs `serve` counted as a request in flight. */
export async function servingRequest<T>(serve: () => Promise<T>): Promise<T> {
  const state = activity();
  state.inFlight += 1;
  state.lastAt = performance.now();
  try {
    return await serve();
  } finally {
    state.inFlight -= 1;
    state.lastAt = performance.now();
  }
}

/** True while a request is in flight, or one ended less than `withinMs` ago. */
export function recentlyServing(withinMs: number): boolean {
  const state = activity();
  return state.inFlight > 0 || performance.now() - state.lastAt < withinMs;
}
