// Every database call of the compiled context. The bullets themselves come from the delta
// engine's cached playbook state (server/deltas/engine-state.ts); this reads the playbook's head,
// publishes versions to the context (server/context/publication.ts) and reads the token counts
// stored with its bullets.
import type { DbOrTx } from "@/server/db/client";

export interface PlaybookHead {
  id: string;
  name: string;
  version: number;
  settings: unknown;
  /** The version the compiled context serves, and when it was published (server/context/publication.ts). */
  contextVersion: number;
  contextPublishedAt: Date;
}

const HEAD = { id: true, name: true, version: true, settings: true, contextVersion: true, contextPublishedAt: true } as const;

/** The playbook with one of these names, the first name preferred when both exist. */
export async function findPlaybookByNames(db: DbOrTx, names: string[]): Promise<PlaybookHead | null> {
  const rows = await db.playbook.findMany({
    where: { name: { in: names } },
    select: HEAD,
  });
  for (const name of names) {
    const row = rows.find((candidate) => candidate.name === name);
    if (row) return row;
  }
  return null;
}

export function findPlaybookById(db: DbOrTx, playbookId: string): Promise<PlaybookHead | null> {
  return db.playbook.findUnique({ where: { id: playbookId }, select: HEAD });
}

// Raw SQL for the two publications: a Prisma update would also move the playbook's updatedAt, and
// publishing is not a change of the playbook.

/** In the transaction of a version that changes more than counters: that version is served from now on. */
export async function publishContentVersion(tx: DbOrTx, playbookId: string, version: number, at: Date): Promise<void> {
  await tx.$executeRaw`
    UPDATE "Playbook" SET "contextVersion" = ${version}::int, "contextPublishedAt" = ${at}::timestamp(3)
    WHERE id = ${playbookId}::uuid AND "contextVersion" < ${version}::int`;
}

/**
 * Publishes the counter-only versions after `from` up to `to`, unless another request or instance
 * published something since it read `from` (contextVersion only grows, so it is the check).
 * Returns whether this call published.
 */
export async function publishCounterVersions(
  db: DbOrTx,
  playbookId: string,
  { from, to, at }: { from: number; to: number; at: Date },
): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE "Playbook" SET "contextVersion" = ${to}::int, "contextPublishedAt" = ${at}::timestamp(3)
    WHERE id = ${playbookId}::uuid AND "contextVersion" = ${from}::int AND version >= ${to}::int`;
  return count === 1;
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
