-- Webhooks (issue 26 item 4, docs/webhooks.md): endpoints, secrets with rotation overlap, per-tenant
-- Ed25519 signing keys (JWKS), the delivery queue (claimed with FOR UPDATE SKIP LOCKED) and the
-- per-attempt delivery log.
-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "topics" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "timeout_ms" INTEGER NOT NULL DEFAULT 15000,
    "max_concurrency" INTEGER NOT NULL DEFAULT 4,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabled_at" TIMESTAMPTZ(6),

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_secrets" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6),

    CONSTRAINT "webhook_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_signing_keys" (
    "id" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "private_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6),

    CONSTRAINT "webhook_signing_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_queue" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" VARCHAR(255) NOT NULL,
    "event_type" VARCHAR(255) NOT NULL,
    "payload" TEXT NOT NULL,
    "status" VARCHAR(16) NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_until" TIMESTAMPTZ(6),
    "locked_by" VARCHAR(64),
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(6),

    CONSTRAINT "webhook_queue_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "queue_id" BIGINT NOT NULL,
    "event_id" VARCHAR(255) NOT NULL,
    "attempt" INTEGER NOT NULL,
    "outcome" VARCHAR(16) NOT NULL,
    "status_code" INTEGER,
    "response" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "attempted_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_tenant_id_created_at_idx" ON "webhook_endpoints"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_secrets_tenant_id_endpoint_id_created_at_idx" ON "webhook_secrets"("tenant_id", "endpoint_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_signing_keys_tenant_id_created_at_idx" ON "webhook_signing_keys"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_queue_status_next_attempt_at_idx" ON "webhook_queue"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_queue_endpoint_id_status_locked_until_idx" ON "webhook_queue"("endpoint_id", "status", "locked_until");

-- CreateIndex
CREATE INDEX "webhook_queue_tenant_id_created_at_idx" ON "webhook_queue"("tenant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_queue_endpoint_id_event_id_key" ON "webhook_queue"("endpoint_id", "event_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_tenant_id_endpoint_id_attempted_at_idx" ON "webhook_deliveries"("tenant_id", "endpoint_id", "attempted_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_queue_id_idx" ON "webhook_deliveries"("queue_id");
