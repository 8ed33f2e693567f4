-- CreateTable
CREATE TABLE "config_bundles" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255),
    "layer" VARCHAR(16) NOT NULL,
    "scope" VARCHAR(255) NOT NULL,
    "namespace" VARCHAR(100) NOT NULL,
    "version" INTEGER NOT NULL,
    "content" JSONB NOT NULL,
    "sha256" CHAR(64) NOT NULL,
    "schema_version" VARCHAR(64),
    "author" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "config_bundles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "config_changes" (
    "seq" BIGSERIAL NOT NULL,
    "tenant_id" VARCHAR(255),
    "layer" VARCHAR(16) NOT NULL,
    "scope" VARCHAR(255) NOT NULL,
    "namespace" VARCHAR(100) NOT NULL,
    "bundle_id" UUID NOT NULL,
    "previous_bundle_id" UUID,
    "percentage" INTEGER NOT NULL,
    "hash_by" VARCHAR(8) NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "rollout_id" UUID,
    "actor" VARCHAR(255) NOT NULL,
    "approved_by" VARCHAR(255),
    "signature" TEXT NOT NULL,
    "key_id" VARCHAR(64) NOT NULL,
    "at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "config_changes_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "config_rollouts" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255),
    "bundle_id" UUID NOT NULL,
    "percentage" INTEGER NOT NULL,
    "hash_by" VARCHAR(8) NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "requested_by" VARCHAR(255) NOT NULL,
    "approved_by" VARCHAR(255),
    "workflow_id" VARCHAR(100),
    "approval_task_id" VARCHAR(100),
    "scheduled_at" TIMESTAMPTZ(6),
    "change_seq" BIGINT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "config_rollouts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "config_signing_keys" (
    "kid" VARCHAR(64) NOT NULL,
    "private_pem" TEXT NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "config_signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE INDEX "config_bundles_tenant_id_idx" ON "config_bundles"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "config_bundles_layer_scope_namespace_version_key" ON "config_bundles"("layer", "scope", "namespace", "version");

-- CreateIndex
CREATE UNIQUE INDEX "config_bundles_layer_scope_namespace_sha256_key" ON "config_bundles"("layer", "scope", "namespace", "sha256");

-- CreateIndex
CREATE INDEX "config_changes_layer_scope_namespace_seq_idx" ON "config_changes"("layer", "scope", "namespace", "seq");

-- CreateIndex
CREATE INDEX "config_rollouts_status_idx" ON "config_rollouts"("status");

-- CreateIndex
CREATE INDEX "config_rollouts_bundle_id_idx" ON "config_rollouts"("bundle_id");
