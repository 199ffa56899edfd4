-- CreateEnum
CREATE TYPE "PlaybookFormat" AS ENUM ('ace', 'ace_plain', 'kayba', 'json');

-- CreateEnum
CREATE TYPE "BulletStatus" AS ENUM ('active', 'archived');

-- CreateEnum
CREATE TYPE "BulletOrigin" AS ENUM ('import', 'manual', 'curator');

-- CreateEnum
CREATE TYPE "DeltaStatus" AS ENUM ('pending', 'applied', 'auto_applied', 'rejected', 'stale');

-- CreateEnum
CREATE TYPE "DeltaOrigin" AS ENUM ('person', 'curator', 'pruning', 'import', 'rollback');

-- CreateEnum
CREATE TYPE "OperationType" AS ENUM ('add', 'update', 'remove', 'merge', 'tag');

-- CreateEnum
CREATE TYPE "OperationStatus" AS ENUM ('pending', 'approved', 'rejected');

-- CreateEnum
CREATE TYPE "TraceOutcome" AS ENUM ('success', 'failure', 'unknown');

-- CreateTable
CREATE TABLE "Playbook" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "agentLabel" TEXT NOT NULL DEFAULT '',
    "settings" JSONB NOT NULL DEFAULT '{}',
    "sourceFormat" "PlaybookFormat" NOT NULL DEFAULT 'ace',
    "formatHints" JSONB NOT NULL DEFAULT '{}',
    "nextBulletNumber" INTEGER NOT NULL DEFAULT 1,
    "version" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Playbook_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Section" (
    "id" UUID NOT NULL,
    "playbookId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "blankLinesBefore" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Section_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Bullet" (
    "id" UUID NOT NULL,
    "playbookId" UUID NOT NULL,
    "sectionId" UUID NOT NULL,
    "externalId" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "helpful" INTEGER NOT NULL DEFAULT 0,
    "harmful" INTEGER NOT NULL DEFAULT 0,
    "neutral" INTEGER NOT NULL DEFAULT 0,
    "countersKnown" BOOLEAN NOT NULL DEFAULT true,
    "status" "BulletStatus" NOT NULL DEFAULT 'active',
    "archivedReason" TEXT,
    "mergedInto" TEXT,
    "position" INTEGER NOT NULL,
    "origin" "BulletOrigin" NOT NULL DEFAULT 'import',
    "sourceTraceId" UUID,
    "sourceRunId" TEXT,
    "justification" TEXT,
    "evidence" TEXT,
    "extra" JSONB,
    "blankLinesBefore" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Bullet_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PlaybookVersion" (
    "id" UUID NOT NULL,
    "playbookId" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "author" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "operations" JSONB NOT NULL,
    "deltaId" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PlaybookVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Delta" (
    "id" UUID NOT NULL,
    "playbookId" UUID NOT NULL,
    "status" "DeltaStatus" NOT NULL DEFAULT 'pending',
    "origin" "DeltaOrigin" NOT NULL,
    "author" TEXT NOT NULL,
    "rationale" TEXT NOT NULL DEFAULT '',
    "confidence" DOUBLE PRECISION,
    "baseVersion" INTEGER NOT NULL,
    "appliedVersion" INTEGER,
    "evidence" JSONB NOT NULL DEFAULT '{}',
    "reviewNote" TEXT,
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Delta_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DeltaOperation" (
    "id" UUID NOT NULL,
    "deltaId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "type" "OperationType" NOT NULL,
    "status" "OperationStatus" NOT NULL DEFAULT 'pending',
    "payload" JSONB NOT NULL,
    "flags" JSONB NOT NULL DEFAULT '[]',
    "rationale" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "DeltaOperation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Trace" (
    "id" UUID NOT NULL,
    "playbookId" UUID NOT NULL,
    "externalId" TEXT,
    "playbookVersion" INTEGER,
    "task" TEXT NOT NULL,
    "reasoning" TEXT NOT NULL DEFAULT '',
    "output" TEXT NOT NULL DEFAULT '',
    "citedBulletIds" TEXT[],
    "outcome" "TraceOutcome" NOT NULL DEFAULT 'unknown',
    "feedback" JSONB NOT NULL DEFAULT '{}',
    "durationMs" INTEGER,
    "inputTokens" INTEGER,
    "outputTokens" INTEGER,
    "variant" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "reflectedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Trace_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Playbook_name_key" ON "Playbook"("name");

-- CreateIndex
CREATE INDEX "Section_playbookId_position_idx" ON "Section"("playbookId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "Section_playbookId_name_key" ON "Section"("playbookId", "name");

-- CreateIndex
CREATE INDEX "Bullet_playbookId_status_sectionId_position_idx" ON "Bullet"("playbookId", "status", "sectionId", "position");

-- CreateIndex
CREATE INDEX "Bullet_sectionId_position_idx" ON "Bullet"("sectionId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "Bullet_playbookId_externalId_key" ON "Bullet"("playbookId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "PlaybookVersion_playbookId_number_key" ON "PlaybookVersion"("playbookId", "number");

-- CreateIndex
CREATE INDEX "Delta_playbookId_status_createdAt_idx" ON "Delta"("playbookId", "status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "DeltaOperation_deltaId_position_key" ON "DeltaOperation"("deltaId", "position");

-- CreateIndex
CREATE INDEX "Trace_playbookId_createdAt_idx" ON "Trace"("playbookId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Trace_playbookId_externalId_key" ON "Trace"("playbookId", "externalId");

-- AddForeignKey
ALTER TABLE "Section" ADD CONSTRAINT "Section_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Bullet" ADD CONSTRAINT "Bullet_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Bullet" ADD CONSTRAINT "Bullet_sectionId_fkey" FOREIGN KEY ("sectionId") REFERENCES "Section"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlaybookVersion" ADD CONSTRAINT "PlaybookVersion_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Delta" ADD CONSTRAINT "Delta_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DeltaOperation" ADD CONSTRAINT "DeltaOperation_deltaId_fkey" FOREIGN KEY ("deltaId") REFERENCES "Delta"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trace" ADD CONSTRAINT "Trace_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;
