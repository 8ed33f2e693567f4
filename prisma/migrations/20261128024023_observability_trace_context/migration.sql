-- AlterTable
ALTER TABLE "ledger_events" ADD COLUMN     "trace_id" CHAR(32);

-- AlterTable
ALTER TABLE "outbox_events" ADD COLUMN     "traceparent" VARCHAR(64);
