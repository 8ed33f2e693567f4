// rag_ingest_jobs: the progress of POST /v1/rag/ingest (queued → processing → completed | failed),
// and what makes a job resumable: its input, kept until it ends, and a lease its runner renews at
// every step. A runner whose lease was taken over is fenced off (its updates match no row).
import { randomUUID } from 'node:crypto';
import { RAG_DOCUMENT_INGESTED } from '../../platform/contracts/ingestion.events';
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { sqlNoticeWriter } from '../../platform/outbox/notice.writer';
import type { IngestJob, JobStatus } from './rag.types';

interface Row {
  id: string;
  tenant_id: string;
  status: string;
  percent: number;
  stage: string | null;
  document_id: string | null;
  error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = `id::text, tenant_id, status, percent, stage, document_id::text, error, created_at, updated_at`;

const job = (r: Row): IngestJob => ({
  id: r.id,
  tenantId: r.tenant_id,
  status: r.status as JobStatus,
  percent: r.percent,
  stage: r.stage,
  documentId: r.document_id,
  error: r.error,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

/** A job held by one runner: `owner` names it in the lease. */
export interface Lease {
  owner: string;
  ms: number;
}

export interface ClaimedJob<Input> {
  job: IngestJob;
  input: Input;
  attempts: number;
}

export function createIngestJobStore(sql: SqlExecutor) {
  return {
    async create(tenantId: string, input: unknown, lease: Lease): Promise<IngestJob> {
      const res = await sql.query<Row>(
        `INSERT INTO rag_ingest_jobs (id, tenant_id, status, percent, stage, updated_at, input, attempts, lease_owner, lease_until)
         VALUES ($1::uuid, $2, 'queued', 0, 'queued', now(), $3::jsonb, 1, $4, now() + make_interval(secs => $5::double precision / 1000))
         RETURNING ${COLUMNS}`,
        [randomUUID(), tenantId, JSON.stringify(input), lease.owner, lease.ms],
      );
      return job(res.rows[0]!);
    },

    /**
     * Progress by the lease holder, renewing its lease; the end (completed or failed) clears the
     * input and the lease. false: the lease is someone else's now, and this runner must stop.
     */
    async update(
      tenantId: string,
      id: string,
      lease: Lease,
      p: { status: JobStatus; percent: number; stage: string; documentId?: string; error?: string },
    ): Promise<boolean> {
      const ended = p.status === 'completed' || p.status === 'failed';
      const statement = (q: SqlQuery) =>
        q.query(
          `UPDATE rag_ingest_jobs SET status = $3, percent = $4, stage = $5, document_id = COALESCE($6::uuid, document_id), error = $7, updated_at = now(),
           input = CASE WHEN $8 THEN NULL ELSE input END,
           lease_until = CASE WHEN $8 THEN NULL ELSE now() + make_interval(secs => $10::double precision / 1000) END
         WHERE tenant_id = $1 AND id = $2::uuid AND lease_owner = $9 AND status IN ('queued', 'processing')`,
          [
            tenantId,
            id,
            p.status,
            p.percent,
            p.stage,
            p.documentId ?? null,
            p.error ?? null,
            ended,
            lease.owner,
            lease.ms,
          ],
        );
      if (p.status !== 'completed' || !p.documentId) return (await statement(sql)).rowCount > 0;
      // The completion and its rag.document_ingested notice commit together (the notice outbox).
      const documentId = p.documentId;
      return sql.transaction(async (q) => {
        if ((await statement(q)).rowCount === 0) return false;
        await sqlNoticeWriter(q, 'rag').append(
          RAG_DOCUMENT_INGESTED,
          { tenant_id: tenantId, job_id: id, document_id: documentId, at: new Date().toISOString() },
          { tenantId, subject: `rag-document/${documentId}` },
        );
        return true;
      });
    },

    async get(tenantId: string, id: string): Promise<IngestJob | null> {
      const res = await sql.query<Row>(
        `SELECT ${COLUMNS} FROM rag_ingest_jobs WHERE tenant_id = $1 AND id = $2::uuid`,
        [tenantId, id],
      );
      return res.rows[0] ? job(res.rows[0]) : null;
    },

    /**
     * The service's own sweep over every tenant's jobs (as the outbox relay sweeps every tenant's
     * events; nothing here is answered to a caller): unfinished jobs whose lease ran out are
     * taken over, up to `limit`, oldest first; those already tried `maxAttempts` times fail.
     */
    async claimAbandoned<Input>(
      lease: Lease,
      maxAttempts: number,
      limit: number,
    ): Promise<{ claimed: ClaimedJob<Input>[]; failed: IngestJob[] }> {
      const failed = await sql.query<Row>(
        `UPDATE rag_ingest_jobs SET status = 'failed', stage = 'failed', percent = 100, input = NULL, lease_until = NULL, updated_at = now(),
           error = 'the ingestion was interrupted ' || attempts || ' times (its process stopped); upload the document again'
         WHERE status IN ('queued', 'processing') AND lease_until < now() AND attempts >= $1 RETURNING ${COLUMNS}`,
        [maxAttempts],
      );
      const claimed = await sql.query<Row & { input: unknown; attempts: number }>(
        `UPDATE rag_ingest_jobs SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::double precision / 1000), attempts = attempts + 1, updated_at = now()
         WHERE id IN (SELECT id FROM rag_ingest_jobs WHERE status IN ('queued', 'processing') AND lease_until < now() AND input IS NOT NULL
                      ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING ${COLUMNS}, input, attempts`,
        [lease.owner, lease.ms, limit],
      );
      return {
        claimed: claimed.rows.map((r) => ({
          job: job(r),
          input: (typeof r.input === 'string' ? JSON.parse(r.input) : r.input) as Input,
          attempts: r.attempts,
        })),
        failed: failed.rows.map(job),
      };
    },
  };
}

export type IngestJobStore = ReturnType<typeof createIngestJobStore>;
