-- CreateTable
CREATE TABLE "PlaybookFigures" (
    "id" UUID NOT NULL,
    "playbookId" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "recordedAt" TIMESTAMP(3) NOT NULL,
    "contentChanged" BOOLEAN NOT NULL,
    "countersChanged" BOOLEAN NOT NULL,
    "activeBullets" INTEGER NOT NULL,
    "archivedBullets" INTEGER NOT NULL,
    "helpful" INTEGER NOT NULL,
    "harmful" INTEGER NOT NULL,
    "neutral" INTEGER NOT NULL,
    "tokens" INTEGER NOT NULL,
    "sections" JSONB NOT NULL,
    "scores" JSONB NOT NULL,
    "operations" JSONB NOT NULL,

    CONSTRAINT "PlaybookFigures_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PlaybookFigures_playbookId_recordedAt_idx" ON "PlaybookFigures"("playbookId", "recordedAt");

-- CreateIndex
CREATE UNIQUE INDEX "PlaybookFigures_playbookId_version_key" ON "PlaybookFigures"("playbookId", "version");

-- AddForeignKey
ALTER TABLE "PlaybookFigures" ADD CONSTRAINT "PlaybookFigures_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;
