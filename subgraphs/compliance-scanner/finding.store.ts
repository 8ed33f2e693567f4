// The only code that reads and writes findings; the tenant id comes first in every read. A
// scan's changes are written in one statement per kind (insert new, update seen, mark fixed), so
// a scan of thousands of findings costs a few round trips.
import type { SqlQuery } from '../../platform/db/sql';
import type { Finding, FindingStatus } from './scanner.types';
import type { ScannerSeverity } from '../../platform/contracts/scanner-pack.schema';

interface Row {
  id: string;
  tenant_id: string;
  target_id: string;
  fingerprint: string;
  rule_id: string;
  pack_id: string;
  pack_version: string;
  severity: string;
  status: string;
  path: string;
  line: number | null;
  detail: string | null;
  controls: string[];
  inline_skip: boolean;
  suppression_id: string | null;
  first_ms: number;
  last_ms: number;
  last_scan_id: string;
}

const COLUMNS = `id, tenant_id, target_id, fingerprint, rule_id, pack_id, pack_version, severity, status, path, line,
  detail, controls, inline_skip, suppression_id, (extract(epoch FROM first_seen) * 1000)::float8 AS first_ms,
  (extract(epoch FROM last_seen) * 1000)::float8 AS last_ms, last_scan_id`;

const toFinding = (r: Row): Finding => ({
  id: r.id,
  tenantId: r.tenant_id,
  targetId: r.target_id,
  fingerprint: r.fingerprint.trim(),
  ruleId: r.rule_id,
  packId: r.pack_id,
  packVersion: r.pack_version,
  severity: r.severity as ScannerSeverity,
  status: r.status as FindingStatus,
  path: r.path,
  line: r.line === null ? null : Number(r.line),
  detail: r.detail,
  controls: r.controls ?? [],
  inlineSkip: r.inline_skip,
  suppressionId: r.suppression_id,
  firstSeen: new Date(Number(r.first_ms)),
  lastSeen: new Date(Number(r.last_ms)),
  lastScanId: r.last_scan_id,
});

export interface FindingFilter {
  targetId?: string;
  status?: FindingStatus;
  scanId?: string;
  limit: number;
}

export const findingStore = {
  /** Every finding of the target from this pack, for a scan to compare with (locked for the scan's transaction). */
  async ofTarget(q: SqlQuery, tenantId: string, targetId: string, packId: string): Promise<Finding[]> {
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM scanner_findings WHERE tenant_id = $1 AND target_id = $2 AND pack_id = $3 FOR UPDATE`,
      [tenantId, targetId, packId],
    );
    return rows.map(toFinding);
  },

  async list(q: SqlQuery, tenantId: string, f: FindingFilter): Promise<Finding[]> {
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM scanner_findings WHERE tenant_id = $1 AND ($2::text IS NULL OR target_id = $2)
       AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR last_scan_id = $4)
       ORDER BY path, line NULLS FIRST, rule_id, id LIMIT $5`,
      [tenantId, f.targetId ?? null, f.status ?? null, f.scanId ?? null, f.limit],
    );
    return rows.map(toFinding);
  },

  /** Findings a suppression covers (it names them) or held (suppression_id), for approval and expiry. */
  async bySuppression(q: SqlQuery, tenantId: string, suppressionId: string): Promise<Finding[]> {
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM scanner_findings WHERE tenant_id = $1 AND suppression_id = $2 FOR UPDATE`,
      [tenantId, suppressionId],
    );
    return rows.map(toFinding);
  },

  async openOf(q: SqlQuery, tenantId: string): Promise<Finding[]> {
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM scanner_findings WHERE tenant_id = $1 AND status IN ('open', 'reopened') FOR UPDATE`,
      [tenantId],
    );
    return rows.map(toFinding);
  },

  async insert(q: SqlQuery, tenantId: string, findings: readonly Finding[]): Promise<void> {
    if (findings.length === 0) return;
    const col = <K extends keyof Finding>(k: K) => findings.map((f) => f[k]);
    await q.query(
      `INSERT INTO scanner_findings (id, tenant_id, target_id, fingerprint, rule_id, pack_id, pack_version, severity, status,
         path, line, detail, controls, inline_skip, suppression_id, first_seen, last_seen, last_scan_id)
       SELECT u.id, $1, u.target_id, u.fingerprint, u.rule_id, u.pack_id, u.pack_version, u.severity, u.status, u.path, u.line,
         u.detail, string_to_array(u.controls, chr(31)), u.inline_skip, u.suppression_id, u.seen, u.seen, u.scan_id
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
         $11::int[], $12::text[], $13::text[], $14::bool[], $15::text[], $16::timestamptz[], $17::text[])
         AS u(id, target_id, fingerprint, rule_id, pack_id, pack_version, severity, status, path, line, detail, controls,
           inline_skip, suppression_id, seen, scan_id)`,
      [
        tenantId,
        col('id'),
        col('targetId'),
        col('fingerprint'),
        col('ruleId'),
        col('packId'),
        col('packVersion'),
        col('severity'),
        col('status'),
        col('path'),
        col('line'),
        col('detail'),
        findings.map((f) => f.controls.join('\u001f')),
        col('inlineSkip'),
        col('suppressionId'),
        findings.map((f) => f.lastSeen.toISOString()),
        col('lastScanId'),
      ],
    );
  },

  /** Writes the changing columns of findings a scan saw again, changed state or left behind. */
  async update(q: SqlQuery, tenantId: string, findings: readonly Finding[]): Promise<void> {
    if (findings.length === 0) return;
    await q.query(
      `UPDATE scanner_findings f SET status = u.status, line = u.line, detail = u.detail, inline_skip = u.inline_skip,
         suppression_id = u.suppression_id, last_seen = u.seen, last_scan_id = u.scan_id, pack_version = u.pack_version,
         severity = u.severity, controls = string_to_array(u.controls, chr(31))
       FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::bool[], $7::text[], $8::timestamptz[], $9::text[],
         $10::text[], $11::text[], $12::text[])
         AS u(id, status, line, detail, inline_skip, suppression_id, seen, scan_id, pack_version, severity, controls)
       WHERE f.tenant_id = $1 AND f.id = u.id`,
      [
        tenantId,
        findings.map((f) => f.id),
        findings.map((f) => f.status),
        findings.map((f) => f.line),
        findings.map((f) => f.detail),
        findings.map((f) => f.inlineSkip),
        findings.map((f) => f.suppressionId),
        findings.map((f) => f.lastSeen.toISOString()),
        findings.map((f) => f.lastScanId),
        findings.map((f) => f.packVersion),
        findings.map((f) => f.severity),
        findings.map((f) => f.controls.join('\u001f')),
      ],
    );
  },
};
