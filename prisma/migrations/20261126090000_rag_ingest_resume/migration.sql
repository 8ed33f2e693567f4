-- Resumable ingestion jobs (docs/rag.md, "Ingestion jobs"): a job keeps what it needs to run again
-- (`input`, cleared when it ends) and a lease; a job whose lease runs out (its process died) is
-- claimed by another copy of the service and run again, at most RAG_JOB_MAX_ATTEMPTS times.
ALTER TABLE "rag_ingest_jobs" ADD COLUMN "input" JSONB,
  ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "lease_owner" VARCHAR(200),
  ADD COLUMN "lease_until" TIMESTAMPTZ(6);

-- CreateIndex
CREATE INDEX "rag_ingest_jobs_status_lease_until_idx" ON "rag_ingest_jobs"("status", "lease_until");

-- Jobs from before this migration cannot run again: their input was never kept.
UPDATE "rag_ingest_jobs" SET "status" = 'failed', "stage" = 'failed', "percent" = 100,
  "error" = 'interrupted before ingestion jobs were resumable', "updated_at" = now()
  WHERE "status" IN ('queued', 'processing');
