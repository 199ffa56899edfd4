// The playbook a metrics request names, and when its history starts.
import type { DbOrTx } from "@/server/db/client";

export interface PlaybookRow {
  id: string;
  name: string;
  settings: unknown;
}

/** The playbook with one of these names, the first name preferred when both exist. */
export async function findPlaybookByNames(db: DbOrTx, names: string[]): Promise<PlaybookRow | null> {
  const rows = await db.playbook.findMany({ where: { name: { in: names } }, select: { id: true, name: true, settings: true } });
  for (const name of names) {
    const row = rows.find((candidate) => candidate.name === name);
    if (row) return row;
  }
  return null;
}

export function findPlaybookById(db: DbOrTx, playbookId: string): Promise<PlaybookRow | null> {
  return db.playbook.findUnique({ where: { id: playbookId }, select: { id: true, name: true, settings: true } });
}

/** The earlier of the playbook's first version and its first trace (one retention removed included). */
export async function earliestActivity(db: DbOrTx, playbookId: string): Promise<Date | null> {
  const [row] = await db.$queryRaw<{ earliest: Date | null }[]>`
    SELECT LEAST(
      (SELECT "createdAt" FROM "PlaybookVersion" WHERE "playbookId" = ${playbookId}::uuid ORDER BY number LIMIT 1),
      (SELECT min("timestamp") FROM "Trace" WHERE "playbookId" = ${playbookId}::uuid),
      (SELECT "firstExpiredTraceAt" FROM "Playbook" WHERE id = ${playbookId}::uuid)) AS earliest`;
  return row?.earliest ?? null;
}
