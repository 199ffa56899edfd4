-- Traces carry when the agent ran (timestamp), its model, its own cost and the experiment of its
-- variant. Existing traces keep their receipt time as the time they ran.

-- AlterTable
ALTER TABLE "Trace" ADD COLUMN     "costUsd" DOUBLE PRECISION,
ADD COLUMN     "experiment" TEXT,
ADD COLUMN     "model" TEXT,
ADD COLUMN     "timestamp" TIMESTAMP(3);

-- Backfill: the receipt time, then the column takes the schema's NOT NULL and default.
UPDATE "Trace" SET "timestamp" = "createdAt";
ALTER TABLE "Trace" ALTER COLUMN "timestamp" SET NOT NULL,
ALTER COLUMN "timestamp" SET DEFAULT CURRENT_TIMESTAMP;

-- CreateIndex
CREATE INDEX "Trace_playbookId_timestamp_idx" ON "Trace"("playbookId", "timestamp");
