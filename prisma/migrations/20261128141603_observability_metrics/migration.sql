-- CreateTable
CREATE TABLE "observability_metric_series" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "labels" JSONB NOT NULL,
    "labels_key" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "observability_metric_series_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "observability_metric_samples" (
    "series_id" BIGINT NOT NULL,
    "time" TIMESTAMPTZ(6) NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "observability_metric_samples_pkey" PRIMARY KEY ("series_id","time")
);

-- CreateIndex
CREATE INDEX "observability_metric_series_last_seen_at_idx" ON "observability_metric_series"("last_seen_at");

-- CreateIndex
CREATE UNIQUE INDEX "observability_metric_series_tenant_id_name_labels_key_key" ON "observability_metric_series"("tenant_id", "name", "labels_key");

-- CreateIndex
CREATE INDEX "observability_metric_samples_time_idx" ON "observability_metric_samples"("time");
