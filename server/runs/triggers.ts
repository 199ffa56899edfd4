// What happens after traces arrive: the runs domain queues their reflections (and, through them,
// the next curation). Kept as its own module so the traces domain depends on one function.
import type { Db } from "@/server/db/client";
import { scheduleReflections } from "./service";

export async function afterTracesIngested(db: Db, batches: { playbookId: string; traceIds: string[] }[]): Promise<void> {
  await scheduleReflections(db, batches);
}
