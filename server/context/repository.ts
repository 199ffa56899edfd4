// Every database call of the compiled context. The bullets themselves come from the delta
// engine's cached playbook state (server/deltas/service.ts); this reads the playbook's head and
// the token counts stored with its bullets.
import type { DbOrTx } from "@/server/db/client";

export interface PlaybookHead {
  id: string;
  name: string;
  version: number;
  settings: unknown;
}

/** The playbook with one of these names, the first name preferred when both exist. */
export async function findPlaybookByNames(db: DbOrTx, names: string[]): Promise<PlaybookHead | null> {
  const rows = await db.playbook.findMany({
    where: { name: { in: names } },
    select: { id: true, name: true, version: true, settings: true },
  });
  for (const name of names) {
    const row = rows.find((candidate) => candidate.name === name);
    if (row) return row;
  }
  return null;
}

export function findPlaybookById(db: DbOrTx, playbookId: string): Promise<PlaybookHead | null> {
  return db.playbook.findUnique({ where: { id: playbookId }, select: { id: true, name: true, version: true, settings: true } });
}

/** Token counts stored with the bullets, and the version they belong to. */
export interface StoredTokenCounts {
  version: number;
  /** Tokens with counters of the active bullets whose count is stored, by external id. */
  counts: Map<string, number>;
}

/**
 * The active bullets' stored token counts (countBulletTokens, written with every bullet) and the
 * playbook's version, in one statement so they belong together. null when there is no such playbook.
 * The pairs travel as one "id count id count …" string (ids have no whitespace): for 10,000 bullets
 * that reads in half the time of JSON.
 */
export async function loadStoredTokenCounts(db: DbOrTx, playbookId: string): Promise<StoredTokenCounts | null> {
  const [row] = await db.$queryRaw<{ version: number; counts: string | null }[]>`
    SELECT p.version, (
      SELECT string_agg(b."externalId" || ' ' || b."tokenCount", ' ')
      FROM "Bullet" b
      WHERE b."playbookId" = p.id AND b.status = 'active' AND b."tokenCount" >= 0) AS counts
    FROM "Playbook" p WHERE p.id = ${playbookId}::uuid`;
  if (!row) return null;
  const counts = new Map<string, number>();
  const words = row.counts ? row.counts.split(" ") : [];
  for (let i = 0; i + 1 < words.length; i += 2) counts.set(words[i] as string, Number(words[i + 1]));
  return { version: row.version, counts };
}
