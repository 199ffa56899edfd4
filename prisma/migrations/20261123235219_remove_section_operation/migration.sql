-- AlterEnum
ALTER TYPE "OperationType" ADD VALUE 'remove_section';
