-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "creatorId" TEXT,
ADD COLUMN     "creatorKind" TEXT,
ADD COLUMN     "ownerKind" TEXT,
ADD COLUMN     "ownerUserId" UUID,
ADD COLUMN     "revokedReason" TEXT;

-- CreateIndex
CREATE INDEX "ApiKey_ownerUserId_idx" ON "ApiKey"("ownerUserId");

-- Existing keys: createdBy holds the creator's name as the audit log wrote it (a user's email, the
-- local operator's "local user" or "cli (…)", a key's name). A user is matched by email, else by a
-- name only one user has; a key made by a key takes that key's owner. Keys matching no one keep
-- working with an unknown creator, listed as such until an admin transfers or revokes them.
UPDATE "ApiKey" k
SET "creatorKind" = 'user', "creatorId" = u.id::text, "ownerKind" = 'user', "ownerUserId" = u.id
FROM "User" u
WHERE lower(u.email) = lower(k."createdBy");

UPDATE "ApiKey" k
SET "creatorKind" = 'local', "ownerKind" = 'local'
WHERE k."creatorKind" IS NULL AND (k."createdBy" = 'local user' OR k."createdBy" LIKE 'cli (%)');

UPDATE "ApiKey" k
SET "creatorKind" = 'user', "creatorId" = u.id::text, "ownerKind" = 'user', "ownerUserId" = u.id
FROM (SELECT name, (array_agg(id))[1] AS id FROM "User" WHERE name <> '' GROUP BY name HAVING count(*) = 1) u
WHERE k."creatorKind" IS NULL AND u.name = k."createdBy";

-- Key by key, as long as another one resolves (a key made by a key made by a key…).
DO $$
BEGIN
  LOOP
    UPDATE "ApiKey" k
    SET "creatorKind" = 'apikey', "creatorId" = p.id::text, "ownerKind" = p."ownerKind", "ownerUserId" = p."ownerUserId"
    FROM "ApiKey" p
    WHERE k."creatorKind" IS NULL
      AND p."ownerKind" IS NOT NULL
      AND p.id <> k.id
      AND (k."createdBy" = p.name OR k."createdBy" = 'API key "' || p.name || '"')
      AND (SELECT count(*) FROM "ApiKey" q WHERE q.name = p.name) = 1;
    EXIT WHEN NOT FOUND;
  END LOOP;
END $$;
