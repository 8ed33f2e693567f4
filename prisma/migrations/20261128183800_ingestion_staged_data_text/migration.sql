-- The staged record's JSON text as the service wrote it, kept as text: json's validation of every
-- staged row cost 10-25% of writing it (issue 32, docs/benchmarks.md "Whole-CSV COPY path, second
-- round"); the text is JSON.stringify's (or the SQL path's equal text) and readers parse it.
-- Rewrites the table once.

-- AlterTable
ALTER TABLE "ingestion_staged_records" ALTER COLUMN "data" SET DATA TYPE TEXT;
