-- CreateTable
CREATE TABLE "ocr_jobs" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "user_id" VARCHAR(255),
    "document_hash" CHAR(64) NOT NULL,
    "filename" VARCHAR(255),
    "mime_type" VARCHAR(100) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "tier_used" VARCHAR(16),
    "confidence_score" DOUBLE PRECISION,
    "extracted_text" TEXT,
    "extracted_fields" JSONB,
    "pages" JSONB NOT NULL DEFAULT '[]',
    "page_count" INTEGER NOT NULL DEFAULT 0,
    "pages_done" INTEGER NOT NULL DEFAULT 0,
    "processing_time_ms" INTEGER,
    "notes" JSONB NOT NULL DEFAULT '[]',
    "error" TEXT,
    "cache_hit" BOOLEAN NOT NULL DEFAULT false,
    "index_in_rag" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(6),

    CONSTRAINT "ocr_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ocr_reviews" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "job_id" UUID NOT NULL,
    "reviewer_id" VARCHAR(255),
    "corrected_text" TEXT NOT NULL,
    "corrected_fields" JSONB,
    "confidence_after_review" DOUBLE PRECISION NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ocr_reviews_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ocr_cache" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "document_hash" CHAR(64) NOT NULL,
    "job_id" UUID NOT NULL,
    "extracted_text" TEXT NOT NULL,
    "extracted_fields" JSONB,
    "tier_used" VARCHAR(16) NOT NULL,
    "confidence_score" DOUBLE PRECISION NOT NULL,
    "pages" JSONB NOT NULL DEFAULT '[]',
    "page_count" INTEGER NOT NULL DEFAULT 0,
    "hit_count" INTEGER NOT NULL DEFAULT 0,
    "last_accessed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ocr_cache_pkey" PRIMARY KEY ("tenant_id","document_hash")
);

-- CreateIndex
CREATE INDEX "ocr_jobs_tenant_id_created_at_idx" ON "ocr_jobs"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "ocr_jobs_tenant_id_status_idx" ON "ocr_jobs"("tenant_id", "status");

-- CreateIndex
CREATE INDEX "ocr_reviews_tenant_id_job_id_idx" ON "ocr_reviews"("tenant_id", "job_id");
