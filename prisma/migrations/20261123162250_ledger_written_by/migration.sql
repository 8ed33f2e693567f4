-- AlterTable
ALTER TABLE "ledger_events" ADD COLUMN     "written_by" VARCHAR(255);
