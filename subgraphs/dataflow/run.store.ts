// Runs, their breaks, evidence and watermarks (dataflow_runs, dataflow_breaks, dataflow_evidence,
// dataflow_watermarks). A run is claimed once per (tenant, pack, trigger key): a second delivery
// of the same trigger finds the first run. Finishing writes the result, breaks, evidence,
// watermarks and the outbox's audit events in one transaction.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { sqlOutboxWriter, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import type { BreakRow, RunProgress, RunRecord, RunResult, RunStatus } from './dataflow.types';

interface RunRow {
  id: string;
  tenant_id: string;
  pack_id: string;
  pack_version: string;
  trigger_key: string;
  trigger_kind: string;
  status: RunStatus;
  progress: RunProgress;
  result: RunResult | null;
  error: string | null;
  requested_by: string | null;
  started_at: Date | string;
  finished_at: Date | string | null;
}

const COLUMNS = `id, tenant_id, pack_id, pack_version, trigger_key, trigger_kind, status, progress, result, error,
  requested_by, started_at, finished_at`;

function toRun(r: RunRow): RunRecord {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    packId: r.pack_id,
    packVersion: r.pack_version,
    triggerKey: r.trigger_key,
    triggerKind: r.trigger_kind,
    status: r.status,
    progress: r.progress ?? {},
    result: r.result,
    error: r.error,
    requestedBy: r.requested_by,
    startedAt: new Date(r.started_at),
    finishedAt: r.finished_at ? new Date(r.finished_at) : null,
  };
}

export interface NewRun {
  id: string;
  packId: string;
  packVersion: string;
  triggerKey: string;
  triggerKind: string;
  requestedBy: string | null;
}

export interface RunFinish {
  status: RunStatus;
  result: RunResult | null;
  error: string | null;
  breaks: BreakRow[];
  evidence: { sha256: string; content: Record<string, unknown> } | null;
  watermarks: Record<string, string>;
  events: AuditEventInput[];
}

export interface BreakView extends BreakRow {
  seq: string;
}

export interface RunStore {
  /** The new run, or the one this trigger already started (`created` false). */
  claim(tenantId: string, run: NewRun): Promise<{ run: RunRecord; created: boolean }>;
  saveProgress(tenantId: string, runId: string, progress: RunProgress): Promise<void>;
  finish(tenantId: string, runId: string, packId: string, finish: RunFinish): Promise<RunRecord>;
  get(tenantId: string, runId: string): Promise<RunRecord | undefined>;
  byIds(tenantId: string, ids: readonly string[]): Promise<RunRecord[]>;
  list(tenantId: string, filter: { packId?: string; limit: number; before?: string }): Promise<RunRecord[]>;
  breaks(
    tenantId: string,
    runId: string,
    filter: { category?: string; limit: number; afterSeq?: string },
  ): Promise<BreakView[]>;
  evidence(
    tenantId: string,
    runId: string,
  ): Promise<{ sha256: string; content: Record<string, unknown>; createdAt: Date } | undefined>;
  watermark(tenantId: string, packId: string, input: string): Promise<string | null>;
}

