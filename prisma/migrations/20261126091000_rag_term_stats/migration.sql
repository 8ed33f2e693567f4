-- Term statistics for the full-text side of hybrid search (docs/rag.md, "Full-text side"): for
-- each tenant, how many of its active chunks hold each lexeme, and how many active chunks it has.
-- They give each query word its BM25 inverse document frequency and let the search match on the
-- rarest words first, so it never ranks most of a large corpus. Kept in the transaction that
-- indexes or soft-deletes a document.
CREATE TABLE "rag_term_stats" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "lexeme" TEXT NOT NULL,
    "chunks" INTEGER NOT NULL,

    CONSTRAINT "rag_term_stats_pkey" PRIMARY KEY ("tenant_id","lexeme")
);

-- CreateTable
CREATE TABLE "rag_corpus_stats" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "chunks" INTEGER NOT NULL,

    CONSTRAINT "rag_corpus_stats_pkey" PRIMARY KEY ("tenant_id")
);

-- The statistics of what is already indexed.
INSERT INTO "rag_term_stats" ("tenant_id", "lexeme", "chunks")
SELECT c."tenant_id", l, count(*)::int
FROM "rag_chunks" c JOIN "rag_documents" d ON d."id" = c."document_id" AND d."status" = 'active'
CROSS JOIN LATERAL unnest(tsvector_to_array(c."content_tsv")) AS l
WHERE c."content_tsv" IS NOT NULL
GROUP BY c."tenant_id", l;

INSERT INTO "rag_corpus_stats" ("tenant_id", "chunks")
SELECT c."tenant_id", count(*)::int
FROM "rag_chunks" c JOIN "rag_documents" d ON d."id" = c."document_id" AND d."status" = 'active'
GROUP BY c."tenant_id";
