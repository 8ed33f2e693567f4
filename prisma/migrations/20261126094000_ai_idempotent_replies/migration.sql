-- Idempotency-Key on POST /api/ai/inference (docs/ai-broker.md, "Idempotency-Key"): a retried
-- request with the same key and body is answered from here instead of running the model again.
-- CreateTable
CREATE TABLE "ai_idempotent_replies" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "idempotency_key" VARCHAR(255) NOT NULL,
    "request_hash" CHAR(64) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "response" JSONB,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "ai_idempotent_replies_pkey" PRIMARY KEY ("tenant_id","idempotency_key")
);

-- CreateIndex
CREATE INDEX "ai_idempotent_replies_expires_at_idx" ON "ai_idempotent_replies"("expires_at");
