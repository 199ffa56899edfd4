// Every database call of the compiled context. The context is read before every agent call, so
// the bullets are ranked and cut in the database: only the bullets that can fit the budget travel,
// with their content; for a 10,000-bullet playbook and an 80,000-token budget that is a sixth.
import type { Db, Tx } from "@/server/db/client";

type DbOrTx = Db | Tx;

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

/** [section name, external id, content, helpful, harmful, neutral, countersKnown, tokenCount, bullet id] */
export type ContextBulletTuple = [string, string, string, number, number, number, boolean, number, string];

export interface ContextCandidates {
  version: number;
  /** Active bullets in the playbook. */
  bulletCount: number;
  /** The bullets that may fit the budget, in reading order (section position, bullet position, id). */
  candidates: ContextBulletTuple[];
}

/**
 * The version, the number of active bullets and the candidates for the context, in one statement
 * so they belong together. The candidates are a superset of what the context compiler will take:
 * the ranked prefix (the compiler's order: score, then reading order) whose running sum of a lower
 * bound of each bullet's tokens fits the budget. The lower bound leaves out section headers, counts
 * a bullet never counted (-1) as 0 and, without counters, takes off at most
 * counterTokensWithoutNumbers + one token per digit of its counters. The compiler then cuts exactly.
 * null when there is no such playbook.
 */
export async function loadContextCandidates(
  db: DbOrTx,
  playbookId: string,
  options: { budget: number; includeCounters: boolean; counterTokensWithoutNumbers: number },
): Promise<ContextCandidates | null> {
  const [row] = await db.$queryRaw<{ version: number; bulletCount: number; candidates: string }[]>`
    WITH active AS (
      SELECT b.id, s.id AS "sectionId", s.position AS "sectionPosition", b.position, b."externalId",
        CASE WHEN b."countersKnown" THEN b.helpful - b.harmful ELSE 0 END AS score,
        GREATEST(0, CASE
          WHEN b."tokenCount" < 0 THEN 0
          WHEN ${options.includeCounters}::boolean THEN b."tokenCount"
          WHEN b."countersKnown" THEN b."tokenCount" - ${options.counterTokensWithoutNumbers}::int
            - length(b.helpful::text) - length(b.harmful::text)
          ELSE b."tokenCount" - ${options.counterTokensWithoutNumbers}::int - 2
        END) AS "minTokens"
      FROM "Bullet" b JOIN "Section" s ON s.id = b."sectionId"
      WHERE b."playbookId" = ${playbookId}::uuid AND b.status = 'active'
    ), ranked AS (
      SELECT *, SUM("minTokens") OVER (
        ORDER BY score DESC, "sectionPosition", "sectionId", position, "externalId" ROWS UNBOUNDED PRECEDING) AS running
      FROM active
    )
    SELECT p.version, (SELECT COUNT(*)::int FROM active) AS "bulletCount", COALESCE((
      SELECT json_agg(json_build_array(s.name, b."externalId", b.content, b.helpful, b.harmful, b.neutral,
          b."countersKnown", b."tokenCount", b.id)
        ORDER BY r."sectionPosition", r."sectionId", r.position, r."externalId")
      FROM ranked r JOIN "Bullet" b ON b.id = r.id JOIN "Section" s ON s.id = r."sectionId"
      WHERE r.running <= ${options.budget}::bigint), '[]'::json)::text AS candidates
    FROM "Playbook" p WHERE p.id = ${playbookId}::uuid`;
  if (!row) return null;
  return { version: row.version, bulletCount: row.bulletCount, candidates: JSON.parse(row.candidates) as ContextBulletTuple[] };
}
