-- CreateTable
CREATE TABLE "observability_spans" (
    "id" BIGSERIAL NOT NULL,
    "trace_id" CHAR(32) NOT NULL,
    "span_id" CHAR(16) NOT NULL,
    "parent_span_id" CHAR(16),
    "tenant_id" VARCHAR(255),
    "service" VARCHAR(128) NOT NULL,
    "name" VARCHAR(512) NOT NULL,
    "start_time" TIMESTAMPTZ(6) NOT NULL,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "error" BOOLEAN NOT NULL DEFAULT false,
    "attributes" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "observability_spans_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "observability_spans_trace_id_idx" ON "observability_spans"("trace_id");

-- CreateIndex
CREATE INDEX "observability_spans_tenant_id_start_time_idx" ON "observability_spans"("tenant_id", "start_time");

-- CreateIndex
CREATE INDEX "observability_spans_received_at_idx" ON "observability_spans"("received_at");
