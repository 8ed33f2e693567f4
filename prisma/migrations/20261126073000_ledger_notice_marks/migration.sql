-- CreateTable
CREATE TABLE "ledger_notice_marks" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "published_seq" BIGINT NOT NULL,

    CONSTRAINT "ledger_notice_marks_pkey" PRIMARY KEY ("tenant_id")
);

-- Events committed before this migration were announced by the old direct publish: start every
-- existing chain's mark at its head, so the relay does not replay history as live notices.
INSERT INTO "ledger_notice_marks" ("tenant_id", "published_seq")
SELECT "tenant_id", "last_seq" FROM "ledger_chain_heads";
