-- Checksum cells for the checksum-and-split diff (issue 33). Each record gets its cell (a 16-bit
-- hash of its key: 65,536 cells a dataset) and its row checksum (a 64-bit hash of key and data)
-- as generated columns, so no writer can leave them out or get them wrong; dataflow_cells holds
-- each cell's record count and checksum sum, kept by statement-level triggers over transition
-- tables in the writing transaction (one grouped upsert per statement, whoever writes: the
-- store's upserts, SQL loads, deletes). Cell -1 holds the dataset's totals: a diff reads them
-- and a sample of cells first, and a dataset with records but no cell -1 has no cells (written
-- past the trigger; the diff then cuts key ranges). Prisma sees the two columns as plain columns.

-- AlterTable
ALTER TABLE "dataflow_records"
  ADD COLUMN "cell" INTEGER NOT NULL GENERATED ALWAYS AS (hashtext("record_key") & 65535) STORED,
  ADD COLUMN "row_hash" BIGINT NOT NULL GENERATED ALWAYS AS (hashtextextended("record_key" || '|' || "data"::text, 0)) STORED;

-- CreateTable
CREATE TABLE "dataflow_cells" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "dataset" VARCHAR(300) NOT NULL,
    "cell" INTEGER NOT NULL,
    "n" BIGINT NOT NULL,
    "s" DECIMAL(40,0) NOT NULL,

    CONSTRAINT "dataflow_cells_pkey" PRIMARY KEY ("tenant_id","dataset","cell")
);

-- CreateIndex
CREATE INDEX "dataflow_records_tenant_id_dataset_cell_idx" ON "dataflow_records"("tenant_id", "dataset", "cell");

-- The records there before this migration.
INSERT INTO "dataflow_cells" ("tenant_id", "dataset", "cell", "n", "s")
SELECT "tenant_id", "dataset", coalesce("cell", -1), count(*), sum("row_hash") FROM "dataflow_records"
 GROUP BY GROUPING SETS (("tenant_id", "dataset", "cell"), ("tenant_id", "dataset"));

-- Adds each cell's change (count and checksum sum, signed) to dataflow_cells. The cells are
-- upserted in key order, so two writers to one dataset wait for each other instead of deadlocking.
CREATE FUNCTION dataflow_cells_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO dataflow_cells (tenant_id, dataset, cell, n, s)
    SELECT tenant_id, dataset, coalesce(cell, -1), count(*), sum(row_hash) FROM dataflow_cells_new
     GROUP BY GROUPING SETS ((tenant_id, dataset, cell), (tenant_id, dataset)) ORDER BY 1, 2, 3
    ON CONFLICT (tenant_id, dataset, cell) DO UPDATE SET n = dataflow_cells.n + EXCLUDED.n, s = dataflow_cells.s + EXCLUDED.s;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO dataflow_cells (tenant_id, dataset, cell, n, s)
    SELECT tenant_id, dataset, coalesce(cell, -1), sum(dn), sum(dh)
      FROM (SELECT tenant_id, dataset, cell, 1 AS dn, row_hash::numeric AS dh FROM dataflow_cells_new
            UNION ALL
            SELECT tenant_id, dataset, cell, -1, -(row_hash::numeric) FROM dataflow_cells_old) AS d
     GROUP BY GROUPING SETS ((tenant_id, dataset, cell), (tenant_id, dataset))
    HAVING sum(dn) <> 0 OR sum(dh) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (tenant_id, dataset, cell) DO UPDATE SET n = dataflow_cells.n + EXCLUDED.n, s = dataflow_cells.s + EXCLUDED.s;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE dataflow_cells c SET n = c.n - d.n, s = c.s - d.s
      FROM (SELECT tenant_id, dataset, coalesce(cell, -1) AS cell, count(*) AS n, sum(row_hash) AS s FROM dataflow_cells_old
             GROUP BY GROUPING SETS ((tenant_id, dataset, cell), (tenant_id, dataset))) AS d
     WHERE c.tenant_id = d.tenant_id AND c.dataset = d.dataset AND c.cell = d.cell;
  ELSE
    DELETE FROM dataflow_cells;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER dataflow_cells_insert AFTER INSERT ON "dataflow_records"
  REFERENCING NEW TABLE AS dataflow_cells_new FOR EACH STATEMENT EXECUTE FUNCTION dataflow_cells_apply();
CREATE TRIGGER dataflow_cells_update AFTER UPDATE ON "dataflow_records"
  REFERENCING OLD TABLE AS dataflow_cells_old NEW TABLE AS dataflow_cells_new FOR EACH STATEMENT EXECUTE FUNCTION dataflow_cells_apply();
CREATE TRIGGER dataflow_cells_delete AFTER DELETE ON "dataflow_records"
  REFERENCING OLD TABLE AS dataflow_cells_old FOR EACH STATEMENT EXECUTE FUNCTION dataflow_cells_apply();
CREATE TRIGGER dataflow_cells_truncate AFTER TRUNCATE ON "dataflow_records"
  FOR EACH STATEMENT EXECUTE FUNCTION dataflow_cells_apply();
