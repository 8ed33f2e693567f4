-- CreateTable
CREATE TABLE "ingestion_pipelines" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "source_kind" VARCHAR(50) NOT NULL,
    "current_version" INTEGER NOT NULL,
    "status" VARCHAR(20) NOT NULL DEFAULT 'active',
    "source_columns" JSONB,
    "created_by" VARCHAR(255),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ingestion_pipelines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ingestion_pipeline_versions" (
    "pipeline_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "definition" JSONB NOT NULL,
    "definition_sha256" VARCHAR(64) NOT NULL,
    "created_by" VARCHAR(255),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ingestion_pipeline_versions_pkey" PRIMARY KEY ("pipeline_id","version")
);

-- CreateTable
CREATE TABLE "ingestion_runs" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "pipeline_id" UUID NOT NULL,
    "pipeline_version" INTEGER NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "error" TEXT,
    "started_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(6),

    CONSTRAINT "ingestion_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ingestion_batches" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "pipeline_id" UUID NOT NULL,
    "pipeline_version" INTEGER NOT NULL,
    "run_id" UUID NOT NULL,
    "source_name" VARCHAR(1000) NOT NULL,
    "content_sha256" VARCHAR(64) NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "rows_read" INTEGER NOT NULL DEFAULT 0,
    "rows_staged" INTEGER NOT NULL DEFAULT 0,
    "rows_quarantined" INTEGER NOT NULL DEFAULT 0,
    "bytes_read" BIGINT NOT NULL DEFAULT 0,
    "error" TEXT,
    "manifest" JSONB,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(6),

    CONSTRAINT "ingestion_batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ingestion_staged_records" (
    "batch_id" UUID NOT NULL,
    "record_offset" BIGINT NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "pipeline_id" UUID NOT NULL,
    "dataset" VARCHAR(200) NOT NULL,
    "source" VARCHAR(1000) NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ingestion_staged_records_pkey" PRIMARY KEY ("batch_id","record_offset")
);

-- CreateTable
CREATE TABLE "ingestion_quarantine" (
    "batch_id" UUID NOT NULL,
    "record_offset" BIGINT NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "pipeline_id" UUID NOT NULL,
    "reason" TEXT NOT NULL,
    "record" JSONB,
    "raw_sha256" VARCHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ingestion_quarantine_pkey" PRIMARY KEY ("batch_id","record_offset")
);

-- CreateTable
CREATE TABLE "ingestion_checkpoints" (
    "batch_id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "pipeline_id" UUID NOT NULL,
    "committed_offset" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ingestion_checkpoints_pkey" PRIMARY KEY ("batch_id")
);

-- CreateTable
CREATE TABLE "ingestion_lineage_events" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "run_id" UUID NOT NULL,
    "event_type" VARCHAR(20) NOT NULL,
    "event" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ingestion_lineage_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ingestion_pipelines_tenant_id_name_key" ON "ingestion_pipelines"("tenant_id", "name");

-- CreateIndex
CREATE INDEX "ingestion_pipeline_versions_tenant_id_idx" ON "ingestion_pipeline_versions"("tenant_id");

-- CreateIndex
CREATE INDEX "ingestion_runs_tenant_id_pipeline_id_started_at_idx" ON "ingestion_runs"("tenant_id", "pipeline_id", "started_at");

-- CreateIndex
CREATE INDEX "ingestion_batches_tenant_id_pipeline_id_created_at_idx" ON "ingestion_batches"("tenant_id", "pipeline_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "ingestion_batches_pipeline_id_content_sha256_key" ON "ingestion_batches"("pipeline_id", "content_sha256");

-- CreateIndex
CREATE INDEX "ingestion_staged_records_tenant_id_dataset_idx" ON "ingestion_staged_records"("tenant_id", "dataset");

-- CreateIndex
CREATE INDEX "ingestion_quarantine_tenant_id_pipeline_id_idx" ON "ingestion_quarantine"("tenant_id", "pipeline_id");

-- CreateIndex
CREATE INDEX "ingestion_checkpoints_tenant_id_pipeline_id_idx" ON "ingestion_checkpoints"("tenant_id", "pipeline_id");

-- CreateIndex
CREATE INDEX "ingestion_lineage_events_tenant_id_run_id_idx" ON "ingestion_lineage_events"("tenant_id", "run_id");
