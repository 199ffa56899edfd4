// The migration that records who created each API key, on a database that already holds keys:
// createdBy names are matched to users (by email, else by a name only one user has), to the local
// operator, and to the key that made a key (which passes its own creator on); the rest stay unknown.
import { describe, expect, it } from "vitest";
import { describedDatabaseBefore } from "@/server/testing/db";

const CREATOR_MIGRATION = "20261206070815_api_key_creator";

const ADA = "0f9b4c1e-1d2a-4b3c-8d4e-5f6a7b8c9d01";
const BOB = "0f9b4c1e-1d2a-4b3c-8d4e-5f6a7b8c9d02";

describe("the creators of API keys made before they were recorded", () => {
  const before = describedDatabaseBefore(CREATOR_MIGRATION);

  it("are matched to users, the local operator and parent keys; keys matching no one keep an unknown creator", async () => {
    const users: [string | null, string, string][] = [
      [ADA, "ada@example.com", "Ada"],
      [BOB, "bob@example.com", "Bob"],
      [null, "sam1@example.com", "Sam"],
      [null, "sam2@example.com", "Sam"],
    ];
    for (const [id, email, name] of users)
      await before.pglite.query(
        `INSERT INTO "User" (id, email, name, role, "updatedAt") VALUES (coalesce($1::uuid, gen_random_uuid()), $2, $3, 'admin', now())`,
        [id, email, name],
      );
    // In creation order: a key's name, and who created it as the audit log wrote it then.
    const keys: [string, string][] = [
      ["by email", "ada@example.com"],
      ["by name", "Bob"],
      ["ambiguous name", "Sam"],
      ["laptop", "local user"],
      ["cli", "cli (root)"],
      ["ci admin", "ada@example.com"],
      ["child", "ci admin"],
      ["child of child", 'API key "child"'],
      ["from a gone user", "gone@example.com"],
      ["child of unknown", "from a gone user"],
    ];
    for (const [index, [name, createdBy]] of keys.entries())
      await before.pglite.query(
        `INSERT INTO "ApiKey" (id, "publicId", "secretHash", name, preview, scopes, "createdBy", "createdAt")
         VALUES (gen_random_uuid(), $1, 'hash', $2, 'ace_…', ARRAY['admin'], $3, now() + make_interval(secs => $4))`,
        [`public${index}`, name, createdBy, index],
      );

    expect(await before.upgrade(CREATOR_MIGRATION)).toEqual([CREATOR_MIGRATION]);
    const rows = (
      await before.pglite.query<{
        name: string;
        creatorKind: string | null;
        creator: string | null;
        ownerKind: string | null;
        ownerUserId: string | null;
      }>(
        `SELECT k.name, k."creatorKind", coalesce(u.email, p.name) AS creator, k."ownerKind", k."ownerUserId"
         FROM "ApiKey" k LEFT JOIN "User" u ON u.id::text = k."creatorId" LEFT JOIN "ApiKey" p ON p.id::text = k."creatorId"
         ORDER BY k."createdAt"`,
      )
    ).rows;
    expect(rows).toEqual([
      { name: "by email", creatorKind: "user", creator: "ada@example.com", ownerKind: "user", ownerUserId: ADA },
      { name: "by name", creatorKind: "user", creator: "bob@example.com", ownerKind: "user", ownerUserId: BOB },
      { name: "ambiguous name", creatorKind: null, creator: null, ownerKind: null, ownerUserId: null },
      { name: "laptop", creatorKind: "local", creator: null, ownerKind: "local", ownerUserId: null },
      { name: "cli", creatorKind: "local", creator: null, ownerKind: "local", ownerUserId: null },
      { name: "ci admin", creatorKind: "user", creator: "ada@example.com", ownerKind: "user", ownerUserId: ADA },
      { name: "child", creatorKind: "apikey", creator: "ci admin", ownerKind: "user", ownerUserId: ADA },
      { name: "child of child", creatorKind: "apikey", creator: "child", ownerKind: "user", ownerUserId: ADA },
      { name: "from a gone user", creatorKind: null, creator: null, ownerKind: null, ownerUserId: null },
      { name: "child of unknown", creatorKind: null, creator: null, ownerKind: null, ownerUserId: null },
    ]);
  });
});
