// Retention of ingestion batches (platform/retention, record type `ingestion_batch`, swept by the
// ingestion service): a batch that has ended (completed, failed, quarantined) and was created
// before the tenant's cutoff loses its staged data: its own table (ingestion_staged.b_<batch>,
// batch-table.store.ts) is dropped, its rows in ingestion_staged_records and the quarantine are
// deleted, and the batch row and its checkpoint go with them (the same content sent again is a new
// batch). Kept: the run, its lineage events (counts only) and source schema changes; the manifest
// stays in the ledger. A running batch (one that may still be resumed) is never purged. Batches
// have no subject: a hold naming subjects does not keep them (a hold on the type does, purge-pass.ts).
import type { SqlQuery } from '../../platform/db/sql';
import { BATCH_TABLE_SCHEMA, batchTableName } from './batch-table.store';

/** At most `limit` of the tenant's ended batches created before `cutoff`, purged in the caller's transaction; how many. */
export async function purgeIngestionBatches(
  q: SqlQuery,
  tenantId: string,
  cutoff: Date,
  _heldSubjects: readonly string[],
  limit: number,
): Promise<number> {
  const gone = await q.query<{ id: string; staged_table: string | null }>(
    `DELETE FROM ingestion_batches WHERE id IN (
       SELECT id FROM ingestion_batches WHERE tenant_id = $1 AND created_at < $2 AND status <> 'running'
       ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED)
     RETURNING id::text, staged_table`,
    [tenantId, cutoff, limit],
  );
  const ids = gone.rows.map((r) => r.id);
  if (ids.length === 0) return 0;
  // The table's name is made from the batch id (a UUID), not read from the row.
  for (const r of gone.rows)
    if (r.staged_table) await q.exec(`DROP TABLE IF EXISTS ${BATCH_TABLE_SCHEMA}.${batchTableName(r.id)}`);
  for (const table of ['ingestion_staged_records', 'ingestion_quarantine', 'ingestion_checkpoints'])
    await q.query(`DELETE FROM ${table} WHERE tenant_id = $1 AND batch_id = ANY($2::uuid[])`, [tenantId, ids]);
  return ids.length;
}
