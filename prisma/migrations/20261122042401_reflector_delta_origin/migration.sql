-- AlterEnum
ALTER TYPE "DeltaOrigin" ADD VALUE 'reflector';
