-- CreateTable
CREATE TABLE "compliance_reports" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "id" UUID NOT NULL,
    "framework" VARCHAR(100) NOT NULL,
    "report_type" VARCHAR(64) NOT NULL,
    "period_start" TIMESTAMPTZ(6) NOT NULL,
    "period_end" TIMESTAMPTZ(6) NOT NULL,
    "period_label" VARCHAR(100) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "result" VARCHAR(16),
    "summary" JSONB NOT NULL DEFAULT '{}',
    "checkpoint" JSONB,
    "content_sha256" CHAR(64),
    "generated_by" VARCHAR(255),
    "generated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "submitted_by" VARCHAR(255),
    "submitted_at" TIMESTAMPTZ(6),
    "reviewed_by" VARCHAR(255),
    "reviewed_at" TIMESTAMPTZ(6),
    "review_notes" TEXT,
    "ledger_entry_id" UUID,
    "ledger_chain_hash" CHAR(64),

    CONSTRAINT "compliance_reports_pkey" PRIMARY KEY ("tenant_id","id")
);

-- CreateTable
CREATE TABLE "compliance_report_controls" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "report_id" UUID NOT NULL,
    "control_id" VARCHAR(100) NOT NULL,
    "title" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "freshness" VARCHAR(16) NOT NULL,
    "satisfied" BOOLEAN NOT NULL,
    "evidence_count" INTEGER NOT NULL,
    "last_collected_at" TIMESTAMPTZ(6),
    "expires_at" TIMESTAMPTZ(6),

    CONSTRAINT "compliance_report_controls_pkey" PRIMARY KEY ("tenant_id","report_id","control_id")
);

-- CreateTable
CREATE TABLE "compliance_report_evidence" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "report_id" UUID NOT NULL,
    "control_id" VARCHAR(100) NOT NULL,
    "item_id" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "content_sha256" CHAR(64) NOT NULL,
    "source" VARCHAR(300) NOT NULL,
    "collected_at" TIMESTAMPTZ(6) NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "ledger_entry_id" UUID,

    CONSTRAINT "compliance_report_evidence_pkey" PRIMARY KEY ("tenant_id","report_id","control_id","item_id")
);

-- CreateIndex
CREATE INDEX "compliance_reports_tenant_id_generated_at_idx" ON "compliance_reports"("tenant_id", "generated_at");
