-- AlterTable
ALTER TABLE "Trace" ADD COLUMN     "redactions" JSONB;
