-- Lineage finds the versions that changed a bullet through the ids of the bullets each version
-- changed, a generated text[] column with a GIN index, instead of a jsonb_path_ops index over the
-- whole operations document. That index held an entry for every value of every change (the before
-- and after states: about twenty a bullet), so a 50-operation apply wrote about a thousand index
-- entries; this one writes fifty. Nothing else queried the old index.
--
-- Immutable: the ids depend on the document alone. PostgreSQL keeps the column; no writer can
-- forget it. Prisma has no generated columns: schema.prisma declares the column as an ignored text[]
-- whose default is this expression, which keeps its diff empty.
CREATE FUNCTION version_bullet_ids(operations jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN ARRAY(
    SELECT e->>'id'
    FROM jsonb_array_elements(CASE jsonb_typeof(operations) WHEN 'array' THEN operations ELSE '[]'::jsonb END) AS e
    WHERE e->>'entity' = 'bullet');

ALTER TABLE "PlaybookVersion" ADD COLUMN "bulletIds" TEXT[] GENERATED ALWAYS AS (version_bullet_ids(operations)) STORED;

-- Entries written at once, as for the other GIN indexes (20261129060500_gin_without_pending_list):
-- embedded PGlite never vacuums a pending list away.
CREATE INDEX "PlaybookVersion_bulletIds_idx" ON "PlaybookVersion" USING GIN ("bulletIds") WITH (fastupdate = off);

DROP INDEX "PlaybookVersion_operations_idx";
