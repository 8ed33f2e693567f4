// The only code that reads and writes scans; the tenant id comes first in every read.
import type { SqlQuery } from '../../platform/db/sql';
import type { Scan, ScanStatus, ScanSummary } from './scanner.types';

interface Row {
  id: string;
  tenant_id: string;
  target_id: string;
  pack_id: string;
  pack_version: string;
  status: string;
  requested_by: string;
  started_ms: number;
  finished_ms: number | null;
  files_scanned: number;
  summary: string | null;
  error: string | null;
}

const COLUMNS = `id, tenant_id, target_id, pack_id, pack_version, status, requested_by,
  (extract(epoch FROM started_at) * 1000)::float8 AS started_ms, (extract(epoch FROM finished_at) * 1000)::float8 AS finished_ms,
  files_scanned, summary::text AS summary, error`;

const toScan = (r: Row): Scan => ({
  id: r.id,
  tenantId: r.tenant_id,
  targetId: r.target_id,
  packId: r.pack_id,
  packVersion: r.pack_version,
  status: r.status as ScanStatus,
  requestedBy: r.requested_by,
  startedAt: new Date(Number(r.started_ms)),
  finishedAt: r.finished_ms === null ? null : new Date(Number(r.finished_ms)),
  filesScanned: Number(r.files_scanned),
  summary: r.summary === null ? null : (JSON.parse(r.summary) as ScanSummary),
  error: r.error,
});

export const scanStore = {
  async insert(
    q: SqlQuery,
    tenantId: string,
    s: { id: string; targetId: string; packId: string; packVersion: string; requestedBy: string },
  ): Promise<void> {
    await q.query(
      `INSERT INTO scanner_scans (id, tenant_id, target_id, pack_id, pack_version, status, requested_by)
       VALUES ($1, $2, $3, $4, $5, 'running', $6)`,
      [s.id, tenantId, s.targetId, s.packId, s.packVersion, s.requestedBy],
    );
  },

  async finish(
    q: SqlQuery,
    tenantId: string,
    id: string,
    result: { status: 'completed' | 'failed'; filesScanned: number; summary: ScanSummary | null; error: string | null },
  ): Promise<void> {
    await q.query(
      `UPDATE scanner_scans SET status = $3, files_scanned = $4, summary = $5::json, error = $6, finished_at = now()
       WHERE tenant_id = $1 AND id = $2`,
      [
        tenantId,
        id,
        result.status,
        result.filesScanned,
        result.summary ? JSON.stringify(result.summary) : null,
        result.error,
      ],
    );
  },

  async get(q: SqlQuery, tenantId: string, id: string): Promise<Scan | null> {
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM scanner_scans WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
    ]);
    return rows[0] ? toScan(rows[0]) : null;
  },

  async list(q: SqlQuery, tenantId: string, targetId: string | null, limit: number): Promise<Scan[]> {
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM scanner_scans WHERE tenant_id = $1 AND ($2::text IS NULL OR target_id = $2)
       ORDER BY started_at DESC, id LIMIT $3`,
      [tenantId, targetId, limit],
    );
    return rows.map(toScan);
  },
};
