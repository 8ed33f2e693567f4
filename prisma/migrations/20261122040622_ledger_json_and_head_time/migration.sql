-- AlterTable
ALTER TABLE "ledger_chain_heads" ADD COLUMN     "last_created_at_us" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "ledger_events" ALTER COLUMN "event_data" SET DATA TYPE JSON;
