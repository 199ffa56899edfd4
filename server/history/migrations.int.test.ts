// The migration that finds a bullet's versions through the ids each version changed (a generated
// column and its GIN index) instead of an index over the whole operations document, on a database
// that already holds versions: PostgreSQL fills the ids for every row, and the lineage query uses
// the new index.
import { describe, expect, it } from "vitest";
import { describedDatabaseBefore } from "@/server/testing/db";

const BULLET_IDS_MIGRATION = "20261129075858_version_bullet_ids";

describe("the bullet ids of each version, on a database with versions", () => {
  const before = describedDatabaseBefore(BULLET_IDS_MIGRATION);

  it("are filled for the versions already there, kept for new ones, and serve the lineage through their index", async () => {
    const playbookId = "5b0c9e1a-7f3d-4a2b-9c8e-1d2f3a4b5c6d";
    const change = (entity: string, id: string) => ({ entity, id, kind: "updated", before: { content: id }, after: { content: `${id}!` } });
    const versions = [
      [change("bullet", "str-00001"), change("section", "str-00002"), change("bullet", "mis-00003")],
      [change("section", "strategies")],
      [],
      // Not what ACE Studio writes, but a hand-edited row must not stop the migration.
      { unexpected: "object" },
    ];
    await before.pglite.query(`INSERT INTO "Playbook" (id, name, version, "updatedAt") VALUES ($1, 'old', 4, now())`, [playbookId]);
    for (const [index, operations] of versions.entries())
      await before.pglite.query(
        `INSERT INTO "PlaybookVersion" (id, "playbookId", number, author, reason, operations) VALUES (gen_random_uuid(), $1, $2, 'alice', 'r', $3)`,
        [playbookId, index + 1, JSON.stringify(operations)],
      );

    expect(await before.upgrade(BULLET_IDS_MIGRATION)).toEqual([BULLET_IDS_MIGRATION]);
    const ids = async () =>
      (
        await before.pglite.query<{ number: number; ids: string[] }>(
          `SELECT number, "bulletIds" AS ids FROM "PlaybookVersion" ORDER BY number`,
        )
      ).rows;
    expect(await ids()).toEqual([
      { number: 1, ids: ["str-00001", "mis-00003"] },
      { number: 2, ids: [] },
      { number: 3, ids: [] },
      { number: 4, ids: [] },
    ]);
    await before.pglite.query(
      `INSERT INTO "PlaybookVersion" (id, "playbookId", number, author, reason, operations) VALUES (gen_random_uuid(), $1, 5, 'bob', 'r', $2)`,
      [playbookId, JSON.stringify([change("bullet", "str-00001")])],
    );
    expect((await ids())[4]).toEqual({ number: 5, ids: ["str-00001"] });

    await before.pglite.exec(`SET enable_seqscan = off`);
    const lineage = `SELECT number FROM "PlaybookVersion" WHERE "playbookId" = '${playbookId}' AND "bulletIds" @> ARRAY['str-00001'] ORDER BY number`;
    expect((await before.pglite.query<{ number: number }>(lineage)).rows).toEqual([{ number: 1 }, { number: 5 }]);
    const plan = await before.pglite.query<{ "QUERY PLAN": string }>(
      `EXPLAIN SELECT number FROM "PlaybookVersion" WHERE "bulletIds" @> ARRAY['str-00001']`,
    );
    expect(plan.rows.map((row) => row["QUERY PLAN"]).join("\n")).toContain("PlaybookVersion_bulletIds_idx");
    const old = await before.pglite.query(`SELECT 1 FROM pg_class WHERE relname = 'PlaybookVersion_operations_idx'`);
    expect(old.rows).toEqual([]);
  });
});
