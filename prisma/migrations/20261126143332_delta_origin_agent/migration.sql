-- AlterEnum
ALTER TYPE "DeltaOrigin" ADD VALUE 'agent';
