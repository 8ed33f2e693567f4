// The only code that reads and writes suppressions; the tenant id comes first in every read
// except the expiry sweep's, which finds due suppressions across tenants (then acts per tenant).
import type { SqlQuery } from '../../platform/db/sql';
import type { Suppression, SuppressionScope, SuppressionStatus } from './scanner.types';

interface Row {
  id: string;
  tenant_id: string;
  scope: string;
  fingerprint: string | null;
  rule_id: string | null;
  path_glob: string | null;
  purl: string | null;
  owner: string;
  justification: string;
  expires_ms: number;
  status: string;
  requested_by: string;
  approver: string | null;
  workflow_id: string | null;
  created_ms: number;
  decided_ms: number | null;
}

const COLUMNS = `id, tenant_id, scope, fingerprint, rule_id, path_glob, purl, owner, justification,
  (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms, status, requested_by, approver, workflow_id,
  (extract(epoch FROM created_at) * 1000)::float8 AS created_ms, (extract(epoch FROM decided_at) * 1000)::float8 AS decided_ms`;

const toSuppression = (r: Row): Suppression => ({
  id: r.id,
  tenantId: r.tenant_id,
  scope: r.scope as SuppressionScope,
  fingerprint: r.fingerprint?.trim() ?? null,
  ruleId: r.rule_id,
  pathGlob: r.path_glob,
  purl: r.purl,
  owner: r.owner,
  justification: r.justification,
  expiresAt: new Date(Number(r.expires_ms)),
  status: r.status as SuppressionStatus,
  requestedBy: r.requested_by,
  approver: r.approver,
  workflowId: r.workflow_id,
  createdAt: new Date(Number(r.created_ms)),
  decidedAt: r.decided_ms === null ? null : new Date(Number(r.decided_ms)),
});

export const suppressionStore = {
  async insert(
    q: SqlQuery,
    tenantId: string,
    s: Omit<Suppression, 'tenantId' | 'createdAt' | 'decidedAt'>,
  ): Promise<void> {
    await q.query(
      `INSERT INTO scanner_suppressions (id, tenant_id, scope, fingerprint, rule_id, path_glob, purl, owner, justification,
         expires_at, status, requested_by, approver, workflow_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        s.id,
        tenantId,
        s.scope,
        s.fingerprint,
        s.ruleId,
        s.pathGlob,
        s.purl,
        s.owner,
        s.justification,
        s.expiresAt.toISOString(),
        s.status,
        s.requestedBy,
        s.approver,
        s.workflowId,
      ],
    );
  },

  async get(q: SqlQuery, tenantId: string, id: string, lock = false): Promise<Suppression | null> {
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM scanner_suppressions WHERE tenant_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
      [tenantId, id],
    );
    return rows[0] ? toSuppression(rows[0]) : null;
  },

  async list(q: SqlQuery, tenantId: string, status: SuppressionStatus | null, limit: number): Promise<Suppression[]> {
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM scanner_suppressions WHERE tenant_id = $1 AND ($2::text IS NULL OR status = $2)
       ORDER BY created_at DESC, id LIMIT $3`,
      [tenantId, status, limit],
    );
    return rows.map(toSuppression);
  },

  async byIds(q: SqlQuery, tenantId: string, ids: readonly string[]): Promise<Suppression[]> {
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM scanner_suppressions WHERE tenant_id = $1 AND id = ANY($2::text[])`,
      [tenantId, [...ids]],
    );
    return rows.map(toSuppression);
  },

  /** Approved and not expired at `now`: the ones a scan honours. */
  async inForce(q: SqlQuery, tenantId: string, now: Date): Promise<Suppression[]> {
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM scanner_suppressions WHERE tenant_id = $1 AND status = 'approved' AND expires_at > $2`,
      [tenantId, now.toISOString()],
    );
    return rows.map(toSuppression);
  },

  async decide(
    q: SqlQuery,
    tenantId: string,
    id: string,
    d: { status: SuppressionStatus; approver: string | null },
  ): Promise<void> {
    await q.query(
      `UPDATE scanner_suppressions SET status = $3, approver = COALESCE($4, approver), decided_at = COALESCE(decided_at, now())
       WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, d.status, d.approver],
    );
  },

  async setWorkflow(q: SqlQuery, tenantId: string, id: string, workflowId: string): Promise<void> {
    await q.query(`UPDATE scanner_suppressions SET workflow_id = $3 WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
      workflowId,
    ]);
  },

  /** Approved suppressions whose expiry has passed, every tenant's (the sweep), oldest first. */
  async due(q: SqlQuery, now: Date, limit: number): Promise<{ tenantId: string; id: string }[]> {
    const { rows } = await q.query<{ tenant_id: string; id: string }>(
      `SELECT tenant_id, id FROM scanner_suppressions WHERE status = 'approved' AND expires_at <= $1
       ORDER BY expires_at LIMIT $2`,
      [now.toISOString(), limit],
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, id: r.id }));
  },
};
