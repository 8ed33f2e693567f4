// Runs, batches, staged records, the quarantine, checkpoints and lineage events. The rule that
// makes a batch resumable lives here: a chunk's staged rows, its quarantined rows and the
// checkpoint that moves past them commit in one transaction, and the checkpoint only moves from
// the offset the runner read (a runner that lost the race writes nothing). A batch's end writes
// its manifest to the ledger (the audit outbox) and its event (the notice outbox) in the same
// transaction as its status. Every read takes the tenant first.
import { randomUUID } from 'node:crypto';
import { ConflictError } from '../../platform/errors/domain-errors';
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { sqlInsertNotices, type PendingNotice } from '../../platform/outbox/notice.writer';
import { sqlOutboxWriter, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import { BATCH_TABLE_SCHEMA } from './batch-table.store';
import type { Batch, BatchManifest, LineageEvent, QuarantinedRecord, RunStatus, StagedRecord } from './pipeline.types';

interface BatchRow {
  id: string;
  tenant_id: string;
  pipeline_id: string;
  pipeline_version: number;
  run_id: string;
  source_name: string;
  content_sha256: string;
  status: string;
  rows_read: number;
  rows_staged: number;
  rows_quarantined: number;
  error: string | null;
  manifest: BatchManifest | string | null;
  created_at: Date | string;
  completed_at: Date | string | null;
}

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A batch's own table as batch-table.store.ts names it (checked before it is put in a statement). */
const BATCH_TABLE = /^b_[0-9a-f]{32}$/;

const COLUMNS = `id::text, tenant_id, pipeline_id::text, pipeline_version, run_id::text, source_name, content_sha256, status,
  rows_read, rows_staged, rows_quarantined, error, manifest, created_at, completed_at`;

const batch = (r: BatchRow): Batch => ({
  id: r.id,
  tenantId: r.tenant_id,
  pipelineId: r.pipeline_id,
  pipelineVersion: r.pipeline_version,
  runId: r.run_id,
  sourceName: r.source_name,
  contentSha256: r.content_sha256,
  status: r.status as RunStatus,
  rowsRead: r.rows_read,
  rowsStaged: r.rows_staged,
  rowsQuarantined: r.rows_quarantined,
  error: r.error,
  manifest: r.manifest === null ? null : json(r.manifest),
  createdAt: new Date(r.created_at),
  completedAt: r.completed_at === null ? null : new Date(r.completed_at),
});

export interface OpenedBatch {
  batch: Batch;
  /** The next offset to read (0 for a new batch). */
  committedOffset: number;
  /** A batch of this content was found (completed, or to be resumed). */
  existing: boolean;
}

export interface Chunk {
  /** Staged records, each serialised once (`json`, the record's JSON text). */
  staged: { offset: number; json: string }[];
  quarantined: { offset: number; reason: string; record: Record<string, unknown> | null; rawSha256: string }[];
  /** The checkpoint before this chunk and after it. */
  from: number;
  to: number;
}

export interface BatchEnd {
  status: RunStatus;
  error: string | null;
  manifest: BatchManifest | null;
  sourceColumns: string[] | null;
  audit: AuditEventInput | null;
  notice: PendingNotice;
  lineage: Record<string, unknown>;
}

export interface BatchStore {
  open(
    tenantId: string,
    p: { pipelineId: string; pipelineVersion: number; sourceName: string; contentSha256: string },
    start: (runId: string) => Record<string, unknown>,
  ): Promise<OpenedBatch>;
  /**
   * A quarantined batch given a new run under `pipelineVersion` (a person approved the schema change
   * it met); null when it is no longer quarantined (another runner took it first).
   */
  reopen(
    tenantId: string,
    b: Batch,
    pipelineVersion: number,
    start: (runId: string) => Record<string, unknown>,
  ): Promise<Batch | null>;
  commitChunk(tenantId: string, b: Batch, dataset: string, chunk: Chunk): Promise<void>;
  end(tenantId: string, b: Batch, end: BatchEnd): Promise<Batch>;
  get(tenantId: string, id: string): Promise<Batch | null>;
  list(tenantId: string, pipelineId: string, limit: number): Promise<Batch[]>;
  quarantine(tenantId: string, batchId: string, limit: number): Promise<QuarantinedRecord[]>;
  staged(tenantId: string, batchId: string, after: number, limit: number): Promise<StagedRecord[]>;
  lineage(tenantId: string, runId: string): Promise<LineageEvent[]>;
}

async function appendLineage(
  q: SqlQuery,
  tenantId: string,
  runId: string,
  event: Record<string, unknown>,
): Promise<void> {
  await q.query(
    `INSERT INTO ingestion_lineage_events (id, tenant_id, run_id, event_type, event) VALUES ($1::uuid, $2, $3::uuid, $4, $5::jsonb)`,
    [randomUUID(), tenantId, runId, event.eventType, JSON.stringify(event)],
  );
}

/** COPY's text format: backslash, and the characters that end a field or a row, escaped. */
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const copyText = (text: string) => text.replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c]!);

