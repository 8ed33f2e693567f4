-- AlterTable
ALTER TABLE "outbox_events" ADD COLUMN     "dead_lettered_at" TIMESTAMPTZ(6);
