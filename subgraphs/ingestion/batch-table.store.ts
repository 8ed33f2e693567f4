// A whole batch staged into a table of its own (PostgreSQL only: it needs COPY from a client
// stream), in ONE transaction: the table created in schema ingestion_staged, the rows written by
// one `COPY ... FREEZE` (a table created in the same transaction: no shared key to maintain per
// row, the rows written frozen), a BRIN index on the offsets after the load, the batch row naming the table and
// the checkpoint moved from 0 to the end. Into the shared keyed table with the four lineage columns
// on every row, the same COPY cost 3-4x a plain COPY (issue 32, docs/benchmarks.md); the batch's
// own data (tenant, pipeline, dataset, source) is on the batch row once. Nothing is half-written: a
// crash, or a stream that throws (a record the caller declines), rolls the whole transaction back,
// table included.
// A pushed CSV may be staged early (stageEarly): the COPY begins into a table of a provisional name
// while the body is still arriving, before its SHA-256 names the batch; once the batch is opened the
// table is renamed to the batch's and the checkpoint moved, in the same one transaction, or the
// whole transaction rolls back (the content was a batch already begun or done: the usual path
// answers). A crash before that commit leaves no table, as above.
import { randomUUID } from 'node:crypto';
import { ConflictError } from '../../platform/errors/domain-errors';
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
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
  /**
   * The same, begun before the batch is known: `rows` are staged into a provisional table, then
   * `batch()` is awaited (inside the transaction) and the table attached to the batch it answers,
   * as stage() does. Null, with nothing written, when it answers null; throws as stage() does.
   */
  stageEarly(
    tenantId: string,
    rows: AsyncIterable<string | Buffer>,
    batch: () => Promise<Batch | null>,
    beforeCommit?: () => Promise<void>,
  ): Promise<number | null>;
}

/** Thrown inside the early transaction to roll it back when the batch was not this one's to stage. */
const NOT_ATTACHED = new Error('the early staging was not attached to a batch');

export function createBatchTableStore(sql: SqlExecutor): BatchTableStore | null {
  if (!sql.copyFrom) return null;
  /** The table of provisional name `table` made the batch's: checkpoint held, moved, batch row updated. */
  const attach = async (q: SqlQuery, tenantId: string, b: Batch, table: string, count: number) => {
    // The checkpoint row is held to the end: another runner of this batch waits, then finds it moved.
    const cp = await q.query<{ o: number }>(
      `SELECT committed_offset::float8 AS o FROM ingestion_checkpoints WHERE tenant_id = $1 AND batch_id = $2::uuid FOR UPDATE`,
      [tenantId, b.id],
    );
    if (cp.rows[0]?.o !== 0) throw new ConflictError('another runner has moved this batch on; this one stops');
    const name = batchTableName(b.id);
    if (table !== name) {
      await q.exec(`ALTER TABLE ${BATCH_TABLE_SCHEMA}.${table} RENAME TO ${name}`);
      // The index keeps the name stage() gives it.
      await q.exec(`ALTER INDEX ${BATCH_TABLE_SCHEMA}.${table}_record_offset_idx RENAME TO ${name}_record_offset_idx`);
    }
    await q.query(
      `UPDATE ingestion_checkpoints SET committed_offset = $3, updated_at = now() WHERE tenant_id = $1 AND batch_id = $2::uuid`,
      [tenantId, b.id, count],
    );
    await q.query(
      `UPDATE ingestion_batches SET rows_read = $3, rows_staged = rows_staged + $3, staged_table = $4
        WHERE tenant_id = $1 AND id = $2::uuid`,
      [tenantId, b.id, count, name],
    );
  };
  /** The table created and loaded, then its offsets indexed. */
  const load = async (q: SqlQuery, table: string, rows: AsyncIterable<string | Buffer>) => {
    const qualified = `${BATCH_TABLE_SCHEMA}.${table}`;
    await q.exec(`CREATE TABLE ${qualified} (record_offset bigint NOT NULL, data text NOT NULL)`);
    const count = await q.copyFrom!(`COPY ${qualified} (record_offset, data) FROM STDIN WITH (FREEZE)`, rows);
    // The offsets are 0..count-1 in the order written, so a block-range index finds a page of
    // them (batch.store.ts reads `offset > after AND offset <= after + limit`) at a third of a
    // B-tree's build cost, which ran after the load with nothing to overlap it (issue 32's bench:
    // 170-260 ms against 100 ms of server CPU for 1,000,000 rows). Unique by construction.
    await q.exec(
      `CREATE INDEX ${table}_record_offset_idx ON ${qualified} USING brin (record_offset) WITH (pages_per_range = 16)`,
    );
    return count;
  };
  return {
    async stage(tenantId, b, rows, beforeCommit) {
      return sql.transaction(async (q) => {
        // Checked before the load (and again, held, after it): a batch moved on stages nothing.
        const cp = await q.query<{ o: number }>(
          `SELECT committed_offset::float8 AS o FROM ingestion_checkpoints WHERE tenant_id = $1 AND batch_id = $2::uuid FOR UPDATE`,
          [tenantId, b.id],
        );
        if (cp.rows[0]?.o !== 0) throw new ConflictError('another runner has moved this batch on; this one stops');
        // A table left by an earlier staging of this batch that committed nothing cannot exist (it
        // would have rolled back with it); one that did commit moved the checkpoint.
        const table = batchTableName(b.id);
        const count = await load(q, table, rows);
        await attach(q, tenantId, b, table, count);
        if (beforeCommit) await beforeCommit();
        return count;
      });
    },

    async stageEarly(tenantId, rows, batch, beforeCommit) {
      // `p_` and 32 hex digits: an identifier as it is, never a batch's name.
      const table = `p_${randomUUID().replace(/-/g, '')}`;
      try {
        return await sql.transaction(async (q) => {
          const count = await load(q, table, rows);
          const b = await batch();
          if (!b || b.tenantId !== tenantId) throw NOT_ATTACHED;
          await attach(q, tenantId, b, table, count);
          if (beforeCommit) await beforeCommit();
          return count;
        });
      } catch (err) {
        if (err === NOT_ATTACHED) return null;
        throw err;
      }
    },
  };
}
