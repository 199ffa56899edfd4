// What happens when traces arrive: the runs domain queues their reflections (and, through them,
// the next curation). Kept as its own module so the traces domain depends on one function.
import type { Db, Tx } from "@/server/db/client";
import { wakeWorkers } from "@/server/jobs/queue";
import { scheduleReflections, type StoredTraces } from "./service";

/**
 * Called inside the transaction that stores the traces, so they and their reflector runs commit
 * together. Returns what to do once that transaction has committed (wake this process's workers),
 * or nothing when no run was queued.
 */
export async function onTracesStored(db: Db, tx: Tx, batches: StoredTraces[]): Promise<(() => void) | undefined> {
  const queued = await scheduleReflections(db, tx, batches);
  return queued > 0 ? wakeWorkers : undefined;
}
