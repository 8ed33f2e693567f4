-- CreateTable
CREATE TABLE "dataflow_records" (
    "seq" BIGSERIAL NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "dataset" VARCHAR(300) NOT NULL,
    "record_key" VARCHAR(500) NOT NULL,
    "data" JSONB NOT NULL,
    "origin" VARCHAR(200),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dataflow_records_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "dataflow_runs" (
    "id" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "pack_id" VARCHAR(128) NOT NULL,
    "pack_version" VARCHAR(64) NOT NULL,
    "trigger_key" VARCHAR(500) NOT NULL,
    "trigger_kind" VARCHAR(32) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "progress" JSONB NOT NULL DEFAULT '{}',
    "result" JSONB,
    "error" TEXT,
    "requested_by" VARCHAR(255),
    "started_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(6),

    CONSTRAINT "dataflow_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dataflow_breaks" (
    "seq" BIGSERIAL NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "run_id" VARCHAR(64) NOT NULL,
    "reconciliation" VARCHAR(200) NOT NULL,
    "category" VARCHAR(32) NOT NULL,
    "record_key" VARCHAR(500) NOT NULL,
    "detail" JSONB NOT NULL,

    CONSTRAINT "dataflow_breaks_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "dataflow_evidence" (
    "run_id" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "sha256" CHAR(64) NOT NULL,
    "content" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dataflow_evidence_pkey" PRIMARY KEY ("run_id")
);

-- CreateTable
CREATE TABLE "dataflow_watermarks" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "pack_id" VARCHAR(128) NOT NULL,
    "input" VARCHAR(63) NOT NULL,
    "watermark" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dataflow_watermarks_pkey" PRIMARY KEY ("tenant_id","pack_id","input")
);

-- CreateIndex
CREATE INDEX "dataflow_records_tenant_id_dataset_seq_idx" ON "dataflow_records"("tenant_id", "dataset", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "dataflow_records_tenant_id_dataset_record_key_key" ON "dataflow_records"("tenant_id", "dataset", "record_key");

-- CreateIndex
CREATE INDEX "dataflow_runs_tenant_id_started_at_idx" ON "dataflow_runs"("tenant_id", "started_at");

-- CreateIndex
CREATE UNIQUE INDEX "dataflow_runs_tenant_id_pack_id_trigger_key_key" ON "dataflow_runs"("tenant_id", "pack_id", "trigger_key");

-- CreateIndex
CREATE INDEX "dataflow_breaks_tenant_id_run_id_seq_idx" ON "dataflow_breaks"("tenant_id", "run_id", "seq");

-- CreateIndex
CREATE INDEX "dataflow_evidence_tenant_id_created_at_idx" ON "dataflow_evidence"("tenant_id", "created_at");
