-- A span sent twice (an exporter's retry) was stored twice before; keep the first copy so the new key holds.
DELETE FROM "observability_spans" a USING "observability_spans" b
 WHERE a."trace_id" = b."trace_id" AND a."span_id" = b."span_id" AND a."id" > b."id";

-- DropIndex
DROP INDEX "observability_spans_received_at_idx";

-- DropIndex
DROP INDEX "observability_spans_trace_id_idx";

-- AlterTable
ALTER TABLE "observability_spans" DROP CONSTRAINT "observability_spans_pkey",
DROP COLUMN "id",
ADD CONSTRAINT "observability_spans_pkey" PRIMARY KEY ("trace_id", "span_id");

-- CreateIndex
CREATE INDEX "observability_spans_received_at_idx" ON "observability_spans" USING BRIN ("received_at");
