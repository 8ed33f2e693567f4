-- CreateTable
CREATE TABLE "compliance_frameworks" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "framework" VARCHAR(100) NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "oscal_uuid" VARCHAR(64) NOT NULL,
    "title" TEXT NOT NULL,
    "version" VARCHAR(100) NOT NULL,
    "based_on" VARCHAR(1000),
    "sha256" CHAR(64) NOT NULL,
    "document" JSONB NOT NULL,
    "control_count" INTEGER NOT NULL,
    "imported_by" VARCHAR(255),
    "imported_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "compliance_frameworks_pkey" PRIMARY KEY ("tenant_id","framework")
);

-- CreateTable
CREATE TABLE "compliance_controls" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "framework" VARCHAR(100) NOT NULL,
    "control_id" VARCHAR(100) NOT NULL,
    "title" TEXT NOT NULL,
    "statement" TEXT NOT NULL,
    "parent_id" VARCHAR(100),
    "position" INTEGER NOT NULL,
    "maps_to" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "compliance_controls_pkey" PRIMARY KEY ("tenant_id","framework","control_id")
);

-- CreateTable
CREATE TABLE "compliance_control_links" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "framework" VARCHAR(100) NOT NULL,
    "control_id" VARCHAR(100) NOT NULL,
    "target_framework" VARCHAR(100) NOT NULL,
    "target_control_id" VARCHAR(100) NOT NULL,

    CONSTRAINT "compliance_control_links_pkey" PRIMARY KEY ("tenant_id","framework","control_id","target_framework","target_control_id")
);

-- CreateTable
CREATE TABLE "compliance_mapping_packs" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "pack_id" VARCHAR(200) NOT NULL,
    "version" VARCHAR(64) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "pack" JSON NOT NULL,
    "sha256" CHAR(64) NOT NULL,
    "author" VARCHAR(255) NOT NULL,
    "submitted_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "certified_by" VARCHAR(255),
    "certified_at" TIMESTAMPTZ(6),
    "signature" VARCHAR(200),
    "key_id" VARCHAR(100),

    CONSTRAINT "compliance_mapping_packs_pkey" PRIMARY KEY ("tenant_id","pack_id","version")
);

-- CreateTable
CREATE TABLE "compliance_evidence_items" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "id" UUID NOT NULL,
    "source" VARCHAR(300) NOT NULL,
    "event_id" VARCHAR(300),
    "event_type" VARCHAR(200),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(255),

    CONSTRAINT "compliance_evidence_items_pkey" PRIMARY KEY ("tenant_id","id")
);

-- CreateTable
CREATE TABLE "compliance_evidence_revisions" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "item_id" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "content" JSONB NOT NULL,
    "content_sha256" CHAR(64) NOT NULL,
    "collected_at" TIMESTAMPTZ(6) NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "recorded_by" VARCHAR(255),
    "ledger_entry_id" UUID,
    "ledger_chain_hash" CHAR(64),

    CONSTRAINT "compliance_evidence_revisions_pkey" PRIMARY KEY ("tenant_id","item_id","revision")
);

-- CreateTable
CREATE TABLE "compliance_evidence_controls" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "item_id" UUID NOT NULL,
    "framework" VARCHAR(100) NOT NULL,
    "control_id" VARCHAR(100) NOT NULL,

    CONSTRAINT "compliance_evidence_controls_pkey" PRIMARY KEY ("tenant_id","item_id","framework","control_id")
);

-- CreateTable
CREATE TABLE "compliance_intake" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "event_id" VARCHAR(300) NOT NULL,
    "topic" VARCHAR(200) NOT NULL,
    "item_id" UUID,
    "received_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "compliance_intake_pkey" PRIMARY KEY ("tenant_id","event_id")
);

-- CreateTable
CREATE TABLE "compliance_signing_keys" (
    "kid" VARCHAR(100) NOT NULL,
    "public_key_x" VARCHAR(100) NOT NULL,
    "private_key_pem" TEXT,
    "slot" VARCHAR(16),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(6),

    CONSTRAINT "compliance_signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE INDEX "compliance_control_links_tenant_id_target_framework_target__idx" ON "compliance_control_links"("tenant_id", "target_framework", "target_control_id");

-- CreateIndex
CREATE INDEX "compliance_mapping_packs_tenant_id_status_idx" ON "compliance_mapping_packs"("tenant_id", "status");

-- CreateIndex
CREATE INDEX "compliance_evidence_items_tenant_id_created_at_id_idx" ON "compliance_evidence_items"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "compliance_evidence_items_tenant_id_event_id_key" ON "compliance_evidence_items"("tenant_id", "event_id");

-- CreateIndex
CREATE INDEX "compliance_evidence_revisions_tenant_id_collected_at_idx" ON "compliance_evidence_revisions"("tenant_id", "collected_at");

-- CreateIndex
CREATE INDEX "compliance_evidence_controls_tenant_id_framework_control_id_idx" ON "compliance_evidence_controls"("tenant_id", "framework", "control_id");

-- CreateIndex
CREATE UNIQUE INDEX "compliance_signing_keys_slot_key" ON "compliance_signing_keys"("slot");
