-- CreateTable
CREATE TABLE "workflow_executions" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "pack_id" VARCHAR(200) NOT NULL,
    "pack_version" VARCHAR(64),
    "pack_source" VARCHAR(16) NOT NULL,
    "workflow_type" VARCHAR(32) NOT NULL,
    "status" VARCHAR(32) NOT NULL,
    "requires_approval" BOOLEAN NOT NULL,
    "pack" JSONB NOT NULL,
    "payload" JSONB NOT NULL,
    "metadata" JSONB NOT NULL,
    "context" JSONB NOT NULL,
    "requested_by" VARCHAR(255),
    "correlation_id" VARCHAR(255) NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "compensation" JSONB,
    "lease_owner" VARCHAR(100),
    "lease_expires_at" TIMESTAMPTZ(6),
    "next_run_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL,
    "completed_at" TIMESTAMPTZ(6),

    CONSTRAINT "workflow_executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workflow_steps" (
    "workflow_id" UUID NOT NULL,
    "path" VARCHAR(400) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "step" VARCHAR(200) NOT NULL,
    "type" VARCHAR(32) NOT NULL,
    "action" VARCHAR(200),
    "compensation" VARCHAR(200),
    "idempotency_key" VARCHAR(600) NOT NULL,
    "status" VARCHAR(32) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "output" JSONB,
    "error" TEXT,
    "started_at" TIMESTAMPTZ(6),
    "finished_at" TIMESTAMPTZ(6),
    "completed_seq" INTEGER,
    "compensation_status" VARCHAR(32),
    "compensation_attempts" INTEGER NOT NULL DEFAULT 0,
    "compensation_error" TEXT,
    "compensated_at" TIMESTAMPTZ(6),

    CONSTRAINT "workflow_steps_pkey" PRIMARY KEY ("workflow_id","path")
);

-- CreateTable
CREATE TABLE "workflow_approval_tasks" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "workflow_id" UUID NOT NULL,
    "workflow_type" VARCHAR(32) NOT NULL,
    "step_path" VARCHAR(400) NOT NULL,
    "step" VARCHAR(200) NOT NULL,
    "payload" JSONB NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "reviewer" VARCHAR(255),
    "decision" VARCHAR(16),
    "notes" TEXT,
    "history" JSONB NOT NULL,
    "requested_by" VARCHAR(255),
    "reviewer_role" VARCHAR(100),
    "instructions" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "decided_at" TIMESTAMPTZ(6),
    "deadline_at" TIMESTAMPTZ(6) NOT NULL,
    "escalation_level" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "workflow_approval_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workflow_transitions" (
    "seq" BIGSERIAL NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "workflow_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "event" VARCHAR(64) NOT NULL,
    "status" VARCHAR(32) NOT NULL,
    "step" VARCHAR(200),
    "task_id" UUID,
    "detail" JSONB,
    "at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "workflow_transitions_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "workflow_timers" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "workflow_id" UUID NOT NULL,
    "kind" VARCHAR(32) NOT NULL,
    "task_id" UUID,
    "fire_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "workflow_timers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "workflow_executions_status_next_run_at_idx" ON "workflow_executions"("status", "next_run_at");

-- CreateIndex
CREATE INDEX "workflow_executions_tenant_id_created_at_idx" ON "workflow_executions"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "workflow_approval_tasks_tenant_id_status_created_at_idx" ON "workflow_approval_tasks"("tenant_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "workflow_approval_tasks_workflow_id_idx" ON "workflow_approval_tasks"("workflow_id");

-- CreateIndex
CREATE INDEX "workflow_transitions_tenant_id_event_seq_idx" ON "workflow_transitions"("tenant_id", "event", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "workflow_transitions_workflow_id_version_key" ON "workflow_transitions"("workflow_id", "version");

-- CreateIndex
CREATE INDEX "workflow_timers_fire_at_idx" ON "workflow_timers"("fire_at");
