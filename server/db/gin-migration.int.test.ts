// The migration that turns the GIN indexes' pending lists off, on a database that already holds
// pending entries: they are moved into the index, which still finds every row. On embedded PGlite,
// the engine that never vacuums them away.
import { describe, expect, it } from "vitest";
import { describedDatabaseBefore } from "@/server/testing/db";

const GIN_MIGRATION = "20261129060500_gin_without_pending_list";

describe("GIN indexes without a pending list, on a database with data", () => {
  const before = describedDatabaseBefore(GIN_MIGRATION);

  it("empties the pending list a database holds, and the index still finds every version", async () => {
    const playbookId = "4a1f0c3e-2b7d-4c55-9e1a-6d2b8c9f0a01";
    await before.pglite.exec(`
      INSERT INTO "Playbook" (id, name, version, "updatedAt") VALUES ('${playbookId}', 'old', 60, now());
      INSERT INTO "PlaybookVersion" (id, "playbookId", number, author, reason, operations)
        SELECT gen_random_uuid(), '${playbookId}', n, 'reflector', 'Tags',
               jsonb_build_array(jsonb_build_object('entity', 'bullet', 'id', 'str-' || lpad((n % 3)::text, 5, '0')))
        FROM generate_series(1, 60) n;`);

    expect(await before.upgrade(GIN_MIGRATION)).toEqual([GIN_MIGRATION]);
    const options = await before.pglite.query<{ name: string; options: string[] }>(
      `SELECT relname AS name, reloptions AS options FROM pg_class WHERE relname IN ('PlaybookVersion_operations_idx', 'Run_traceIds_idx') ORDER BY relname`,
    );
    expect(options.rows).toEqual([
      { name: "PlaybookVersion_operations_idx", options: ["fastupdate=off"] },
      { name: "Run_traceIds_idx", options: ["fastupdate=off"] },
    ]);
    // Nothing left to move: the migration moved it.
    const cleaned = await before.pglite.query<{ pages: number }>(
      `SELECT gin_clean_pending_list('"PlaybookVersion_operations_idx"'::regclass)::int AS pages`,
    );
    expect(cleaned.rows).toEqual([{ pages: 0 }]);
    // Read through the index alone, a bullet's versions are all there.
    await before.pglite.exec(`SET enable_seqscan = off`);
    const found = await before.pglite.query<{ versions: number }>(
      `SELECT count(*)::int AS versions FROM "PlaybookVersion" WHERE operations @> '[{"entity": "bullet", "id": "str-00001"}]'`,
    );
    expect(found.rows).toEqual([{ versions: 20 }]);
    const plan = await before.pglite.query<{ "QUERY PLAN": string }>(
      `EXPLAIN SELECT count(*) FROM "PlaybookVersion" WHERE operations @> '[{"entity": "bullet", "id": "str-00001"}]'`,
    );
    expect(plan.rows.map((row) => row["QUERY PLAN"]).join("\n")).toContain("PlaybookVersion_operations_idx");
  });
});
