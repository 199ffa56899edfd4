// Closed-loop HTTP load: `concurrency` clients, each sending its next request as soon as the last
// answer has been read, over kept-alive connections (as agents with an HTTP client do). Each
// request's time runs from the call until the whole body has arrived.
import http from "node:http";
import { performance } from "node:perf_hooks";

export interface LoadPlan {
  concurrency: number;
  /** Requests sent and not timed first (connections, JIT, caches). */
  warmup: number;
  /** Timed requests. */
  requests: number;
}

export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  /** Milliseconds of each timed request, in completion order. */
  latencies: number[];
  /** Wall time from the first timed request sent to the last answered. */
  elapsedMs: number;
  /** The most requests in flight at once. */
  peakInFlight: number;
}

/**
 * Sends `plan.warmup` then `plan.requests` requests made by `request(index)`; `check` sees every
 * answer and throws on a wrong one (which stops the run). Rejects on a connection error or timeout.
 */
export async function closedLoop(
  origin: string,
  plan: LoadPlan,
  request: (index: number) => LoadRequest,
  check: (status: number, body: string, index: number) => void,
  timeoutMs = 30_000,
): Promise<LoadResult> {
  const url = new URL(origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: plan.concurrency });
  let inFlight = 0;
  let peakInFlight = 0;
  const send = (index: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const spec = request(index);
      const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
      const headers: Record<string, string | number> = { ...spec.headers };
      if (body) headers["content-length"] = body.length;
      inFlight += 1;
      peakInFlight = Math.max(peakInFlight, inFlight);
      const start = performance.now();
      const call = http.request(
        { host: url.hostname, port: url.port, method: spec.method, path: spec.path, headers, agent, timeout: timeoutMs },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => {
            const ms = performance.now() - start;
            inFlight -= 1;
            try {
              check(response.statusCode ?? 0, Buffer.concat(chunks).toString("utf8"), index);
              resolve(ms);
            } catch (error) {
              reject(error as Error);
            }
          });
          response.on("error", reject);
        },
      );
      call.on("timeout", () => call.destroy(new Error(`${spec.method} ${spec.path} took longer than ${timeoutMs} ms`)));
      call.on("error", reject);
      call.end(body);
    });

  /** `count` requests from index `first`, spread over the clients. */
  const run = async (first: number, count: number, latencies: number[] | null) => {
    let next = first;
    const client = async () => {
      while (next < first + count) {
        const ms = await send(next++);
        latencies?.push(ms);
      }
    };
    await Promise.all(Array.from({ length: Math.min(plan.concurrency, count) }, client));
  };
  try {
    await run(0, plan.warmup, null);
    peakInFlight = 0;
    const latencies: number[] = [];
    const start = performance.now();
    await run(plan.warmup, plan.requests, latencies);
    return { latencies, elapsedMs: performance.now() - start, peakInFlight };
  } finally {
    agent.destroy();
  }
}
