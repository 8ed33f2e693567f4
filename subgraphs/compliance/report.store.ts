// The only code that reads and writes compliance reports, their per-control verdicts and their
// evidence snapshots. Every function takes the tenant id first. A report's evidence is copied in
// one INSERT ... SELECT inside the database (a million rows never pass through the process), and
// its verdicts are computed from that copy in one more statement.
import type { LedgerCheckpoint } from '../../platform/clients/ledger.client';
import type { SqlQuery } from '../../platform/db/sql';
import type { Freshness } from './compliance.types';
import type {
  ComplianceReport,
  ReportControl,
  ReportEvidence,
  ReportResult,
  ReportStatus,
  ReportSummary,
} from './report.types';

const ms = (column: string, as: string) => `(extract(epoch FROM ${column}) * 1000)::float8 AS ${as}`;
const msOrNull = (v: number | null) => (v === null ? null : new Date(Number(v)));

interface ReportRow {
  tenant_id: string;
  id: string;
  framework: string;
  report_type: string;
  start_ms: number;
  end_ms: number;
  period_label: string;
  status: string;
  result: string | null;
  summary: ReportSummary | string;
  checkpoint: LedgerCheckpoint | string | null;
  content_sha256: string | null;
  generated_by: string | null;
  generated_ms: number;
  submitted_by: string | null;
  submitted_ms: number | null;
  reviewed_by: string | null;
  reviewed_ms: number | null;
  review_notes: string | null;
  ledger_entry_id: string | null;
  ledger_chain_hash: string | null;
  workflow_id: string | null;
  approval_task_id: string | null;
}

const REPORT_COLUMNS = `tenant_id, id::text AS id, framework, report_type, ${ms('period_start', 'start_ms')},
  ${ms('period_end', 'end_ms')}, period_label, status, result, summary, checkpoint, content_sha256, generated_by,
  ${ms('generated_at', 'generated_ms')}, submitted_by, ${ms('submitted_at', 'submitted_ms')}, reviewed_by,
  ${ms('reviewed_at', 'reviewed_ms')}, review_notes, ledger_entry_id::text AS ledger_entry_id, ledger_chain_hash,
  workflow_id, approval_task_id`;

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

function toReport(r: ReportRow): ComplianceReport {
  return {
    tenantId: r.tenant_id,
    id: r.id,
    framework: r.framework,
    reportType: r.report_type,
    period: { start: new Date(Number(r.start_ms)), end: new Date(Number(r.end_ms)), label: r.period_label },
    status: r.status as ReportStatus,
    result: r.result as ReportResult | null,
    summary: json(r.summary),
    checkpoint: r.checkpoint === null ? null : json(r.checkpoint),
    contentSha256: r.content_sha256?.trim() ?? null,
    generatedBy: r.generated_by,
    generatedAt: new Date(Number(r.generated_ms)),
    submittedBy: r.submitted_by,
    submittedAt: msOrNull(r.submitted_ms),
    reviewedBy: r.reviewed_by,
    reviewedAt: msOrNull(r.reviewed_ms),
    reviewNotes: r.review_notes,
    ledgerEntryId: r.ledger_entry_id,
    ledgerChainHash: r.ledger_chain_hash?.trim() ?? null,
    workflowId: r.workflow_id,
    approvalTaskId: r.approval_task_id,
  };
}

export interface NewReport {
  id: string;
  framework: string;
  reportType: string;
  periodStart: Date;
  periodEnd: Date;
  periodLabel: string;
  generatedBy: string | null;
  generatedAt: Date;
}

export interface ReportListQuery {
  framework?: string;
  status?: ReportStatus;
  limit: number;
  /** Page after this report (generated_at DESC, id DESC). */
  after?: { generatedAt: Date; id: string };
}

export interface ReportEvidenceQuery {
  controlId?: string;
  limit: number;
  after?: { controlId: string; itemId: string };
}

