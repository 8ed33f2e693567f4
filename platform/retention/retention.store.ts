// The only code that reads and writes retention_policies and legal_holds. Tenant reads take the
// tenant id first; the sweeper's reads across tenants (`policiesOfType`, `activeHoldsOf`) are the
// owning services' view of what to purge.
import { randomUUID } from 'node:crypto';
import type { SqlQuery } from '../db/sql';
import type { LegalHold, RecordType, RetentionPolicy } from './retention.types';

interface PolicyRow {
  tenant_id: string;
  record_type: string;
  retain_days: number;
  updated_by: string | null;
  updated_ms: number;
}

interface HoldRow {
  id: string;
  tenant_id: string;
  record_type: string | null;
  subject_id: string | null;
  subject_ref: string | null;
  reason: string;
  placed_by: string | null;
  placed_ms: number;
  released_by: string | null;
  released_ms: number | null;
}

const POLICY_COLUMNS = `tenant_id, record_type, retain_days, updated_by, (extract(epoch FROM updated_at) * 1000)::float8 AS updated_ms`;
const HOLD_COLUMNS = `id::text, tenant_id, record_type, subject_id, subject_ref, reason, placed_by,
  (extract(epoch FROM placed_at) * 1000)::float8 AS placed_ms, released_by,
  (extract(epoch FROM released_at) * 1000)::float8 AS released_ms`;

const toPolicy = (r: PolicyRow): RetentionPolicy => ({
  tenantId: r.tenant_id,
  recordType: r.record_type as RecordType,
  retainDays: Number(r.retain_days),
  updatedBy: r.updated_by,
  updatedAt: new Date(Number(r.updated_ms)),
});

const toHold = (r: HoldRow): LegalHold => ({
  id: r.id,
  tenantId: r.tenant_id,
  recordType: r.record_type as RecordType | null,
  subjectId: r.subject_id,
  subjectRef: r.subject_ref?.trim() ?? null,
  reason: r.reason,
  placedBy: r.placed_by,
  placedAt: new Date(Number(r.placed_ms)),
  releasedBy: r.released_by,
  releasedAt: r.released_ms === null ? null : new Date(Number(r.released_ms)),
});

export async function upsertPolicy(
  q: SqlQuery,
  tenantId: string,
  recordType: RecordType,
  retainDays: number,
  actor: string | null,
): Promise<RetentionPolicy> {
  const res = await q.query<PolicyRow>(
    `INSERT INTO retention_policies (tenant_id, record_type, retain_days, updated_by, updated_at) VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (tenant_id, record_type) DO UPDATE SET retain_days = EXCLUDED.retain_days, updated_by = EXCLUDED.updated_by, updated_at = now()
     RETURNING ${POLICY_COLUMNS}`,
    [tenantId, recordType, retainDays, actor],
  );
  return toPolicy(res.rows[0]!);
}

export async function deletePolicy(q: SqlQuery, tenantId: string, recordType: RecordType): Promise<boolean> {
  const res = await q.query(`DELETE FROM retention_policies WHERE tenant_id = $1 AND record_type = $2`, [
    tenantId,
    recordType,
  ]);
  return res.rowCount > 0;
}

export async function policiesOf(q: SqlQuery, tenantId: string): Promise<RetentionPolicy[]> {
  const res = await q.query<PolicyRow>(
    `SELECT ${POLICY_COLUMNS} FROM retention_policies WHERE tenant_id = $1 ORDER BY record_type`,
    [tenantId],
  );
  return res.rows.map(toPolicy);
}

/** Every tenant's policy for one record type (the owning service's sweep). */
export async function policiesOfType(q: SqlQuery, recordType: RecordType): Promise<RetentionPolicy[]> {
  const res = await q.query<PolicyRow>(
    `SELECT ${POLICY_COLUMNS} FROM retention_policies WHERE record_type = $1 ORDER BY tenant_id`,
    [recordType],
  );
  return res.rows.map(toPolicy);
}

export async function insertHold(
  q: SqlQuery,
  tenantId: string,
  hold: { recordType: RecordType | null; subjectId: string | null; subjectRef: string | null; reason: string },
  actor: string | null,
): Promise<LegalHold> {
  const res = await q.query<HoldRow>(
    `INSERT INTO legal_holds (id, tenant_id, record_type, subject_id, subject_ref, reason, placed_by)
     VALUES ($1::uuid, $2, $3, $4, $5, $6, $7) RETURNING ${HOLD_COLUMNS}`,
    [randomUUID(), tenantId, hold.recordType, hold.subjectId, hold.subjectRef, hold.reason, actor],
  );
  return toHold(res.rows[0]!);
}

export async function holdOf(q: SqlQuery, tenantId: string, id: string): Promise<LegalHold | null> {
  const res = await q.query<HoldRow>(`SELECT ${HOLD_COLUMNS} FROM legal_holds WHERE tenant_id = $1 AND id = $2::uuid`, [
    tenantId,
    id,
  ]);
  return res.rows[0] ? toHold(res.rows[0]) : null;
}

/** Releases an active hold; null when the tenant has no such active hold. */
export async function releaseHold(
  q: SqlQuery,
  tenantId: string,
  id: string,
  actor: string | null,
): Promise<LegalHold | null> {
  const res = await q.query<HoldRow>(
    `UPDATE legal_holds SET released_by = $3, released_at = now()
     WHERE tenant_id = $1 AND id = $2::uuid AND released_at IS NULL RETURNING ${HOLD_COLUMNS}`,
    [tenantId, id, actor],
  );
  return res.rows[0] ? toHold(res.rows[0]) : null;
}

/** The tenant's holds, active first, newest first. */
export async function holdsOf(q: SqlQuery, tenantId: string, activeOnly = false): Promise<LegalHold[]> {
  const res = await q.query<HoldRow>(
    `SELECT ${HOLD_COLUMNS} FROM legal_holds WHERE tenant_id = $1 ${activeOnly ? 'AND released_at IS NULL' : ''}
     ORDER BY released_at IS NOT NULL, placed_at DESC, id LIMIT 1000`,
    [tenantId],
  );
  return res.rows.map(toHold);
}

/** Active holds of the given tenants (the sweep reads them once per pass). */
export async function activeHoldsOf(q: SqlQuery, tenantIds: readonly string[]): Promise<LegalHold[]> {
  if (tenantIds.length === 0) return [];
  const res = await q.query<HoldRow>(
    `SELECT ${HOLD_COLUMNS} FROM legal_holds WHERE tenant_id = ANY($1::text[]) AND released_at IS NULL`,
    [[...new Set(tenantIds)]],
  );
  return res.rows.map(toHold);
}

/** Forgets the subject's id in the tenant's released holds (an erasure): only its reference stays. */
export async function forgetHoldSubject(q: SqlQuery, tenantId: string, subjectRef: string): Promise<number> {
  const res = await q.query(
    `UPDATE legal_holds SET subject_id = NULL WHERE tenant_id = $1 AND subject_ref = $2 AND released_at IS NOT NULL AND subject_id IS NOT NULL`,
    [tenantId, subjectRef],
  );
  return res.rowCount;
}
