// The migration that adds the lowered copy of a bullet's text searches match, on a database that
// already holds bullets: PostgreSQL fills it for every row, and keeps it with later changes.
import { describe, expect, it } from "vitest";
import { describedDatabaseBefore } from "@/server/testing/db";

const SEARCH_TEXT_MIGRATION = "20261129073230_bullet_search_text";

describe("the lowered search text, on a database with bullets", () => {
  const before = describedDatabaseBefore(SEARCH_TEXT_MIGRATION);

  it("is filled for the bullets already there, and follows their content afterwards", async () => {
    const playbookId = "7c2e5a10-3d4b-4f6a-8b9c-0d1e2f3a4b5c";
    const sectionId = "7c2e5a10-3d4b-4f6a-8b9c-0d1e2f3a4b5d";
    await before.pglite.exec(`
      INSERT INTO "Playbook" (id, name, "updatedAt") VALUES ('${playbookId}', 'old', now());
      INSERT INTO "Section" (id, "playbookId", name, slug, position, "updatedAt") VALUES ('${sectionId}', '${playbookId}', 'strategies', 'str', 0, now());
      INSERT INTO "Bullet" (id, "playbookId", "sectionId", "externalId", content, position, "updatedAt")
        VALUES (gen_random_uuid(), '${playbookId}', '${sectionId}', 'str-00001', 'Check PAGINATION Before Reading', 0, now()),
               (gen_random_uuid(), '${playbookId}', '${sectionId}', 'str-00002', 'Write Money With 2 Decimals', 1, now());`);

    expect(await before.upgrade(SEARCH_TEXT_MIGRATION)).toEqual([SEARCH_TEXT_MIGRATION]);
    const lowered = async () =>
      (await before.pglite.query<{ id: string; text: string }>(`SELECT "externalId" AS id, "searchText" AS text FROM "Bullet" ORDER BY 1`))
        .rows;
    expect(await lowered()).toEqual([
      { id: "str-00001", text: "check pagination before reading" },
      { id: "str-00002", text: (await before.pglite.query<{ l: string }>(`SELECT lower('Write Money With 2 Decimals') AS l`)).rows[0]!.l },
    ]);
    await before.pglite.exec(`UPDATE "Bullet" SET content = 'Retry ONCE' WHERE "externalId" = 'str-00001'`);
    expect((await lowered())[0]).toEqual({ id: "str-00001", text: "retry once" });
    // Written by PostgreSQL alone: a value given for it is refused, not stored beside a different text.
    await expect(before.pglite.exec(`UPDATE "Bullet" SET "searchText" = 'stale' WHERE "externalId" = 'str-00001'`)).rejects.toThrow(
      /can only be updated to DEFAULT/,
    );
  });
});
