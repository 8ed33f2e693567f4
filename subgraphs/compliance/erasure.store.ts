// The only code that reads and writes erasure_requests: what was erased, by reference only. Every
// function takes the tenant id first.
import { randomUUID } from 'node:crypto';
import type { SqlQuery } from '../../platform/db/sql';

export interface ErasureRecord {
  id: string;
  subjectRef: string;
  keysDestroyed: number;
  reason: string | null;
  requestedBy: string | null;
  requestedAt: Date;
}

interface Row {
  id: string;
  subject_ref: string;
  keys_destroyed: number;
  reason: string | null;
  requested_by: string | null;
  requested_ms: number;
}

const COLUMNS = `id::text, subject_ref, keys_destroyed, reason, requested_by, (extract(epoch FROM requested_at) * 1000)::float8 AS requested_ms`;

const toRecord = (r: Row): ErasureRecord => ({
  id: r.id,
  subjectRef: r.subject_ref.trim(),
  keysDestroyed: Number(r.keys_destroyed),
  reason: r.reason,
  requestedBy: r.requested_by,
  requestedAt: new Date(Number(r.requested_ms)),
});

export async function insertErasure(
  q: SqlQuery,
  tenantId: string,
  e: { subjectRef: string; keysDestroyed: number; reason: string | null },
  actor: string | null,
): Promise<ErasureRecord> {
  const res = await q.query<Row>(
    `INSERT INTO erasure_requests (id, tenant_id, subject_ref, keys_destroyed, reason, requested_by)
     VALUES ($1::uuid, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [randomUUID(), tenantId, e.subjectRef, e.keysDestroyed, e.reason, actor],
  );
  return toRecord(res.rows[0]!);
}

/** The tenant's erasures, newest first. */
export async function erasuresOf(q: SqlQuery, tenantId: string, limit = 500): Promise<ErasureRecord[]> {
  const res = await q.query<Row>(
    `SELECT ${COLUMNS} FROM erasure_requests WHERE tenant_id = $1 ORDER BY requested_at DESC, id LIMIT $2`,
    [tenantId, limit],
  );
  return res.rows.map(toRecord);
}