export function sqlRunStore(db: SqlExecutor): RunStore {
  const get = async (q: SqlQuery, tenantId: string, runId: string) => {
    const { rows } = await q.query<RunRow>(`SELECT ${COLUMNS} FROM dataflow_runs WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      runId,
    ]);
    return rows[0] ? toRun(rows[0]) : undefined;
  };
  return {
    async claim(tenantId, run) {
      const { rows } = await db.query<RunRow>(
        `INSERT INTO dataflow_runs (id, tenant_id, pack_id, pack_version, trigger_key, trigger_kind, status, requested_by)
         VALUES ($1, $2, $3, $4, $5, $6, 'running', $7)
         ON CONFLICT (tenant_id, pack_id, trigger_key) DO NOTHING RETURNING ${COLUMNS}`,
        [run.id, tenantId, run.packId, run.packVersion, run.triggerKey, run.triggerKind, run.requestedBy],
      );
      if (rows[0]) return { run: toRun(rows[0]), created: true };
      const existing = await db.query<RunRow>(
        `SELECT ${COLUMNS} FROM dataflow_runs WHERE tenant_id = $1 AND pack_id = $2 AND trigger_key = $3`,
        [tenantId, run.packId, run.triggerKey],
      );
      return { run: toRun(existing.rows[0]!), created: false };
    },
    async saveProgress(tenantId, runId, progress) {
      await db.query(`UPDATE dataflow_runs SET progress = $3::jsonb WHERE tenant_id = $1 AND id = $2`, [
        tenantId,
        runId,
        JSON.stringify(progress),
      ]);
    },
    async finish(tenantId, runId, packId, f) {
      return db.transaction(async (tx) => {
        await tx.query(
          `UPDATE dataflow_runs SET status = $3, result = $4::jsonb, error = $5, finished_at = now()
            WHERE tenant_id = $1 AND id = $2`,
          [tenantId, runId, f.status, f.result === null ? null : JSON.stringify(f.result), f.error],
        );
        if (f.breaks.length > 0)
          await tx.query(
            `INSERT INTO dataflow_breaks (tenant_id, run_id, reconciliation, category, record_key, detail)
             SELECT $1, $2, e->>'reconciliation', e->>'category', e->>'key', e->'detail'
               FROM jsonb_array_elements($3::jsonb) AS e`,
            [tenantId, runId, JSON.stringify(f.breaks)],
          );
        if (f.evidence)
          await tx.query(
            `INSERT INTO dataflow_evidence (run_id, tenant_id, sha256, content) VALUES ($1, $2, $3, $4::jsonb)
             ON CONFLICT (run_id) DO NOTHING`,
            [runId, tenantId, f.evidence.sha256, JSON.stringify(f.evidence.content)],
          );
        for (const [input, mark] of Object.entries(f.watermarks))
          await tx.query(
            `INSERT INTO dataflow_watermarks (tenant_id, pack_id, input, watermark) VALUES ($1, $2, $3, $4::bigint)
             ON CONFLICT (tenant_id, pack_id, input) DO UPDATE
               SET watermark = GREATEST(dataflow_watermarks.watermark, EXCLUDED.watermark), updated_at = now()`,
            [tenantId, packId, input, mark],
          );
        const outbox = sqlOutboxWriter(tx, 'dataflow');
        for (const e of f.events) await outbox.append(e);
        return (await get(tx, tenantId, runId))!;
      });
    },
    get: (tenantId, runId) => get(db, tenantId, runId),
    async byIds(tenantId, ids) {
      const { rows } = await db.query<RunRow>(
        `SELECT ${COLUMNS} FROM dataflow_runs WHERE tenant_id = $1 AND id = ANY($2::text[])`,
        [tenantId, [...ids]],
      );
      return rows.map(toRun);
    },
    async list(tenantId, filter) {
      const { rows } = await db.query<RunRow>(
        `SELECT ${COLUMNS} FROM dataflow_runs
          WHERE tenant_id = $1 AND ($2::text IS NULL OR pack_id = $2) AND ($3::text IS NULL OR id < $3)
          ORDER BY id DESC LIMIT $4`,
        [tenantId, filter.packId ?? null, filter.before ?? null, filter.limit],
      );
      return rows.map(toRun);
    },
    async breaks(tenantId, runId, filter) {
      const { rows } = await db.query<{
        seq: string;
        reconciliation: string;
        category: BreakRow['category'];
        key: string;
        detail: Record<string, unknown>;
      }>(
        `SELECT seq::text AS seq, reconciliation, category, record_key AS key, detail FROM dataflow_breaks
          WHERE tenant_id = $1 AND run_id = $2 AND ($3::text IS NULL OR category = $3)
            AND ($4::bigint IS NULL OR seq > $4::bigint)
          ORDER BY seq LIMIT $5`,
        [tenantId, runId, filter.category ?? null, filter.afterSeq ?? null, filter.limit],
      );
      return rows;
    },
    async evidence(tenantId, runId) {
      const { rows } = await db.query<{ sha256: string; content: Record<string, unknown>; created_at: Date | string }>(
        `SELECT sha256, content, created_at FROM dataflow_evidence WHERE tenant_id = $1 AND run_id = $2`,
        [tenantId, runId],
      );
      const r = rows[0];
      return r ? { sha256: r.sha256, content: r.content, createdAt: new Date(r.created_at) } : undefined;
    },
    async watermark(tenantId, packId, input) {
      const { rows } = await db.query<{ w: string }>(
        `SELECT watermark::text AS w FROM dataflow_watermarks WHERE tenant_id = $1 AND pack_id = $2 AND input = $3`,
        [tenantId, packId, input],
      );
      return rows[0]?.w ?? null;
    },
  };
}
