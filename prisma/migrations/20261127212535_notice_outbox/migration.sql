-- CreateTable
CREATE TABLE "notice_outbox" (
    "id" BIGSERIAL NOT NULL,
    "event_id" VARCHAR(64) NOT NULL,
    "service" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "topic" VARCHAR(255) NOT NULL,
    "subject" VARCHAR(512) NOT NULL,
    "envelope" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(6),
    "last_error" TEXT,

    CONSTRAINT "notice_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "notice_outbox_event_id_key" ON "notice_outbox"("event_id");

-- CreateIndex
CREATE INDEX "notice_outbox_published_at_next_attempt_at_id_idx" ON "notice_outbox"("published_at", "next_attempt_at", "id");

-- CreateIndex
CREATE INDEX "notice_outbox_tenant_id_subject_id_idx" ON "notice_outbox"("tenant_id", "subject", "id");
