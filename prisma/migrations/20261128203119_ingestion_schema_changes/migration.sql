-- CreateTable
CREATE TABLE "ingestion_schema_changes" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "pipeline_id" UUID NOT NULL,
    "batch_id" UUID NOT NULL,
    "columns" JSONB NOT NULL,
    "added" JSONB NOT NULL,
    "removed" JSONB NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "requested_by" VARCHAR(255),
    "workflow_id" VARCHAR(255),
    "approval_task_id" VARCHAR(255),
    "reviewer" VARCHAR(255),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_at" TIMESTAMPTZ(6),

    CONSTRAINT "ingestion_schema_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ingestion_schema_changes_tenant_id_pipeline_id_created_at_idx" ON "ingestion_schema_changes"("tenant_id", "pipeline_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "ingestion_schema_changes_batch_id_key" ON "ingestion_schema_changes"("batch_id");