export interface ReportStore {
  /** Writes the report (status `generating`), copies its evidence and computes its verdicts; answers the summary. */
  snapshot(q: SqlQuery, tenantId: string, report: NewReport, asOf: Date, expiringDays: number): Promise<ReportSummary>;
  /** `generating` -> `generated` with its result, checkpoint and digest; false when it was no longer generating (swept). */
  markGenerated(
    q: SqlQuery,
    tenantId: string,
    id: string,
    fields: { result: ReportResult; checkpoint: LedgerCheckpoint | null; contentSha256: string },
  ): Promise<boolean>;
  /** Removes a report whose generation failed half way (nothing of it stays). */
  discard(q: SqlQuery, tenantId: string, id: string): Promise<void>;
  /**
   * Every tenant's reports still `generating` whose generation began before `before` (the sweep of
   * generations a crash cut between snapshot and checkpoint), oldest first.
   */
  stalledGenerations(q: SqlQuery, before: Date, limit: number): Promise<{ tenantId: string; id: string }[]>;
  /**
   * Discards one such report, if it is still `generating` since before `before` (its row locked
   * first, so a generation finishing at that moment either wins or finds it gone); false otherwise.
   */
  discardStalled(q: SqlQuery, tenantId: string, id: string, before: Date): Promise<boolean>;
  /** Moves a report from one status to another; false when it was not in `from` (a race or a replay). */
  transition(
    q: SqlQuery,
    tenantId: string,
    id: string,
    from: ReportStatus,
    to: ReportStatus,
    set?: {
      submittedBy?: string | null;
      reviewedBy?: string | null;
      reviewNotes?: string | null;
      ledgerEntryId?: string;
      ledgerChainHash?: string;
      /** Clears the reviewer (a sign-off whose ledger append failed goes back to review). */
      clearReview?: boolean;
    },
  ): Promise<boolean>;
  /** Records the sign-off's workflow execution and approval task on a report pending review. */
  attachWorkflow(
    q: SqlQuery,
    tenantId: string,
    id: string,
    workflowId: string,
    approvalTaskId: string | null,
  ): Promise<void>;
  /** The report whose sign-off runs in this workflow execution, if any. */
  reportByWorkflow(q: SqlQuery, tenantId: string, workflowId: string): Promise<ComplianceReport | null>;
  /** A report in any status but `generating`. */
  report(q: SqlQuery, tenantId: string, id: string): Promise<ComplianceReport | null>;
  reports(q: SqlQuery, tenantId: string, query: ReportListQuery): Promise<ComplianceReport[]>;
  controls(q: SqlQuery, tenantId: string, reportId: string): Promise<ReportControl[]>;
  evidence(q: SqlQuery, tenantId: string, reportId: string, query: ReportEvidenceQuery): Promise<ReportEvidence[]>;
  /**
   * A page of the report's (control, item, ledger entry) rows after `after`, in key order: what
   * the export of every proof asks the ledger for (an item of several controls comes once per control).
   */
  itemEntries(
    q: SqlQuery,
    tenantId: string,
    reportId: string,
    after: { controlId: string; itemId: string } | null,
    limit: number,
  ): Promise<{ controlId: string; itemId: string; ledgerEntryId: string | null }[]>;
  /** The newest `perControl` evidence of each control, for the OSCAL export and the document. */
  evidencePerControl(q: SqlQuery, tenantId: string, reportId: string, perControl: number): Promise<ReportEvidence[]>;
}

interface ControlRow {
  control_id: string;
  title: string;
  position: number;
  freshness: string;
  satisfied: boolean;
  evidence_count: number;
  last_ms: number | null;
  expires_ms: number | null;
}

interface EvidenceRow {
  control_id: string;
  item_id: string;
  revision: number;
  content_sha256: string;
  source: string;
  collected_ms: number;
  expires_ms: number;
  ledger_entry_id: string | null;
}

const EVIDENCE_COLUMNS = `control_id, item_id::text AS item_id, revision, content_sha256, source,
  ${ms('collected_at', 'collected_ms')}, ${ms('expires_at', 'expires_ms')}, ledger_entry_id::text AS ledger_entry_id`;

function toEvidence(r: EvidenceRow): ReportEvidence {
  return {
    controlId: r.control_id,
    itemId: r.item_id,
    revision: Number(r.revision),
    contentSha256: r.content_sha256.trim(),
    source: r.source,
    collectedAt: new Date(Number(r.collected_ms)),
    expiresAt: new Date(Number(r.expires_ms)),
    ledgerEntryId: r.ledger_entry_id,
  };
}

