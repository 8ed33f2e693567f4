-- CreateTable
CREATE TABLE "pack_entries" (
    "id" UUID NOT NULL,
    "pack_id" VARCHAR(200) NOT NULL,
    "version" VARCHAR(64) NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "status" VARCHAR(16) NOT NULL,
    "owner_tenant" VARCHAR(255) NOT NULL,
    "author" VARCHAR(255),
    "reviewers" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "submitted_at" TIMESTAMPTZ(6) NOT NULL,
    "certified_at" TIMESTAMPTZ(6),
    "deprecated_at" TIMESTAMPTZ(6),
    "replacement_pack_id" VARCHAR(200),
    "replacement_version" VARCHAR(64),
    "artifact_format" VARCHAR(8) NOT NULL,
    "artifact_source" TEXT,
    "artifact_content" JSONB,
    "artifact_sha256" CHAR(64),
    "artifact_pointer" JSONB NOT NULL,
    "dependencies" JSONB NOT NULL,

    CONSTRAINT "pack_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "pack_entries_owner_tenant_pack_id_idx" ON "pack_entries"("owner_tenant", "pack_id");

-- CreateIndex
CREATE INDEX "pack_entries_status_pack_id_idx" ON "pack_entries"("status", "pack_id");

-- CreateIndex
CREATE UNIQUE INDEX "pack_entries_pack_id_version_key" ON "pack_entries"("pack_id", "version");
