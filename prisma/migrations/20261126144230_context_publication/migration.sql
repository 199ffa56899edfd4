-- AlterTable
ALTER TABLE "Playbook" ADD COLUMN     "contextPublishedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "contextVersion" INTEGER NOT NULL DEFAULT 0;

-- Every existing version is published: agents keep the context they have.
UPDATE "Playbook" SET "contextVersion" = "version", "contextPublishedAt" = (now() AT TIME ZONE 'UTC');
