// The only code that reads and writes scans; the tenant id comes first in every read.
import type { SqlQuery } from '../../platform/db/sql';
import type { Scan, ScanStatus, ScanSummary, ScanTrigger } from './scanner.types';

interface Row {
  id: string;
  tenant_id: string;
  target_id: string;
  pack_id: string;
  pack_version: string;
  status: string;
  requested_by: string;
  trigger: string;
  schedule_id: string | null;
  started_ms: number;
  finished_ms: number | null;
  files_scanned: number;
  summary: string | null;
  error: string | null;
}

const COLUMNS = `id, tenant_id, target_id, pack_id, pack_version, status, requested_by, trigger, schedule_id,
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
  trigger: r.trigger as ScanTrigger,
  scheduleId: r.schedule_id,
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
    s: {
      id: string;
      targetId: string;
      packId: string;
      packVersion: string;
      requestedBy: string;
      trigger: ScanTrigger;
      scheduleId: string | null;
    },
  ): Promise<void> {
    await q.query(
      `INSERT INTO scanner_scans (id, tenant_id, target_id, pack_id, pack_version, status, requested_by, trigger, schedule_id)
       VALUES ($1, $2, $3, $4, $5, 'running', $6, $7, $8)`,
      [s.id, tenantId, s.targetId, s.packId, s.packVersion, s.requestedBy, s.trigger, s.scheduleId],
    );
  },

  /** A running scan's target was read: `files_scanned` says how many inputs it is now evaluating. */
  async markRead(q: SqlQuery, tenantId: string, id: string, inputs: number): Promise<void> {
    await q.query(
      `UPDATE scanner_scans SET files_scanned = $3 WHERE tenant_id = $1 AND id = $2 AND status = 'running'`,
      [tenantId, id, inputs],
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

  /** Keeps a repository scan's CycloneDX SBOM beside it. */
  async setSbom(q: SqlQuery, tenantId: string, id: string, sbom: Record<string, unknown>): Promise<void> {
    await q.query(`UPDATE scanner_scans SET sbom = $3::jsonb WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
      JSON.stringify(sbom),
    ]);
  },

  /** The scan's SBOM; undefined when there is no such scan, null when it has none. */
  async sbom(q: SqlQuery, tenantId: string, id: string): Promise<Record<string, unknown> | null | undefined> {
    const { rows } = await q.query<{ sbom: string | null }>(
      `SELECT sbom::text AS sbom FROM scanner_scans WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id],
    );
    if (!rows[0]) return undefined;
    return rows[0].sbom === null ? null : (JSON.parse(rows[0].sbom) as Record<string, unknown>);
  },
};
