-- AlterTable
ALTER TABLE "RetentionRun" ADD COLUMN     "succeededRuns" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "redactedAt" TIMESTAMP(3),
ADD COLUMN     "redactedReason" TEXT;
