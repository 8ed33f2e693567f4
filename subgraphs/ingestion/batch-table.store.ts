// A whole batch staged into a table of its own (PostgreSQL only: it needs COPY from a client
// stream), in ONE transaction: the table created in schema ingestion_staged, the rows written by
// one `COPY ... FREEZE` (a table created in the same transaction: no shared key to maintain per
// row, the rows written frozen), a BRIN index on the offsets after the load, the batch row naming the table and
// the checkpoint moved from 0 to the end. Into the shared keyed table with the four lineage columns
// on every row, the same COPY cost 3-4x a plain COPY (issue 32, docs/benchmarks.md); the batch's
// own data (tenant, pipeline, dataset, source) is on the batch row once. Nothing is half-written: a
// crash, or a stream that throws (a record the caller declines), rolls the whole transaction back,
// table included.
import { ConflictError } from '../../platform/errors/domain-errors';
import type { SqlExecutor } from '../../platform/db/sql';
import type { Batch } from './pipeline.types';

export const BATCH_TABLE_SCHEMA = 'ingestion_staged';

/** The table of a batch: its id is a UUID, so the name is an identifier as it is. */
export const batchTableName = (batchId: string) => `b_${batchId.replace(/-/g, '').toLowerCase()}`;

export interface BatchTableStore {
  /**
   * Stages the batch from offset 0 from `rows`, COPY's text format (`offset\tjson\n`, offsets
   * 0, 1, 2...; a Buffer holds it as UTF-8); answers the rows staged. Throws what `rows` throws (or the server's error) with
   * nothing written, and a ConflictError when another runner has moved the batch on.
   */
  stage(
    tenantId: string,
    b: Batch,
    rows: AsyncIterable<string | Buffer>,
    /** Tests only: runs before the commit (the crash test holds the batch there). */
    beforeCommit?: () => Promise<void>,
  ): Promise<number>;
}

export function createBatchTableStore(sql: SqlExecutor): BatchTableStore | null {
  if (!sql.copyFrom) return null;
  return {
    async stage(tenantId, b, rows, beforeCommit) {
      const table = `${BATCH_TABLE_SCHEMA}.${batchTableName(b.id)}`;
      return sql.transaction(async (q) => {
        // The checkpoint row is held to the end: another runner of this batch waits, then finds it moved.
        const cp = await q.query<{ o: number }>(
          `SELECT committed_offset::float8 AS o FROM ingestion_checkpoints WHERE tenant_id = $1 AND batch_id = $2::uuid FOR UPDATE`,
          [tenantId, b.id],
        );
        if (cp.rows[0]?.o !== 0) throw new ConflictError('another runner has moved this batch on; this one stops');
        // A table left by an earlier staging of this batch that committed nothing cannot exist (it
        // would have rolled back with it); one that did commit moved the checkpoint.
        await q.exec(`CREATE TABLE ${table} (record_offset bigint NOT NULL, data text NOT NULL)`);
        const count = await q.copyFrom!(`COPY ${table} (record_offset, data) FROM STDIN WITH (FREEZE)`, rows);
        // The offsets are 0..count-1 in the order written, so a block-range index finds a page of
        // them (batch.store.ts reads `offset > after AND offset <= after + limit`) at a third of a
        // B-tree's build cost, which ran after the load with nothing to overlap it (issue 32's bench:
        // 170-260 ms against 100 ms of server CPU for 1,000,000 rows). Unique by construction.
        await q.exec(`CREATE INDEX ON ${table} USING brin (record_offset) WITH (pages_per_range = 16)`);
        await q.query(
          `UPDATE ingestion_checkpoints SET committed_offset = $3, updated_at = now() WHERE tenant_id = $1 AND batch_id = $2::uuid`,
          [tenantId, b.id, count],
        );
        await q.query(
          `UPDATE ingestion_batches SET rows_read = $3, rows_staged = rows_staged + $3, staged_table = $4
            WHERE tenant_id = $1 AND id = $2::uuid`,
          [tenantId, b.id, count, batchTableName(b.id)],
        );
        if (beforeCommit) await beforeCommit();
        return count;
      });
    },
  };
}
