-- CreateTable
CREATE TABLE "observability_alert_rules" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "scope" VARCHAR(16) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "metric" VARCHAR(200) NOT NULL,
    "matchers" JSONB NOT NULL,
    "denominator_metric" VARCHAR(200),
    "denominator_matchers" JSONB,
    "op" VARCHAR(2) NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "window_seconds" INTEGER NOT NULL,
    "for_seconds" INTEGER NOT NULL,
    "severity" VARCHAR(32) NOT NULL,
    "summary" VARCHAR(1000) NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_by" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "observability_alert_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "observability_alert_states" (
    "rule_id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "state" VARCHAR(16) NOT NULL,
    "active_since" TIMESTAMPTZ(6),
    "fired_at" TIMESTAMPTZ(6),
    "resolved_at" TIMESTAMPTZ(6),
    "value" DOUBLE PRECISION,
    "notified" BOOLEAN NOT NULL DEFAULT false,
    "silenced_by" UUID,
    "evaluated_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "observability_alert_states_pkey" PRIMARY KEY ("rule_id")
);

-- CreateTable
CREATE TABLE "observability_silences" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "matchers" JSONB NOT NULL,
    "starts_at" TIMESTAMPTZ(6) NOT NULL,
    "ends_at" TIMESTAMPTZ(6) NOT NULL,
    "created_by" VARCHAR(255) NOT NULL,
    "comment" VARCHAR(1000) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "observability_silences_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "observability_alert_rules_tenant_id_name_key" ON "observability_alert_rules"("tenant_id", "name");

-- CreateIndex
CREATE INDEX "observability_alert_states_tenant_id_idx" ON "observability_alert_states"("tenant_id");

-- CreateIndex
CREATE INDEX "observability_silences_tenant_id_ends_at_idx" ON "observability_silences"("tenant_id", "ends_at");
