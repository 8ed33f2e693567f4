-- AlterTable
ALTER TABLE "scanner_scans" ADD COLUMN     "sbom" JSONB,
ADD COLUMN     "schedule_id" VARCHAR(64),
ADD COLUMN     "trigger" VARCHAR(32) NOT NULL DEFAULT 'manual';

-- AlterTable
ALTER TABLE "scanner_targets" ADD COLUMN     "namespace" VARCHAR(100);

-- CreateTable
CREATE TABLE "scanner_schedules" (
    "id" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "target_id" VARCHAR(64) NOT NULL,
    "pack_id" VARCHAR(200) NOT NULL,
    "every_seconds" INTEGER,
    "on_events" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "due_at" TIMESTAMPTZ(6),
    "due_trigger" VARCHAR(32),
    "last_run_at" TIMESTAMPTZ(6),
    "last_scan_id" VARCHAR(64),
    "last_error" TEXT,
    "created_by" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scanner_schedules_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "scanner_schedules_tenant_id_idx" ON "scanner_schedules"("tenant_id");

-- CreateIndex
CREATE INDEX "scanner_schedules_due_at_idx" ON "scanner_schedules"("due_at");
