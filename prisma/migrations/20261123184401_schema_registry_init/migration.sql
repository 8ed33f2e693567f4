-- CreateTable
CREATE TABLE "schema_subjects" (
    "owner" VARCHAR(255) NOT NULL,
    "name" VARCHAR(128) NOT NULL,
    "kind" VARCHAR(32) NOT NULL,
    "compatibility" VARCHAR(16) NOT NULL,
    "latest_version" VARCHAR(64) NOT NULL,
    "version_count" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schema_subjects_pkey" PRIMARY KEY ("owner","name")
);

-- CreateTable
CREATE TABLE "schema_versions" (
    "owner" VARCHAR(255) NOT NULL,
    "name" VARCHAR(128) NOT NULL,
    "version" VARCHAR(64) NOT NULL,
    "seq" INTEGER NOT NULL,
    "definition" JSON NOT NULL,
    "fingerprint" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(255),

    CONSTRAINT "schema_versions_pkey" PRIMARY KEY ("owner","name","version")
);

-- CreateIndex
CREATE INDEX "schema_subjects_name_idx" ON "schema_subjects"("name");

-- CreateIndex
CREATE UNIQUE INDEX "schema_versions_owner_name_seq_key" ON "schema_versions"("owner", "name", "seq");
