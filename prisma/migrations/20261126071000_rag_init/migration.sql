-- CreateTable
CREATE TABLE "rag_documents" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "level" VARCHAR(50) NOT NULL,
    "suite_id" VARCHAR(100),
    "module_id" VARCHAR(100),
    "entity_id" VARCHAR(100),
    "title" TEXT NOT NULL,
    "description" TEXT,
    "source_type" VARCHAR(100),
    "file_size" INTEGER,
    "access_level" VARCHAR(50) NOT NULL DEFAULT 'internal',
    "status" VARCHAR(50) NOT NULL DEFAULT 'active',
    "doc_metadata" JSONB NOT NULL DEFAULT '{}',
    "content_hash" VARCHAR(64) NOT NULL,
    "created_by" VARCHAR(255),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rag_documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rag_chunks" (
    "id" UUID NOT NULL,
    "document_id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "ord" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "content_hash" VARCHAR(64),
    "heading" TEXT,
    "token_count" INTEGER,
    "embedding" vector(384),
    "content_tsv" tsvector,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rag_chunks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rag_query_cache" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "query_hash" VARCHAR(64) NOT NULL,
    "query_text" TEXT NOT NULL,
    "query_embedding" vector(384),
    "answer" TEXT NOT NULL,
    "chunks_used" INTEGER NOT NULL DEFAULT 0,
    "document_sources" JSONB NOT NULL DEFAULT '[]',
    "document_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "model" VARCHAR(100),
    "tokens_used" INTEGER NOT NULL DEFAULT 0,
    "context_scope" JSONB NOT NULL,
    "scope_key" VARCHAR(320) NOT NULL,
    "hit_count" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "rag_query_cache_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rag_conversations" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "user_id" VARCHAR(255),
    "context" JSONB NOT NULL DEFAULT '{}',
    "status" VARCHAR(20) NOT NULL DEFAULT 'open',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rag_conversations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rag_messages" (
    "id" UUID NOT NULL,
    "conversation_id" UUID NOT NULL,
    "role" VARCHAR(20) NOT NULL,
    "content" TEXT NOT NULL,
    "chunks_used" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rag_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rag_ingest_jobs" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "percent" INTEGER NOT NULL DEFAULT 0,
    "stage" VARCHAR(50),
    "document_id" UUID,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rag_ingest_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "rag_documents_tenant_id_status_level_idx" ON "rag_documents"("tenant_id", "status", "level");

-- CreateIndex
CREATE INDEX "rag_documents_tenant_id_content_hash_idx" ON "rag_documents"("tenant_id", "content_hash");

-- CreateIndex
CREATE INDEX "rag_chunks_document_id_ord_idx" ON "rag_chunks"("document_id", "ord");

-- CreateIndex
CREATE INDEX "rag_chunks_tenant_id_idx" ON "rag_chunks"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "rag_query_cache_query_hash_key" ON "rag_query_cache"("query_hash");

-- CreateIndex
CREATE INDEX "rag_query_cache_tenant_id_scope_key_expires_at_idx" ON "rag_query_cache"("tenant_id", "scope_key", "expires_at");

-- CreateIndex
CREATE INDEX "rag_conversations_tenant_id_idx" ON "rag_conversations"("tenant_id");

-- CreateIndex
CREATE INDEX "rag_messages_conversation_id_created_at_idx" ON "rag_messages"("conversation_id", "created_at");

-- CreateIndex
CREATE INDEX "rag_ingest_jobs_tenant_id_idx" ON "rag_ingest_jobs"("tenant_id");

-- AddForeignKey
ALTER TABLE "rag_chunks" ADD CONSTRAINT "rag_chunks_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "rag_documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rag_messages" ADD CONSTRAINT "rag_messages_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "rag_conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- pgvector's approximate nearest-neighbour indexes (cosine) and the full-text index: Prisma
-- cannot express them, so they live here only. They are partial (the column IS NOT NULL; every
-- query says so) because the schema diff ignores partial indexes but would drop a plain one on
-- an Unsupported column.
CREATE INDEX "rag_chunks_embedding_hnsw" ON "rag_chunks" USING hnsw ("embedding" vector_cosine_ops) WHERE "embedding" IS NOT NULL;
CREATE INDEX "rag_chunks_content_fts" ON "rag_chunks" USING gin ("content_tsv") WHERE "content_tsv" IS NOT NULL;
CREATE INDEX "rag_query_cache_embedding_hnsw" ON "rag_query_cache" USING hnsw ("query_embedding" vector_cosine_ops) WHERE "query_embedding" IS NOT NULL;
