-- AlterTable
ALTER TABLE "ledger_chain_heads" ADD COLUMN     "tree_frontier" TEXT NOT NULL DEFAULT '';

-- CreateTable
CREATE TABLE "ledger_tree_nodes" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "level" SMALLINT NOT NULL,
    "node_index" BIGINT NOT NULL,
    "hash" CHAR(64) NOT NULL,

    CONSTRAINT "ledger_tree_nodes_pkey" PRIMARY KEY ("tenant_id","level","node_index")
);

-- CreateTable
CREATE TABLE "ledger_checkpoints" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "tree_size" BIGINT NOT NULL,
    "root_hash" CHAR(64) NOT NULL,
    "timestamp" VARCHAR(40) NOT NULL,
    "key_id" VARCHAR(64) NOT NULL,
    "signature" VARCHAR(128) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_checkpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_checkpoint_keys" (
    "key_id" VARCHAR(64) NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "private_pem" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(6),

    CONSTRAINT "ledger_checkpoint_keys_pkey" PRIMARY KEY ("key_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ledger_checkpoints_tenant_id_tree_size_key" ON "ledger_checkpoints"("tenant_id", "tree_size");
