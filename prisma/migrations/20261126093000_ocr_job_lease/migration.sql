-- A lease on running OCR jobs (docs/ocr.md, "A job whose process stops"): renewed at every page;
-- a job whose lease runs out (its process died) is failed by any copy's sweep, with its audit
-- event, instead of staying `processing` for clients to poll forever.
ALTER TABLE "ocr_jobs" ADD COLUMN "lease_until" TIMESTAMPTZ(6);

-- CreateIndex
CREATE INDEX "ocr_jobs_status_lease_until_idx" ON "ocr_jobs"("status", "lease_until");

-- Jobs left running before this migration: their processes are gone.
UPDATE "ocr_jobs" SET "status" = 'failed', "error" = 'interrupted: the process running it stopped; upload the file again',
  "completed_at" = now(), "updated_at" = now()
  WHERE "status" IN ('pending', 'processing');
