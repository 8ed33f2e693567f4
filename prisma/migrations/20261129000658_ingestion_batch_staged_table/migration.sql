-- A batch staged whole by the server (a CSV on PostgreSQL) gets a table of its own in this schema,
-- created and filled with COPY ... FREEZE and keyed after the load, in the staging transaction: a
-- COPY into the shared keyed table cost 3-4x a plain COPY (issue 32, docs/benchmarks.md). The
-- batch row names the table; the batch's own data (tenant, pipeline, dataset, source) is kept once
-- on the batch instead of on every row. Prisma does not manage the tables in this schema.
CREATE SCHEMA IF NOT EXISTS "ingestion_staged";

-- AlterTable
ALTER TABLE "ingestion_batches" ADD COLUMN     "staged_table" VARCHAR(63);
