// The only code that reads and writes scan targets; the tenant id comes first in every read.
import type { SqlQuery } from '../../platform/db/sql';
import type { ScanTarget, TargetKind } from './scanner.types';

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  kind: string;
  path: string | null;
  settings: string | null;
  namespace: string | null;
  created_by: string;
  created_ms: number;
}

const COLUMNS = `id, tenant_id, name, kind, path, settings::text AS settings, namespace, created_by,
  (extract(epoch FROM created_at) * 1000)::float8 AS created_ms`;

const toTarget = (r: Row): ScanTarget => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  kind: r.kind as TargetKind,
  path: r.path,
  settings: r.settings === null ? null : (JSON.parse(r.settings) as Record<string, string>),
  namespace: r.namespace,
  createdBy: r.created_by,
  createdAt: new Date(Number(r.created_ms)),
});

export const targetStore = {
  /** False when the tenant has a target of that name already. */
  async insert(q: SqlQuery, tenantId: string, t: Omit<ScanTarget, 'tenantId' | 'createdAt'>): Promise<boolean> {
    const r = await q.query(
      `INSERT INTO scanner_targets (id, tenant_id, name, kind, path, settings, namespace, created_by)
       VALUES ($1, $2, $3, $4, $5, $6::json, $7, $8) ON CONFLICT (tenant_id, name) DO NOTHING RETURNING id`,
      [
        t.id,
        tenantId,
        t.name,
        t.kind,
        t.path,
        t.settings === null ? null : JSON.stringify(t.settings),
        t.namespace,
        t.createdBy,
      ],
    );
    return r.rows.length > 0;
  },

  async get(q: SqlQuery, tenantId: string, id: string): Promise<ScanTarget | null> {
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM scanner_targets WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
    ]);
    return rows[0] ? toTarget(rows[0]) : null;
  },

  async list(q: SqlQuery, tenantId: string): Promise<ScanTarget[]> {
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM scanner_targets WHERE tenant_id = $1 ORDER BY name`, [
      tenantId,
    ]);
    return rows.map(toTarget);
  },
};
