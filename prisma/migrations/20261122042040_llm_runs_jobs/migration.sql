-- CreateEnum
CREATE TYPE "RunRole" AS ENUM ('reflector', 'curator');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('queued', 'running', 'succeeded', 'failed');

-- CreateEnum
CREATE TYPE "JobStatus" AS ENUM ('queued', 'running', 'succeeded', 'failed', 'cancelled');

-- CreateTable
CREATE TABLE "Run" (
    "id" UUID NOT NULL,
    "playbookId" UUID NOT NULL,
    "role" "RunRole" NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'queued',
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "trigger" TEXT NOT NULL DEFAULT 'auto',
    "traceIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "reflectionRunIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "curatedByRunId" UUID,
    "prompt" JSONB NOT NULL DEFAULT '[]',
    "rawResponse" JSONB NOT NULL DEFAULT '[]',
    "output" JSONB,
    "error" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION,
    "latencyMs" INTEGER,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "deltaId" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Job" (
    "id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "playbookId" UUID,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "status" "JobStatus" NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL DEFAULT 5,
    "runAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedUntil" TIMESTAMP(3),
    "lockedBy" TEXT,
    "lastError" TEXT,
    "singletonKey" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AppSetting" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AppSetting_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "Run_playbookId_createdAt_idx" ON "Run"("playbookId", "createdAt");

-- CreateIndex
CREATE INDEX "Run_playbookId_role_status_idx" ON "Run"("playbookId", "role", "status");

-- CreateIndex
CREATE INDEX "Run_traceIds_idx" ON "Run" USING GIN ("traceIds");

-- CreateIndex
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");

-- CreateIndex
CREATE INDEX "Job_status_runAt_idx" ON "Job"("status", "runAt");

-- CreateIndex
CREATE INDEX "Job_playbookId_status_idx" ON "Job"("playbookId", "status");

-- CreateIndex
CREATE INDEX "Job_singletonKey_status_idx" ON "Job"("singletonKey", "status");

-- CreateIndex
CREATE INDEX "Trace_playbookId_reflectedAt_idx" ON "Trace"("playbookId", "reflectedAt");

-- CreateIndex
CREATE INDEX "Trace_createdAt_idx" ON "Trace"("createdAt");

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Job" ADD CONSTRAINT "Job_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;
