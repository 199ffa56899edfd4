-- A bullet's content in lower case, kept by PostgreSQL: searches match it with LIKE against a
-- lower-cased pattern, the same rows ILIKE matches, without lowering every content at every search
-- (on PGlite, half of a search's time). Prisma does not model generated columns: schema.prisma
-- declares "searchText" as an ignored optional text, so its diff stays empty.
ALTER TABLE "Bullet" ADD COLUMN "searchText" TEXT GENERATED ALWAYS AS (lower(content)) STORED;
