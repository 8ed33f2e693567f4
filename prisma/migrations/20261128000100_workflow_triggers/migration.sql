-- CreateTable
CREATE TABLE "workflow_triggers" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "pack_id" VARCHAR(200) NOT NULL,
    "pack_version" VARCHAR(64) NOT NULL,
    "workflow_type" VARCHAR(32) NOT NULL,
    "topic" VARCHAR(200) NOT NULL,
    "filter" JSONB,
    "created_by" VARCHAR(255),
    "created_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "workflow_triggers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workflow_trigger_starts" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "trigger_id" UUID NOT NULL,
    "event_id" VARCHAR(255) NOT NULL,
    "workflow_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "workflow_trigger_starts_pkey" PRIMARY KEY ("tenant_id","trigger_id","event_id")
);

-- CreateIndex
CREATE INDEX "workflow_triggers_tenant_id_topic_idx" ON "workflow_triggers"("tenant_id", "topic");

-- CreateIndex
CREATE INDEX "workflow_triggers_topic_idx" ON "workflow_triggers"("topic");
