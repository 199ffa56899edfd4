// The server's JavaScript heap against the caches' bounds. `npm start` gives the server a 1 GiB
// heap (--max-old-space-size in NODE_OPTIONS; a later flag of the user's own wins): with V8's
// default limit, a quarter of the machine's memory up to 4 GiB, the heap grew by 400 MB of garbage
// under 100 agents before V8 collected it (BENCHMARKS.md). The caches must fit in the heap with room
// to work beside them, or the server would stop with "JavaScript heap out of memory" once they fill.
import { getHeapStatistics } from "node:v8";
import { MB } from "./env";

/** What a server needs beside its caches (Next.js, requests in flight, a 10k-bullet export). */
export const WORKING_HEAP_BYTES = 256 * MB;

/** Why the caches may not fit in the heap, and what to change; null when they fit. */
export function cacheHeapWarning(
  cacheBytes: { embeddings: number; playbookStates: number },
  heapLimitBytes = getHeapStatistics().heap_size_limit,
): string | null {
  const caches = cacheBytes.embeddings + cacheBytes.playbookStates;
  if (caches + WORKING_HEAP_BYTES <= heapLimitBytes) return null;
  const mb = (bytes: number) => Math.ceil(bytes / MB);
  return (
    `the caches may hold ${mb(caches)} MB (ACE_PLAYBOOK_CACHE_MB ${mb(cacheBytes.playbookStates)} + ` +
    `ACE_EMBEDDING_CACHE_MB ${mb(cacheBytes.embeddings)}) of a ${mb(heapLimitBytes)} MB JavaScript heap, which leaves less than ` +
    `the ${mb(WORKING_HEAP_BYTES)} MB the server needs beside them: the server may run out of memory once they fill. Start it with ` +
    `NODE_OPTIONS=--max-old-space-size=${mb(caches + WORKING_HEAP_BYTES)} (or more), or lower the caches.`
  );
}
