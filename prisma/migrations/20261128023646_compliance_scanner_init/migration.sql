-- CreateTable
CREATE TABLE "scanner_packs" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "pack_id" VARCHAR(200) NOT NULL,
    "version" VARCHAR(64) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "pack" JSON NOT NULL,
    "sha256" CHAR(64) NOT NULL,
    "author" VARCHAR(255) NOT NULL,
    "certified_by" VARCHAR(255),
    "certified_at" TIMESTAMPTZ(6),
    "signature" VARCHAR(200),
    "key_id" VARCHAR(100),
    "submitted_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scanner_packs_pkey" PRIMARY KEY ("tenant_id","pack_id","version")
);

-- CreateTable
CREATE TABLE "scanner_signing_keys" (
    "kid" VARCHAR(100) NOT NULL,
    "public_key_x" VARCHAR(100) NOT NULL,
    "private_key_pem" TEXT,
    "slot" VARCHAR(16),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(6),

    CONSTRAINT "scanner_signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateTable
CREATE TABLE "scanner_targets" (
    "id" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "path" TEXT,
    "settings" JSONB,
    "created_by" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scanner_targets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scanner_scans" (
    "id" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "target_id" VARCHAR(64) NOT NULL,
    "pack_id" VARCHAR(200) NOT NULL,
    "pack_version" VARCHAR(64) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "requested_by" VARCHAR(255) NOT NULL,
    "started_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(6),
    "files_scanned" INTEGER NOT NULL DEFAULT 0,
    "summary" JSONB,
    "error" TEXT,

    CONSTRAINT "scanner_scans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scanner_findings" (
    "id" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "target_id" VARCHAR(64) NOT NULL,
    "fingerprint" CHAR(64) NOT NULL,
    "rule_id" VARCHAR(200) NOT NULL,
    "pack_id" VARCHAR(200) NOT NULL,
    "pack_version" VARCHAR(64) NOT NULL,
    "severity" VARCHAR(16) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "path" TEXT NOT NULL,
    "line" INTEGER,
    "detail" VARCHAR(500),
    "controls" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "inline_skip" BOOLEAN NOT NULL DEFAULT false,
    "suppression_id" VARCHAR(64),
    "first_seen" TIMESTAMPTZ(6) NOT NULL,
    "last_seen" TIMESTAMPTZ(6) NOT NULL,
    "last_scan_id" VARCHAR(64) NOT NULL,

    CONSTRAINT "scanner_findings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scanner_suppressions" (
    "id" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "scope" VARCHAR(16) NOT NULL,
    "fingerprint" CHAR(64),
    "rule_id" VARCHAR(200),
    "path_glob" VARCHAR(500),
    "purl" VARCHAR(500),
    "owner" VARCHAR(255) NOT NULL,
    "justification" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "requested_by" VARCHAR(255) NOT NULL,
    "approver" VARCHAR(255),
    "workflow_id" VARCHAR(100),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_at" TIMESTAMPTZ(6),

    CONSTRAINT "scanner_suppressions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "scanner_signing_keys_slot_key" ON "scanner_signing_keys"("slot");

-- CreateIndex
CREATE INDEX "scanner_targets_tenant_id_idx" ON "scanner_targets"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "scanner_targets_tenant_id_name_key" ON "scanner_targets"("tenant_id", "name");

-- CreateIndex
CREATE INDEX "scanner_scans_tenant_id_target_id_idx" ON "scanner_scans"("tenant_id", "target_id");

-- CreateIndex
CREATE INDEX "scanner_findings_tenant_id_status_idx" ON "scanner_findings"("tenant_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "scanner_findings_tenant_id_target_id_fingerprint_key" ON "scanner_findings"("tenant_id", "target_id", "fingerprint");

-- CreateIndex
CREATE INDEX "scanner_suppressions_tenant_id_status_idx" ON "scanner_suppressions"("tenant_id", "status");