/**
 * A chunk's staged rows, in the chunk's transaction. On PostgreSQL one `COPY ... FROM STDIN`
 * (the batch's own columns written once a row, the record as JSON); on PGlite, which has no COPY
 * from a client stream here, one INSERT over `json_to_recordset` of the whole chunk.
 */
async function stage(q: SqlQuery, tenantId: string, b: Batch, dataset: string, rows: Chunk['staged']): Promise<void> {
  if (q.copyFrom) {
    // JSON text holds no raw newline, CR or tab (JSON.stringify escapes them); its backslashes are doubled.
    const tail = `\t${[b.id, tenantId, b.pipelineId, dataset, b.sourceName].map(copyText).join('\t')}\n`;
    let data = '';
    for (const r of rows)
      data += `${r.offset}\t${r.json.includes('\\') ? r.json.replace(/\\/g, '\\\\') : r.json}${tail}`;
    await q.copyFrom(
      'COPY ingestion_staged_records (record_offset, data, batch_id, tenant_id, pipeline_id, dataset, source) FROM STDIN',
      data,
    );
    return;
  }
  let json = '[';
  for (let i = 0; i < rows.length; i++) json += `${i ? ',' : ''}{"o":${rows[i]!.offset},"d":${rows[i]!.json}}`;
  await q.query(
    `INSERT INTO ingestion_staged_records (batch_id, record_offset, tenant_id, pipeline_id, dataset, source, data)
     SELECT $1::uuid, t.o, $2, $3::uuid, $4, $5, t.d::text FROM json_to_recordset($6::json) AS t(o bigint, d json)`,
    [b.id, tenantId, b.pipelineId, dataset, b.sourceName, `${json}]`],
  );
}

/** A quarantined batch (nothing staged) given a new run, under the pipeline version that now accepts it. */
async function newRun(
  q: SqlQuery,
  tenantId: string,
  b: Batch,
  pipelineVersion: number,
  start: (runId: string) => Record<string, unknown>,
): Promise<void> {
  const runId = randomUUID();
  await q.query(
    `INSERT INTO ingestion_runs (id, tenant_id, pipeline_id, pipeline_version, status) VALUES ($1::uuid, $2, $3::uuid, $4, 'running')`,
    [runId, tenantId, b.pipelineId, pipelineVersion],
  );
  await q.query(
    `UPDATE ingestion_batches SET status = 'running', error = NULL, completed_at = NULL, run_id = $2::uuid, pipeline_version = $3 WHERE id = $1::uuid`,
    [b.id, runId, pipelineVersion],
  );
  await appendLineage(q, tenantId, runId, start(runId));
}

