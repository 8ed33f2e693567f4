-- CreateTable
CREATE TABLE "retention_policies" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "record_type" VARCHAR(64) NOT NULL,
    "retain_days" INTEGER NOT NULL,
    "updated_by" VARCHAR(255),
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retention_policies_pkey" PRIMARY KEY ("tenant_id","record_type")
);

-- CreateTable
CREATE TABLE "legal_holds" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "record_type" VARCHAR(64),
    "subject_id" VARCHAR(255),
    "subject_ref" CHAR(64),
    "reason" TEXT NOT NULL,
    "placed_by" VARCHAR(255),
    "placed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "released_by" VARCHAR(255),
    "released_at" TIMESTAMPTZ(6),

    CONSTRAINT "legal_holds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subject_keys" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "subject_ref" CHAR(64) NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "wrapped_key" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "destroyed_at" TIMESTAMPTZ(6),

    CONSTRAINT "subject_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "erasure_requests" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "subject_ref" CHAR(64) NOT NULL,
    "keys_destroyed" INTEGER NOT NULL,
    "reason" TEXT,
    "requested_by" VARCHAR(255),
    "requested_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "erasure_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "retention_policies_record_type_idx" ON "retention_policies"("record_type");

-- CreateIndex
CREATE INDEX "legal_holds_tenant_id_released_at_idx" ON "legal_holds"("tenant_id", "released_at");

-- CreateIndex
CREATE UNIQUE INDEX "subject_keys_tenant_id_subject_ref_generation_key" ON "subject_keys"("tenant_id", "subject_ref", "generation");

-- CreateIndex
CREATE INDEX "erasure_requests_tenant_id_requested_at_idx" ON "erasure_requests"("tenant_id", "requested_at");
