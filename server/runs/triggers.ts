// What happens after traces arrive: the runs domain queues their reflections (and, through them,
// the next curation). Kept as its own module so the traces domain depends on one function.
import type { Db } from "@/server/db/client";
import { scheduleReflections, type StoredTraces } from "./service";

/** Tries per playbook when its queueing transaction timed out. */
const ATTEMPTS = 5;
const FIRST_PAUSE_MS = 200;

/**
 * Prisma's P2028: the transaction could not start in time (every connection busy in a burst of
 * agents) or ran out of time and was rolled back. Queueing again is safe either way: it skips the
 * traces that already have a reflector run (enqueueReflections).
 */
function transactionTimedOut(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "P2028";
}

export async function afterTracesIngested(db: Db, batches: StoredTraces[]): Promise<void> {
  let failure: unknown = null;
  // Per playbook: each is queued in its own transaction, so one that fails is retried alone.
  for (const batch of batches) {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await scheduleReflections(db, [batch]);
        break;
      } catch (error) {
        if (attempt >= ATTEMPTS || !transactionTimedOut(error)) {
          failure ??= error;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, FIRST_PAUSE_MS * 2 ** (attempt - 1)));
      }
    }
  }
  if (failure !== null) throw failure;
}
