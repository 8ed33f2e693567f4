// rag_ingest_jobs: the progress of POST /v1/rag/ingest (queued → processing → completed | failed).
import { randomUUID } from 'node:crypto';
import type { SqlExecutor } from '../../platform/db/sql';
import type { IngestJob, JobStatus } from './rag.types';

interface Row { id: string; tenant_id: string; status: string; percent: number; stage: string | null; document_id: string | null; error: string | null; created_at: Date | string; updated_at: Date | string }

const job = (r: Row): IngestJob => ({
  id: r.id, tenantId: r.tenant_id, status: r.status as JobStatus, percent: r.percent, stage: r.stage, documentId: r.document_id, error: r.error, createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at),
});

export function createIngestJobStore(sql: SqlExecutor) {
  return {
    async create(tenantId: string): Promise<IngestJob> {
      const id = randomUUID();
      const res = await sql.query<Row>(
        `INSERT INTO rag_ingest_jobs (id, tenant_id, status, percent, stage, updated_at) VALUES ($1::uuid, $2, 'queued', 0, 'queued', now())
         RETURNING id::text, tenant_id, status, percent, stage, document_id::text, error, created_at, updated_at`, [id, tenantId],
      );
      return job(res.rows[0]!);
    },

    async update(tenantId: string, id: string, p: { status: JobStatus; percent: number; stage: string; documentId?: string; error?: string }): Promise<void> {
      await sql.query(
        `UPDATE rag_ingest_jobs SET status = $3, percent = $4, stage = $5, document_id = COALESCE($6::uuid, document_id), error = $7, updated_at = now() WHERE tenant_id = $1 AND id = $2::uuid`,
        [tenantId, id, p.status, p.percent, p.stage, p.documentId ?? null, p.error ?? null],
      );
    },

    async get(tenantId: string, id: string): Promise<IngestJob | null> {
      const res = await sql.query<Row>(
        `SELECT id::text, tenant_id, status, percent, stage, document_id::text, error, created_at, updated_at FROM rag_ingest_jobs WHERE tenant_id = $1 AND id = $2::uuid`, [tenantId, id],
      );
      return res.rows[0] ? job(res.rows[0]) : null;
    },
  };
}

export type IngestJobStore = ReturnType<typeof createIngestJobStore>;
