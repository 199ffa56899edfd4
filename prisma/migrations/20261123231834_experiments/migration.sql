-- CreateEnum
CREATE TYPE "ExperimentStatus" AS ENUM ('draft', 'running', 'stopped');

-- CreateEnum
CREATE TYPE "ExperimentTarget" AS ENUM ('version', 'latest', 'noPlaybook', 'playbook');

-- AlterTable
ALTER TABLE "Trace" ADD COLUMN     "experimentPhase" INTEGER,
ADD COLUMN     "taskId" TEXT,
ADD COLUMN     "unitId" TEXT;

-- CreateTable
CREATE TABLE "Experiment" (
    "id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "hypothesis" TEXT NOT NULL DEFAULT '',
    "playbookId" UUID NOT NULL,
    "status" "ExperimentStatus" NOT NULL DEFAULT 'draft',
    "coverage" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "seed" TEXT NOT NULL,
    "primaryMetric" TEXT NOT NULL DEFAULT 'successRate',
    "guardrails" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "minimumDetectableEffect" DOUBLE PRECISION,
    "plannedUnitsPerVariant" INTEGER,
    "startedAt" TIMESTAMP(3),
    "stoppedAt" TIMESTAMP(3),
    "decisionAction" TEXT,
    "decisionVariant" TEXT,
    "decisionNote" TEXT,
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMP(3),
    "decisionRollbackVersion" INTEGER,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Experiment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExperimentVariant" (
    "id" UUID NOT NULL,
    "experimentId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "weight" DOUBLE PRECISION NOT NULL,
    "targetKind" "ExperimentTarget" NOT NULL,
    "playbookVersion" INTEGER,
    "targetPlaybookId" UUID,

    CONSTRAINT "ExperimentVariant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExperimentPhase" (
    "id" UUID NOT NULL,
    "experimentId" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "seed" TEXT NOT NULL,
    "coverage" DOUBLE PRECISION NOT NULL,
    "weights" DOUBLE PRECISION[],
    "startedAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "ExperimentPhase_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExperimentExposure" (
    "experimentId" UUID NOT NULL,
    "phase" INTEGER NOT NULL,
    "unitId" TEXT NOT NULL,
    "variant" TEXT NOT NULL,
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "playbookVersion" INTEGER,
    "crossover" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "ExperimentExposure_pkey" PRIMARY KEY ("experimentId","phase","unitId")
);

-- CreateIndex
CREATE UNIQUE INDEX "Experiment_key_key" ON "Experiment"("key");

-- CreateIndex
CREATE INDEX "Experiment_playbookId_status_idx" ON "Experiment"("playbookId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "ExperimentVariant_experimentId_key_key" ON "ExperimentVariant"("experimentId", "key");

-- CreateIndex
CREATE UNIQUE INDEX "ExperimentVariant_experimentId_position_key" ON "ExperimentVariant"("experimentId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "ExperimentPhase_experimentId_number_key" ON "ExperimentPhase"("experimentId", "number");

-- CreateIndex
CREATE INDEX "ExperimentExposure_experimentId_phase_variant_idx" ON "ExperimentExposure"("experimentId", "phase", "variant");

-- CreateIndex
CREATE INDEX "Trace_experiment_experimentPhase_idx" ON "Trace"("experiment", "experimentPhase");

-- AddForeignKey
ALTER TABLE "Experiment" ADD CONSTRAINT "Experiment_playbookId_fkey" FOREIGN KEY ("playbookId") REFERENCES "Playbook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentVariant" ADD CONSTRAINT "ExperimentVariant_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentVariant" ADD CONSTRAINT "ExperimentVariant_targetPlaybookId_fkey" FOREIGN KEY ("targetPlaybookId") REFERENCES "Playbook"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentPhase" ADD CONSTRAINT "ExperimentPhase_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentExposure" ADD CONSTRAINT "ExperimentExposure_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;
