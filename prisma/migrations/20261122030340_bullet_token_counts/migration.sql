-- AlterTable
ALTER TABLE "Bullet" ADD COLUMN     "tokenCount" INTEGER NOT NULL DEFAULT -1;
