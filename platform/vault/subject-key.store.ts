// The only code that reads and writes subject_keys: one live key per (tenant, subject reference),
// wrapped under the master key; destroying a subject's keys clears the wrapped key for good.
// Every function takes the tenant id first.
import { randomUUID } from 'node:crypto';
import type { SqlQuery } from '../db/sql';

export interface SubjectKeyRow {
  id: string;
  generation: number;
  /** Null once destroyed. */
  wrappedKey: string | null;
}

interface Row {
  id: string;
  generation: number;
  wrapped_key: string | null;
}

const toKey = (r: Row): SubjectKeyRow => ({ id: r.id, generation: Number(r.generation), wrappedKey: r.wrapped_key });

/** The subject's live key, or null (never sealed, or erased since). */
export async function liveSubjectKey(q: SqlQuery, tenantId: string, subjectRef: string): Promise<SubjectKeyRow | null> {
  const res = await q.query<Row>(
    `SELECT id::text, generation, wrapped_key FROM subject_keys
     WHERE tenant_id = $1 AND subject_ref = $2 AND destroyed_at IS NULL ORDER BY generation DESC LIMIT 1`,
    [tenantId, subjectRef],
  );
  return res.rows[0] ? toKey(res.rows[0]) : null;
}

/**
 * Inserts the subject's next key generation; false when another writer inserted that generation
 * first (the caller reads the live key again).
 */
export async function insertSubjectKey(
  q: SqlQuery,
  tenantId: string,
  subjectRef: string,
  wrappedKey: string,
): Promise<boolean> {
  const res = await q.query(
    `INSERT INTO subject_keys (id, tenant_id, subject_ref, generation, wrapped_key)
     SELECT $1::uuid, $2::text, $3::text, COALESCE(max(generation) + 1, 0), $4::text FROM subject_keys
     WHERE tenant_id = $2::text AND subject_ref = $3::text
     ON CONFLICT (tenant_id, subject_ref, generation) DO NOTHING`,
    [randomUUID(), tenantId, subjectRef, wrappedKey],
  );
  return res.rowCount > 0;
}

/** Keys by id within the tenant (another tenant's key is simply not found). */
export async function subjectKeysByIds(
  q: SqlQuery,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, SubjectKeyRow>> {
  if (ids.length === 0) return new Map();
  const res = await q.query<Row>(
    `SELECT id::text, generation, wrapped_key FROM subject_keys WHERE tenant_id = $1 AND id = ANY($2::uuid[])`,
    [tenantId, [...new Set(ids)]],
  );
  return new Map(res.rows.map((r) => [r.id, toKey(r)]));
}

/** How many keys (live or destroyed) the subject has in the tenant: zero means the tenant never held its data. */
export async function subjectKeyCount(q: SqlQuery, tenantId: string, subjectRef: string): Promise<number> {
  const res = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM subject_keys WHERE tenant_id = $1 AND subject_ref = $2`,
    [tenantId, subjectRef],
  );
  return Number(res.rows[0]?.n ?? 0);
}

/** Destroys the subject's live keys (the wrapped key is overwritten, not kept); how many. */
export async function destroySubjectKeys(q: SqlQuery, tenantId: string, subjectRef: string): Promise<number> {
  const res = await q.query(
    `UPDATE subject_keys SET wrapped_key = NULL, destroyed_at = now()
     WHERE tenant_id = $1 AND subject_ref = $2 AND destroyed_at IS NULL`,
    [tenantId, subjectRef],
  );
  return res.rowCount;
}