export function createBatchStore(sql: SqlExecutor): BatchStore {
  const get = async (q: SqlQuery, tenantId: string, id: string) => {
    const res = await q.query<BatchRow>(
      `SELECT ${COLUMNS} FROM ingestion_batches WHERE tenant_id = $1 AND id = $2::uuid`,
      [tenantId, id],
    );
    return res.rows[0] ? batch(res.rows[0]) : null;
  };
  return {
    async reopen(tenantId, b, pipelineVersion, start) {
      return sql.transaction(async (q) => {
        const locked = await q.query<{ status: string }>(
          `SELECT status FROM ingestion_batches WHERE tenant_id = $1 AND id = $2::uuid FOR UPDATE`,
          [tenantId, b.id],
        );
        if (locked.rows[0]?.status !== 'quarantined') return null;
        await newRun(q, tenantId, b, pipelineVersion, start);
        return get(q, tenantId, b.id);
      });
    },

    async open(tenantId, p, start) {
      return sql.transaction(async (q) => {
        const found = await q.query<BatchRow>(
          `SELECT ${COLUMNS} FROM ingestion_batches WHERE tenant_id = $1 AND pipeline_id = $2::uuid AND content_sha256 = $3 FOR UPDATE`,
          [tenantId, p.pipelineId, p.contentSha256],
        );
        if (found.rows[0]) {
          const b = batch(found.rows[0]);
          const cp = await q.query<{ o: number }>(
            `SELECT committed_offset::float8 AS o FROM ingestion_checkpoints WHERE tenant_id = $1 AND batch_id = $2::uuid`,
            [tenantId, b.id],
          );
          if (b.status === 'quarantined' && b.pipelineVersion < p.pipelineVersion) {
            // Quarantined for a schema change (nothing staged), and a new version approves it: a new run.
            await newRun(q, tenantId, b, p.pipelineVersion, start);
            return { batch: (await get(q, tenantId, b.id))!, committedOffset: cp.rows[0]?.o ?? 0, existing: true };
          }
          if (b.status === 'failed') {
            // A retry of a failed batch resumes it: the same run, from its checkpoint.
            await q.query(`UPDATE ingestion_batches SET status = 'running', error = NULL WHERE id = $1::uuid`, [b.id]);
            await q.query(
              `UPDATE ingestion_runs SET status = 'running', error = NULL, ended_at = NULL WHERE id = $1::uuid`,
              [b.runId],
            );
            b.status = 'running';
          }
          return { batch: b, committedOffset: cp.rows[0]?.o ?? 0, existing: true };
        }
        const runId = randomUUID();
        const id = randomUUID();
        await q.query(
          `INSERT INTO ingestion_runs (id, tenant_id, pipeline_id, pipeline_version, status) VALUES ($1::uuid, $2, $3::uuid, $4, 'running')`,
          [runId, tenantId, p.pipelineId, p.pipelineVersion],
        );
        await q.query(
          `INSERT INTO ingestion_batches (id, tenant_id, pipeline_id, pipeline_version, run_id, source_name, content_sha256, status)
           VALUES ($1::uuid, $2, $3::uuid, $4, $5::uuid, $6, $7, 'running')`,
          [id, tenantId, p.pipelineId, p.pipelineVersion, runId, p.sourceName, p.contentSha256],
        );
        await q.query(
          `INSERT INTO ingestion_checkpoints (batch_id, tenant_id, pipeline_id, committed_offset) VALUES ($1::uuid, $2, $3::uuid, 0)`,
          [id, tenantId, p.pipelineId],
        );
        await appendLineage(q, tenantId, runId, start(runId));
        return { batch: (await get(q, tenantId, id))!, committedOffset: 0, existing: false };
      });
    },

    async commitChunk(tenantId, b, dataset, chunk) {
      await sql.transaction(async (q) => {
        const moved = await q.query(
          `UPDATE ingestion_checkpoints SET committed_offset = $4, updated_at = now()
           WHERE tenant_id = $1 AND batch_id = $2::uuid AND committed_offset = $3`,
          [tenantId, b.id, chunk.from, chunk.to],
        );
        if (moved.rowCount === 0) throw new ConflictError('another runner has moved this batch on; this one stops');
        if (chunk.staged.length > 0) await stage(q, tenantId, b, dataset, chunk.staged);
        if (chunk.quarantined.length > 0) {
          await q.query(
            `INSERT INTO ingestion_quarantine (batch_id, record_offset, tenant_id, pipeline_id, reason, record, raw_sha256)
             SELECT $1::uuid, t.o, $2, $3::uuid, t.reason, t.record, t.sha FROM jsonb_to_recordset($4::jsonb) AS t(o bigint, reason text, record jsonb, sha text)`,
            [
              b.id,
              tenantId,
              b.pipelineId,
              JSON.stringify(
                chunk.quarantined.map((r) => ({ o: r.offset, reason: r.reason, record: r.record, sha: r.rawSha256 })),
              ),
            ],
          );
        }
        await q.query(
          `UPDATE ingestion_batches SET rows_read = $3, rows_staged = rows_staged + $4, rows_quarantined = rows_quarantined + $5
           WHERE tenant_id = $1 AND id = $2::uuid`,
          [tenantId, b.id, chunk.to, chunk.staged.length, chunk.quarantined.length],
        );
      });
    },

    async end(tenantId, b, e) {
      return sql.transaction(async (q) => {
        const done = e.status === 'completed' || e.status === 'quarantined';
        const res = await q.query(
          `UPDATE ingestion_batches SET status = $3, error = $4, manifest = $5::jsonb, completed_at = CASE WHEN $6 THEN now() ELSE NULL END
           WHERE tenant_id = $1 AND id = $2::uuid AND status = 'running'`,
          [tenantId, b.id, e.status, e.error, e.manifest === null ? null : JSON.stringify(e.manifest), done],
        );
        if (res.rowCount === 0) throw new ConflictError('the batch is no longer running');
        await q.query(
          `UPDATE ingestion_runs SET status = $3, error = $4, ended_at = now() WHERE tenant_id = $1 AND id = $2::uuid`,
          [tenantId, b.runId, e.status, e.error],
        );
        if (e.sourceColumns) {
          await q.query(
            `UPDATE ingestion_pipelines SET source_columns = $3::jsonb WHERE tenant_id = $1 AND id = $2::uuid`,
            [tenantId, b.pipelineId, JSON.stringify(e.sourceColumns)],
          );
        }
        if (e.audit) await sqlOutboxWriter(q, 'ingestion').append(e.audit);
        await sqlInsertNotices(q, [e.notice]);
        await appendLineage(q, tenantId, b.runId, e.lineage);
        return (await get(q, tenantId, b.id))!;
      });
    },

    async get(tenantId, id) {
      return UUID.test(id) ? get(sql, tenantId, id) : null;
    },

    async list(tenantId, pipelineId, limit) {
      if (!UUID.test(pipelineId)) return [];
      const res = await sql.query<BatchRow>(
        `SELECT ${COLUMNS} FROM ingestion_batches WHERE tenant_id = $1 AND pipeline_id = $2::uuid ORDER BY created_at DESC LIMIT $3`,
        [tenantId, pipelineId, limit],
      );
      return res.rows.map(batch);
    },

    async quarantine(tenantId, batchId, limit) {
      if (!UUID.test(batchId)) return [];
      const res = await sql.query<{
        batch_id: string;
        o: number;
        reason: string;
        record: unknown;
        raw_sha256: string;
        created_at: Date | string;
      }>(
        `SELECT batch_id::text, record_offset::float8 AS o, reason, record, raw_sha256, created_at FROM ingestion_quarantine
          WHERE tenant_id = $1 AND batch_id = $2::uuid ORDER BY record_offset LIMIT $3`,
        [tenantId, batchId, limit],
      );
      return res.rows.map((r) => ({
        batchId: r.batch_id,
        offset: r.o,
        reason: r.reason,
        record: r.record === null ? null : json(r.record as Record<string, unknown>),
        rawSha256: r.raw_sha256,
        createdAt: new Date(r.created_at),
      }));
    },

    async staged(tenantId, batchId, after, limit) {
      if (!UUID.test(batchId)) return [];
      // The tenant's batch first: a batch staged whole has its rows in its own table, and its
      // lineage (source, dataset) on the batch and the version it ran under, not on each row.
      const own = await sql.query<{ staged_table: string | null; source_name: string; dataset: string | null }>(
        `SELECT b.staged_table, b.source_name, v.definition->'target'->>'dataset' AS dataset
           FROM ingestion_batches b
           LEFT JOIN ingestion_pipeline_versions v ON v.pipeline_id = b.pipeline_id AND v.version = b.pipeline_version
          WHERE b.tenant_id = $1 AND b.id = $2::uuid`,
        [tenantId, batchId],
      );
      const found = own.rows[0];
      if (!found) return [];
      if (found.staged_table && BATCH_TABLE.test(found.staged_table)) {
        const rows = await sql.query<{ o: number; data: string }>(
          // A batch's own table holds offsets 0..n-1 (batch-table.store.ts), so the page is a range
          // its block-range index finds; tables staged with a primary key read the same way.
          `SELECT record_offset::float8 AS o, data FROM ${BATCH_TABLE_SCHEMA}.${found.staged_table}
            WHERE record_offset > $1 AND record_offset <= GREATEST($1::bigint, -1) + $2 ORDER BY record_offset LIMIT $2`,
          [after, limit],
        );
        return rows.rows.map((r) => ({
          batchId,
          offset: r.o,
          dataset: found.dataset ?? '',
          source: found.source_name,
          data: json(r.data as unknown as Record<string, unknown>),
        }));
      }
      const res = await sql.query<{ batch_id: string; o: number; dataset: string; source: string; data: unknown }>(
        `SELECT batch_id::text, record_offset::float8 AS o, dataset, source, data FROM ingestion_staged_records
          WHERE tenant_id = $1 AND batch_id = $2::uuid AND record_offset > $3 ORDER BY record_offset LIMIT $4`,
        [tenantId, batchId, after, limit],
      );
      return res.rows.map((r) => ({
        batchId: r.batch_id,
        offset: r.o,
        dataset: r.dataset,
        source: r.source,
        data: json(r.data as Record<string, unknown>),
      }));
    },

    async lineage(tenantId, runId) {
      if (!UUID.test(runId)) return [];
      const res = await sql.query<{ event_type: string; event: unknown; created_at: Date | string }>(
        `SELECT event_type, event, created_at FROM ingestion_lineage_events WHERE tenant_id = $1 AND run_id = $2::uuid ORDER BY created_at, id`,
        [tenantId, runId],
      );
      return res.rows.map((r) => ({
        eventType: r.event_type as LineageEvent['eventType'],
        event: json(r.event as Record<string, unknown>),
        createdAt: new Date(r.created_at),
      }));
    },
  };
}
