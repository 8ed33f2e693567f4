-- CreateTable
CREATE TABLE "rulepacks" (
    "pack_id" VARCHAR(200) NOT NULL,
    "owner_tenant" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rulepacks_pkey" PRIMARY KEY ("pack_id")
);

-- CreateTable
CREATE TABLE "rulepack_versions" (
    "pack_id" VARCHAR(200) NOT NULL,
    "version" VARCHAR(64) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "pack" JSON NOT NULL,
    "sha256" CHAR(64) NOT NULL,
    "owner_tenant" VARCHAR(255) NOT NULL,
    "author" VARCHAR(255) NOT NULL,
    "reviewers" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "submitted_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "certified_at" TIMESTAMPTZ(6),
    "signature" VARCHAR(200),
    "key_id" VARCHAR(100),
    "deprecated_at" TIMESTAMPTZ(6),
    "replacement_pack_id" VARCHAR(200),
    "replacement_version" VARCHAR(64),

    CONSTRAINT "rulepack_versions_pkey" PRIMARY KEY ("pack_id","version")
);

-- CreateTable
CREATE TABLE "rulepack_decisions" (
    "id" UUID NOT NULL,
    "pack_id" VARCHAR(200) NOT NULL,
    "version" VARCHAR(64) NOT NULL,
    "decision" VARCHAR(32) NOT NULL,
    "actor" VARCHAR(255) NOT NULL,
    "from_state" VARCHAR(16),
    "to_state" VARCHAR(16) NOT NULL,
    "notes" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rulepack_decisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rulepack_signing_keys" (
    "kid" VARCHAR(100) NOT NULL,
    "public_key_x" VARCHAR(100) NOT NULL,
    "private_key_pem" TEXT,
    "slot" VARCHAR(16),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(6),

    CONSTRAINT "rulepack_signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE INDEX "rulepacks_owner_tenant_idx" ON "rulepacks"("owner_tenant");

-- CreateIndex
CREATE INDEX "rulepack_versions_status_pack_id_version_idx" ON "rulepack_versions"("status", "pack_id", "version");

-- CreateIndex
CREATE INDEX "rulepack_versions_owner_tenant_status_pack_id_version_idx" ON "rulepack_versions"("owner_tenant", "status", "pack_id", "version");

-- CreateIndex
CREATE INDEX "rulepack_decisions_pack_id_version_created_at_idx" ON "rulepack_decisions"("pack_id", "version", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "rulepack_signing_keys_slot_key" ON "rulepack_signing_keys"("slot");

-- AddForeignKey
ALTER TABLE "rulepack_versions" ADD CONSTRAINT "rulepack_versions_pack_id_fkey" FOREIGN KEY ("pack_id") REFERENCES "rulepacks"("pack_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rulepack_decisions" ADD CONSTRAINT "rulepack_decisions_pack_id_version_fkey" FOREIGN KEY ("pack_id", "version") REFERENCES "rulepack_versions"("pack_id", "version") ON DELETE CASCADE ON UPDATE CASCADE;
