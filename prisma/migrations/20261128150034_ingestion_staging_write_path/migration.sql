-- DropIndex
DROP INDEX "ingestion_staged_records_tenant_id_dataset_idx";

-- AlterTable
ALTER TABLE "ingestion_staged_records" ALTER COLUMN "data" SET DATA TYPE JSON;