export const reportStore: ReportStore = {
  async snapshot(q, tenantId, r, asOf, expiringDays) {
    await q.query(
      `INSERT INTO compliance_reports (tenant_id, id, framework, report_type, period_start, period_end, period_label,
         status, generated_by, generated_at)
       VALUES ($1, $2::uuid, $3, $4, $5, $6, $7, 'generating', $8, $9)`,
      [
        tenantId,
        r.id,
        r.framework,
        r.reportType,
        r.periodStart,
        r.periodEnd,
        r.periodLabel,
        r.generatedBy,
        r.generatedAt,
      ],
    );
    // Each control of the framework is satisfied by itself and the controls it maps to (three
    // links deep, as freshness); an item's newest revision collected in the period stands for it.
    await q.query(
      `WITH RECURSIVE targets(origin, framework, control_id, depth) AS (
           SELECT c.control_id, c.framework, c.control_id, 0 FROM compliance_controls c
           WHERE c.tenant_id = $1 AND c.framework = $3
         UNION
           SELECT t.origin, l.target_framework, l.target_control_id, t.depth + 1 FROM targets t
           JOIN compliance_control_links l
             ON l.tenant_id = $1 AND l.framework = t.framework AND l.control_id = t.control_id
           WHERE t.depth < 3
       )
       INSERT INTO compliance_report_evidence (tenant_id, report_id, control_id, item_id, revision, content_sha256,
         source, collected_at, expires_at, ledger_entry_id)
       SELECT DISTINCT ON (t.origin, r.item_id) $1, $2::uuid, t.origin, r.item_id, r.revision, r.content_sha256,
         i.source, r.collected_at, r.expires_at, r.ledger_entry_id
       FROM targets t
       JOIN compliance_evidence_controls e ON e.tenant_id = $1 AND e.framework = t.framework AND e.control_id = t.control_id
       JOIN compliance_evidence_revisions r ON r.tenant_id = $1 AND r.item_id = e.item_id
         AND r.collected_at >= $4 AND r.collected_at < $5
       JOIN compliance_evidence_items i ON i.tenant_id = $1 AND i.id = r.item_id
       ORDER BY t.origin, r.item_id, r.revision DESC`,
      [tenantId, r.id, r.framework, r.periodStart, r.periodEnd],
    );
    // A control is satisfied when evidence of the period is still in force at the as-of instant.
    await q.query(
      `INSERT INTO compliance_report_controls (tenant_id, report_id, control_id, title, position, freshness, satisfied,
         evidence_count, last_collected_at, expires_at)
       SELECT $1, $2::uuid, c.control_id, c.title, c.position,
         CASE WHEN s.expiry IS NULL OR s.expiry <= $4 THEN 'stale'
              WHEN s.expiry <= $4 + make_interval(days => $5::int) THEN 'expiring' ELSE 'fresh' END,
         coalesce(s.expiry > $4, false), coalesce(s.n, 0), s.last,
         CASE WHEN s.expiry > $4 THEN s.expiry END
       FROM compliance_controls c
       LEFT JOIN (
         SELECT control_id, count(*)::int AS n, max(collected_at) AS last, max(expires_at) AS expiry
         FROM compliance_report_evidence WHERE tenant_id = $1 AND report_id = $2::uuid GROUP BY control_id
       ) s ON s.control_id = c.control_id
       WHERE c.tenant_id = $1 AND c.framework = $3`,
      [tenantId, r.id, r.framework, asOf, expiringDays],
    );
    const { rows: c } = await q.query<Record<string, number>>(
      `SELECT count(*)::int AS controls, (count(*) FILTER (WHERE satisfied))::int AS satisfied,
         (count(*) FILTER (WHERE freshness = 'fresh'))::int AS fresh,
         (count(*) FILTER (WHERE freshness = 'expiring'))::int AS expiring,
         (count(*) FILTER (WHERE freshness = 'stale'))::int AS stale
       FROM compliance_report_controls WHERE tenant_id = $1 AND report_id = $2::uuid`,
      [tenantId, r.id],
    );
    const { rows: e } = await q.query<Record<string, number>>(
      `SELECT count(DISTINCT item_id)::int AS items, count(*)::int AS links,
         (count(*) FILTER (WHERE ledger_entry_id IS NULL))::int AS unrecorded
       FROM compliance_report_evidence WHERE tenant_id = $1 AND report_id = $2::uuid`,
      [tenantId, r.id],
    );
    const n = (v: number | undefined) => Number(v ?? 0);
    const summary: ReportSummary = {
      controls: n(c[0]?.controls),
      satisfied: n(c[0]?.satisfied),
      not_satisfied: n(c[0]?.controls) - n(c[0]?.satisfied),
      fresh: n(c[0]?.fresh),
      expiring: n(c[0]?.expiring),
      stale: n(c[0]?.stale),
      evidence_items: n(e[0]?.items),
      evidence_links: n(e[0]?.links),
      unrecorded: n(e[0]?.unrecorded),
    };
    await q.query(`UPDATE compliance_reports SET summary = $3::jsonb WHERE tenant_id = $1 AND id = $2::uuid`, [
      tenantId,
      r.id,
      JSON.stringify(summary),
    ]);
    return summary;
  },

  async markGenerated(q, tenantId, id, f) {
    const r = await q.query(
      `UPDATE compliance_reports SET status = 'generated', result = $3, checkpoint = $4::jsonb, content_sha256 = $5
       WHERE tenant_id = $1 AND id = $2::uuid AND status = 'generating'`,
      [tenantId, id, f.result, f.checkpoint === null ? null : JSON.stringify(f.checkpoint), f.contentSha256],
    );
    return (r.rowCount ?? 0) > 0;
  },

  async discard(q, tenantId, id) {
    for (const table of ['compliance_report_evidence', 'compliance_report_controls'])
      await q.query(`DELETE FROM ${table} WHERE tenant_id = $1 AND report_id = $2::uuid`, [tenantId, id]);
    await q.query(`DELETE FROM compliance_reports WHERE tenant_id = $1 AND id = $2::uuid`, [tenantId, id]);
  },

  async stalledGenerations(q, before, limit) {
    const { rows } = await q.query<{ tenant_id: string; id: string }>(
      `SELECT tenant_id, id::text AS id FROM compliance_reports
        WHERE status = 'generating' AND generated_at < $1 ORDER BY generated_at, tenant_id, id LIMIT $2`,
      [before, limit],
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, id: r.id }));
  },

  async discardStalled(q, tenantId, id, before) {
    const { rows } = await q.query<{ id: string }>(
      `SELECT id::text AS id FROM compliance_reports
        WHERE tenant_id = $1 AND id = $2::uuid AND status = 'generating' AND generated_at < $3 FOR UPDATE`,
      [tenantId, id, before],
    );
    if (rows.length === 0) return false;
    await reportStore.discard(q, tenantId, id);
    return true;
  },

  async transition(q, tenantId, id, from, to, set = {}) {
    const { rows } = await q.query<{ id: string }>(
      `UPDATE compliance_reports SET status = $4::varchar,
         submitted_by = CASE WHEN $4::varchar = 'pending_review' AND $3::varchar = 'generated' THEN $5::varchar ELSE submitted_by END,
         submitted_at = CASE WHEN $4::varchar = 'pending_review' AND $3::varchar = 'generated' THEN now() ELSE submitted_at END,
         reviewed_by = CASE WHEN $9::boolean THEN NULL WHEN $6::text IS NOT NULL THEN $6::varchar ELSE reviewed_by END,
         reviewed_at = CASE WHEN $9::boolean THEN NULL WHEN $6::text IS NOT NULL THEN now() ELSE reviewed_at END,
         review_notes = CASE WHEN $9::boolean THEN NULL WHEN $6::text IS NOT NULL THEN $7::text ELSE review_notes END,
         ledger_entry_id = coalesce($8::uuid, ledger_entry_id),
         ledger_chain_hash = coalesce($10::char(64), ledger_chain_hash)
       WHERE tenant_id = $1 AND id = $2::uuid AND status = $3::varchar
       RETURNING id::text AS id`,
      [
        tenantId,
        id,
        from,
        to,
        set.submittedBy ?? null,
        set.reviewedBy ?? null,
        set.reviewNotes ?? null,
        set.ledgerEntryId ?? null,
        set.clearReview ?? false,
        set.ledgerChainHash ?? null,
      ],
    );
    return rows.length > 0;
  },

  async attachWorkflow(q, tenantId, id, workflowId, approvalTaskId) {
    await q.query(
      `UPDATE compliance_reports SET workflow_id = $3, approval_task_id = $4 WHERE tenant_id = $1 AND id = $2::uuid`,
      [tenantId, id, workflowId, approvalTaskId],
    );
  },

  async reportByWorkflow(q, tenantId, workflowId) {
    const { rows } = await q.query<ReportRow>(
      `SELECT ${REPORT_COLUMNS} FROM compliance_reports WHERE tenant_id = $1 AND workflow_id = $2`,
      [tenantId, workflowId],
    );
    return rows[0] ? toReport(rows[0]) : null;
  },

  async report(q, tenantId, id) {
    const { rows } = await q.query<ReportRow>(
      `SELECT ${REPORT_COLUMNS} FROM compliance_reports WHERE tenant_id = $1 AND id = $2::uuid AND status <> 'generating'`,
      [tenantId, id],
    );
    return rows[0] ? toReport(rows[0]) : null;
  },

  async reports(q, tenantId, query) {
    const params: unknown[] = [tenantId];
    const where = [`tenant_id = $1`, `status <> 'generating'`];
    if (query.framework !== undefined) {
      params.push(query.framework);
      where.push(`framework = $${params.length}`);
    }
    if (query.status !== undefined) {
      params.push(query.status);
      where.push(`status = $${params.length}`);
    }
    if (query.after) {
      params.push(query.after.generatedAt, query.after.id);
      // Milliseconds, as the cursor carries them (a JavaScript Date): see evidence.store.ts's items.
      where.push(
        `(date_trunc('milliseconds', generated_at), id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`,
      );
    }
    params.push(query.limit);
    const { rows } = await q.query<ReportRow>(
      `SELECT ${REPORT_COLUMNS} FROM compliance_reports WHERE ${where.join(' AND ')}
       ORDER BY date_trunc('milliseconds', generated_at) DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toReport);
  },

  async controls(q, tenantId, reportId) {
    const { rows } = await q.query<ControlRow>(
      `SELECT control_id, title, position, freshness, satisfied, evidence_count,
         ${ms('last_collected_at', 'last_ms')}, ${ms('expires_at', 'expires_ms')}
       FROM compliance_report_controls WHERE tenant_id = $1 AND report_id = $2::uuid ORDER BY position, control_id`,
      [tenantId, reportId],
    );
    return rows.map((r) => ({
      controlId: r.control_id,
      title: r.title,
      position: Number(r.position),
      freshness: r.freshness as Freshness,
      satisfied: r.satisfied,
      evidenceCount: Number(r.evidence_count),
      lastCollectedAt: msOrNull(r.last_ms),
      expiresAt: msOrNull(r.expires_ms),
    }));
  },

  async evidence(q, tenantId, reportId, query) {
    const params: unknown[] = [tenantId, reportId, query.controlId ?? null];
    let after = '';
    if (query.after) {
      params.push(query.after.controlId, query.after.itemId);
      after = `AND (control_id, item_id) > ($4, $5::uuid)`;
    }
    params.push(query.limit);
    const { rows } = await q.query<EvidenceRow>(
      `SELECT ${EVIDENCE_COLUMNS} FROM compliance_report_evidence
       WHERE tenant_id = $1 AND report_id = $2::uuid AND ($3::text IS NULL OR control_id = $3) ${after}
       ORDER BY control_id, item_id LIMIT $${params.length}`,
      params,
    );
    return rows.map(toEvidence);
  },

  async itemEntries(q, tenantId, reportId, after, limit) {
    // In primary-key order (a range of the key, each page where the last ended); an item
    // evidencing several controls comes once per control, and the caller keeps the first.
    const { rows } = await q.query<{ control_id: string; item_id: string; ledger_entry_id: string | null }>(
      `SELECT control_id, item_id::text AS item_id, ledger_entry_id::text AS ledger_entry_id
         FROM compliance_report_evidence
        WHERE tenant_id = $1 AND report_id = $2::uuid AND ($3::text IS NULL OR (control_id, item_id) > ($3, $4::uuid))
        ORDER BY control_id, item_id LIMIT $5`,
      [tenantId, reportId, after?.controlId ?? null, after?.itemId ?? null, limit],
    );
    return rows.map((r) => ({ controlId: r.control_id, itemId: r.item_id, ledgerEntryId: r.ledger_entry_id }));
  },

  async evidencePerControl(q, tenantId, reportId, perControl) {
    const { rows } = await q.query<EvidenceRow>(
      `SELECT ${EVIDENCE_COLUMNS} FROM (
         SELECT e.*, row_number() OVER (PARTITION BY control_id ORDER BY collected_at DESC, item_id) AS n
         FROM compliance_report_evidence e WHERE tenant_id = $1 AND report_id = $2::uuid
       ) ranked WHERE n <= $3 ORDER BY control_id, collected_at DESC, item_id`,
      [tenantId, reportId, perControl],
    );
    return rows.map(toEvidence);
  },
};
