-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "OperationType" ADD VALUE 'restore';
ALTER TYPE "OperationType" ADD VALUE 'add_section';
ALTER TYPE "OperationType" ADD VALUE 'rename_section';
ALTER TYPE "OperationType" ADD VALUE 'move_section';

-- AlterTable
ALTER TABLE "Bullet" ADD COLUMN     "changedInVersion" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "DeltaOperation" ADD COLUMN     "editedBy" TEXT,
ADD COLUMN     "originalPayload" JSONB,
ADD COLUMN     "targetIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "targetSectionIds" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "Section" ADD COLUMN     "changedInVersion" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Delta_status_createdAt_idx" ON "Delta"("status", "createdAt");

-- CreateIndex
CREATE INDEX "PlaybookVersion_operations_idx" ON "PlaybookVersion" USING GIN ("operations" jsonb_path_ops);

-- CreateIndex
CREATE INDEX "PlaybookVersion_deltaId_idx" ON "PlaybookVersion"("deltaId");

-- Backfill: the last version that recorded each bullet and section (versions record every
-- touched entity with its state before and after); 1 for anything no version mentions.
UPDATE "Bullet" b SET "changedInVersion" = COALESCE(
  (SELECT max(v."number") FROM "PlaybookVersion" v
   WHERE v."playbookId" = b."playbookId"
     AND v."operations" @> jsonb_build_array(jsonb_build_object('entity', 'bullet', 'id', b."externalId"))),
  1);

UPDATE "Section" s SET "changedInVersion" = COALESCE(
  (SELECT max(v."number") FROM "PlaybookVersion" v
   WHERE v."playbookId" = s."playbookId"
     AND v."operations" @> jsonb_build_array(jsonb_build_object('entity', 'section', 'id', s."id"::text))),
  1);
