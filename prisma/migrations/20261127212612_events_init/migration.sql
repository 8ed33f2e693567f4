-- CreateTable
CREATE TABLE "event_topics" (
    "owner" VARCHAR(255) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "version" INTEGER NOT NULL,
    "schema" JSONB NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_topics_pkey" PRIMARY KEY ("owner","name")
);

-- CreateTable
CREATE TABLE "event_streams" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "topic" VARCHAR(200) NOT NULL,
    "last_position" BIGINT NOT NULL DEFAULT 0,
    "bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "event_streams_pkey" PRIMARY KEY ("tenant_id","topic")
);

-- CreateTable
CREATE TABLE "event_records" (
    "id" VARCHAR(255) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "topic" VARCHAR(200) NOT NULL,
    "position" BIGINT NOT NULL,
    "source" VARCHAR(1024) NOT NULL,
    "type" VARCHAR(200) NOT NULL,
    "subject" VARCHAR(1024),
    "time" TIMESTAMPTZ(6) NOT NULL,
    "traceparent" VARCHAR(64),
    "data" JSONB NOT NULL,
    "size" INTEGER NOT NULL,

    CONSTRAINT "event_records_pkey" PRIMARY KEY ("tenant_id","id")
);

-- CreateTable
CREATE TABLE "event_subscriptions" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "topic" VARCHAR(200) NOT NULL,
    "position" BIGINT NOT NULL DEFAULT 0,
    "max_deliveries" INTEGER NOT NULL,
    "ack_timeout_ms" INTEGER NOT NULL,
    "backoff_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_subscriptions_pkey" PRIMARY KEY ("tenant_id","name")
);

-- CreateTable
CREATE TABLE "event_deliveries" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "subscription" VARCHAR(200) NOT NULL,
    "position" BIGINT NOT NULL,
    "event_id" VARCHAR(255) NOT NULL,
    "order_key" VARCHAR(1024) NOT NULL,
    "state" VARCHAR(16) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "visible_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_id" UUID,
    "last_error" TEXT,
    "dead_at" TIMESTAMPTZ(6),

    CONSTRAINT "event_deliveries_pkey" PRIMARY KEY ("tenant_id","subscription","position")
);

-- CreateIndex
CREATE INDEX "event_records_tenant_id_topic_time_idx" ON "event_records"("tenant_id", "topic", "time");

-- CreateIndex
CREATE UNIQUE INDEX "event_records_tenant_id_topic_position_key" ON "event_records"("tenant_id", "topic", "position");

-- CreateIndex
CREATE INDEX "event_deliveries_tenant_id_subscription_state_visible_at_idx" ON "event_deliveries"("tenant_id", "subscription", "state", "visible_at");

-- CreateIndex
CREATE INDEX "event_deliveries_tenant_id_subscription_order_key_position_idx" ON "event_deliveries"("tenant_id", "subscription", "order_key", "position");

-- CreateIndex
CREATE INDEX "event_deliveries_lease_id_idx" ON "event_deliveries"("lease_id");
