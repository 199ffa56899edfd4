// The playbooks a thing belongs to, for the playbook restriction (server/access/restriction.ts).
import type { DbOrTx } from "@/server/db/client";

/** Each delta's playbook; a missing delta has no entry. */
export async function playbooksOfDeltas(db: DbOrTx, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.delta.findMany({ where: { id: { in: [...ids] } }, select: { id: true, playbookId: true } });
  return new Map(rows.map((row) => [row.id, row.playbookId]));
}

export async function playbooksOfTraces(db: DbOrTx, ids: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.trace.findMany({ where: { id: { in: [...ids] } }, select: { id: true, playbookId: true } });
  return new Map(rows.map((row) => [row.id, row.playbookId]));
}

export async function playbookOfRun(db: DbOrTx, id: string): Promise<string | null> {
  return (await db.run.findUnique({ where: { id }, select: { playbookId: true } }))?.playbookId ?? null;
}

/** The experiment's playbook and every playbook a variant serves; null when no experiment has the key. */
export async function playbooksOfExperiment(db: DbOrTx, key: string): Promise<string[] | null> {
  const row = await db.experiment.findUnique({
    where: { key },
    select: { playbookId: true, variants: { select: { targetPlaybookId: true } } },
  });
  if (!row) return null;
  return [row.playbookId, ...row.variants.flatMap((variant) => (variant.targetPlaybookId ? [variant.targetPlaybookId] : []))];
}

export async function playbookIdsByNames(db: DbOrTx, names: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.playbook.findMany({ where: { name: { in: [...names] } }, select: { id: true, name: true } });
  return new Map(rows.map((row) => [row.name, row.id]));
}

export async function playbookNames(db: DbOrTx, ids: readonly string[]): Promise<string[]> {
  const rows = await db.playbook.findMany({ where: { id: { in: [...ids] } }, select: { name: true }, orderBy: { name: "asc" } });
  return rows.map((row) => row.name);
}

/** The playbooks an API key may touch ("all", or ids); null when there is no such key. */
export async function playbooksOfApiKey(db: DbOrTx, id: string): Promise<"all" | string[] | null> {
  const row = await db.apiKey.findUnique({ where: { id }, select: { allPlaybooks: true, playbookIds: true } });
  if (!row) return null;
  return row.allPlaybooks ? "all" : row.playbookIds;
}
