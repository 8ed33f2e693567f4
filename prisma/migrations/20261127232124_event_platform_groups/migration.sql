-- CreateTable
CREATE TABLE "event_platform_groups" (
    "name" VARCHAR(200) NOT NULL,
    "topic" VARCHAR(200) NOT NULL,
    "max_deliveries" INTEGER NOT NULL,
    "ack_timeout_ms" INTEGER NOT NULL,
    "backoff_ms" INTEGER NOT NULL,
    "seen_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_platform_groups_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "event_platform_cursors" (
    "group_name" VARCHAR(200) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "position" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "event_platform_cursors_pkey" PRIMARY KEY ("group_name","tenant_id")
);

-- CreateIndex
CREATE INDEX "event_deliveries_subscription_state_visible_at_idx" ON "event_deliveries"("subscription", "state", "visible_at");
