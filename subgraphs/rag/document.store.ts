// The only code that reads and writes rag_documents and rag_chunks (raw SQL: embeddings are
// pgvector values, which Prisma cannot type). Every read takes the tenant id.
import { randomUUID } from 'node:crypto';
import { toSql } from 'pgvector';
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { sqlOutboxWriter, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import type { Chunk } from './ingestion/chunker';
import type { AccessLevel, Level, RagDocument } from './rag.types';

const json = (v: unknown): string => JSON.stringify(v ?? null);

const DOC_COLUMNS = `d.id::text, d.tenant_id, d.level, d.suite_id, d.module_id, d.entity_id, d.title, d.description, d.source_type, d.file_size,
  d.access_level, d.status, d.doc_metadata, d.content_hash, d.created_by, d.created_at, d.updated_at,
  (SELECT count(*)::int FROM rag_chunks c WHERE c.document_id = d.id) AS chunks_count`;

interface DocRow {
  id: string;
  tenant_id: string;
  level: string;
  suite_id: string | null;
  module_id: string | null;
  entity_id: string | null;
  title: string;
  description: string | null;
  source_type: string | null;
  file_size: number | null;
  access_level: string;
  status: string;
  doc_metadata: Record<string, unknown> | string;
  content_hash: string;
  created_by: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  chunks_count: number;
}

function doc(r: DocRow): RagDocument {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    level: r.level as Level,
    suiteId: r.suite_id,
    moduleId: r.module_id,
    entityId: r.entity_id,
    title: r.title,
    description: r.description,
    sourceType: r.source_type,
    fileSize: r.file_size,
    accessLevel: r.access_level as AccessLevel,
    status: r.status as RagDocument['status'],
    docMetadata:
      typeof r.doc_metadata === 'string' ? (JSON.parse(r.doc_metadata) as Record<string, unknown>) : r.doc_metadata,
    contentHash: r.content_hash,
    chunksCount: Number(r.chunks_count),
    createdBy: r.created_by,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

export interface NewDocument {
  tenantId: string;
  level: Level;
  suiteId: string | null;
  moduleId: string | null;
  entityId: string | null;
  title: string;
  description: string | null;
  sourceType: string;
  fileSize: number;
  accessLevel: AccessLevel;
  metadata: Record<string, unknown>;
  contentHash: string;
  createdBy: string | null;
}

export interface DocumentFilter {
  level?: Level;
  suiteId?: string;
  moduleId?: string;
  accessLevels: readonly AccessLevel[];
  limit: number;
  offset: number;
}

/** An audit event into the shared outbox, with the caller's client (in its transaction when it has one). */
export async function appendAudit(q: SqlQuery, e: AuditEventInput): Promise<void> {
  await sqlOutboxWriter(q, 'rag').append(e);
}

/** Planner statistics are refreshed after this many new chunks (PGlite has no autovacuum). */
const ANALYZE_EVERY_CHUNKS = 1000;

/**
 * Adds (sign 1) or takes away (sign -1) a document's chunks in its tenant's term statistics
 * (rag_term_stats, rag_corpus_stats: text-search.rules.ts). Rows are written in lexeme order, so
 * two documents indexed at once in one tenant wait for each other instead of deadlocking.
 */
async function countTerms(tx: SqlQuery, tenantId: string, documentId: string, sign: 1 | -1): Promise<void> {
  await tx.query(
    `INSERT INTO rag_term_stats (tenant_id, lexeme, chunks)
     SELECT $1::varchar, l, $3::int * count(*)::int FROM rag_chunks c CROSS JOIN LATERAL unnest(tsvector_to_array(c.content_tsv)) AS l
     WHERE c.tenant_id = $1 AND c.document_id = $2::uuid AND c.content_tsv IS NOT NULL GROUP BY l ORDER BY l
     ON CONFLICT (tenant_id, lexeme) DO UPDATE SET chunks = GREATEST(0, rag_term_stats.chunks + EXCLUDED.chunks)`,
    [tenantId, documentId, sign],
  );
  await tx.query(
    `INSERT INTO rag_corpus_stats (tenant_id, chunks) SELECT $1::varchar, $3::int * count(*)::int FROM rag_chunks WHERE tenant_id = $1 AND document_id = $2::uuid
     ON CONFLICT (tenant_id) DO UPDATE SET chunks = GREATEST(0, rag_corpus_stats.chunks + EXCLUDED.chunks)`,
    [tenantId, documentId, sign],
  );
}

export function createDocumentStore(sql: SqlExecutor) {
  let chunksSinceAnalyze = ANALYZE_EVERY_CHUNKS;
  // Without statistics the planner takes a 300-document scope for one row and joins through a
  // nested loop (measured: 37 ms instead of 8 for 1,500 chunks on PostgreSQL).
  const analyzeNow = async () => {
    await sql.query('ANALYZE rag_documents').catch(() => {});
    await sql.query('ANALYZE rag_chunks').catch(() => {});
  };
  return {
    analyze: analyzeNow,

    /** An active document of the tenant with the same text in the same place (dedup). */
    async findDuplicate(
      tenantId: string,
      d: Pick<NewDocument, 'level' | 'suiteId' | 'moduleId' | 'entityId' | 'contentHash'>,
    ): Promise<RagDocument | null> {
      const res = await sql.query<DocRow>(
        `SELECT ${DOC_COLUMNS} FROM rag_documents d WHERE d.tenant_id = $1 AND d.content_hash = $2 AND d.status = 'active' AND d.level = $3
           AND d.suite_id IS NOT DISTINCT FROM $4 AND d.module_id IS NOT DISTINCT FROM $5 AND d.entity_id IS NOT DISTINCT FROM $6 LIMIT 1`,
        [tenantId, d.contentHash, d.level, d.suiteId, d.moduleId, d.entityId],
      );
      return res.rows[0] ? doc(res.rows[0]) : null;
    },

    /** The document, its chunks and its audit event in one transaction. */
    async insert(
      d: NewDocument,
      chunks: Chunk[],
      embeddings: number[][],
      audit: (documentId: string) => AuditEventInput,
    ): Promise<RagDocument> {
      const id = randomUUID();
      await sql.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO rag_documents (id, tenant_id, level, suite_id, module_id, entity_id, title, description, source_type, file_size, access_level, status, doc_metadata, content_hash, created_by, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'active', $12::jsonb, $13, $14, now())`,
          [
            id,
            d.tenantId,
            d.level,
            d.suiteId,
            d.moduleId,
            d.entityId,
            d.title,
            d.description,
            d.sourceType,
            d.fileSize,
            d.accessLevel,
            json(d.metadata),
            d.contentHash,
            d.createdBy,
          ],
        );
        // One statement per batch of rows (unnest), embeddings as pgvector's text form.
        for (let i = 0; i < chunks.length; i += 200) {
          const part = chunks.slice(i, i + 200);
          await tx.query(
            `INSERT INTO rag_chunks (id, document_id, tenant_id, ord, content, content_hash, heading, token_count, embedding, content_tsv)
             SELECT u.id::uuid, $1::uuid, $2, u.ord, u.content, u.hash, u.heading, u.tokens, u.emb::vector(384), to_tsvector('english', coalesce(u.heading, '') || ' ' || u.content)
             FROM unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[]) AS u(id, ord, content, hash, heading, tokens, emb)`,
            [
              id,
              d.tenantId,
              part.map(() => randomUUID()),
              part.map((c) => c.ord),
              part.map((c) => c.content),
              part.map((c) => c.contentHash),
              part.map((c) => c.heading),
              part.map((c) => c.tokenCount),
              part.map((_c, j) => toSql(embeddings[i + j]!) as string),
            ],
          );
        }
        await countTerms(tx, d.tenantId, id, 1);
        await appendAudit(tx, audit(id));
      });
      chunksSinceAnalyze += chunks.length;
      if (chunksSinceAnalyze >= ANALYZE_EVERY_CHUNKS) {
        chunksSinceAnalyze = 0;
        await analyzeNow();
      }
      const created = await this.get(d.tenantId, id);
      if (!created) throw new Error('document vanished after insert');
      return created;
    },

    async get(tenantId: string, id: string): Promise<RagDocument | null> {
      const res = await sql.query<DocRow>(
        `SELECT ${DOC_COLUMNS} FROM rag_documents d WHERE d.tenant_id = $1 AND d.id = $2::uuid`,
        [tenantId, id],
      );
      return res.rows[0] ? doc(res.rows[0]) : null;
    },

    /** The tenant's documents among `ids` (any order; another tenant's ids are absent): one statement. */
    async getMany(tenantId: string, ids: readonly string[]): Promise<RagDocument[]> {
      if (ids.length === 0) return [];
      const res = await sql.query<DocRow>(
        `SELECT ${DOC_COLUMNS} FROM rag_documents d WHERE d.tenant_id = $1 AND d.id = ANY($2::uuid[])`,
        [tenantId, [...ids]],
      );
      return res.rows.map(doc);
    },

    async list(tenantId: string, f: DocumentFilter): Promise<{ items: RagDocument[]; total: number }> {
      const where = [`d.tenant_id = $1`, `d.status = 'active'`, `d.access_level = ANY($2::text[])`];
      const params: unknown[] = [tenantId, [...f.accessLevels]];
      const add = (cond: string, value: unknown) => {
        params.push(value);
        where.push(cond.replace('?', `$${params.length}`));
      };
      if (f.level) add('d.level = ?', f.level);
      if (f.suiteId) add('d.suite_id = ?', f.suiteId);
      if (f.moduleId) add('d.module_id = ?', f.moduleId);
      const total = await sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM rag_documents d WHERE ${where.join(' AND ')}`,
        params,
      );
      const res = await sql.query<DocRow>(
        `SELECT ${DOC_COLUMNS} FROM rag_documents d WHERE ${where.join(' AND ')} ORDER BY d.created_at DESC, d.id LIMIT ${f.limit} OFFSET ${f.offset}`,
        params,
      );
      return { items: res.rows.map(doc), total: Number(total.rows[0]?.n ?? 0) };
    },

    /** A page of one document's chunks in order, after `after` (-1 for the first); the tenant's only. */
    async chunks(
      tenantId: string,
      documentId: string,
      page: { after: number; limit: number },
    ): Promise<{ ord: number; heading: string | null; content: string }[]> {
      const res = await sql.query<{ ord: number; heading: string | null; content: string }>(
        `SELECT ord, heading, content FROM rag_chunks
          WHERE tenant_id = $1 AND document_id = $2::uuid AND ord > $3 ORDER BY ord LIMIT $4`,
        [tenantId, documentId, page.after, page.limit],
      );
      return res.rows.map((r) => ({ ord: Number(r.ord), heading: r.heading, content: r.content }));
    },

    /** Soft delete: the row stays (audit), its chunks stop being searched; cache entries drawing on it go. */
    async softDelete(tenantId: string, id: string, audit: AuditEventInput): Promise<boolean> {
      return sql.transaction(async (tx) => {
        const res = await tx.query(
          `UPDATE rag_documents SET status = 'deleted', updated_at = now() WHERE tenant_id = $1 AND id = $2::uuid AND status = 'active'`,
          [tenantId, id],
        );
        if (res.rowCount === 0) return false;
        await countTerms(tx, tenantId, id, -1);
        await tx.query(`DELETE FROM rag_query_cache WHERE tenant_id = $1 AND $2 = ANY(document_ids)`, [tenantId, id]);
        await appendAudit(tx, audit);
        return true;
      });
    },

    async counts(): Promise<{ documents: number; chunks: number }> {
      const res = await sql.query<{ documents: number; chunks: number }>(
        `SELECT (SELECT count(*)::int FROM rag_documents WHERE status = 'active') AS documents, (SELECT count(*)::int FROM rag_chunks c JOIN rag_documents d ON d.id = c.document_id WHERE d.status = 'active') AS chunks`,
      );
      return { documents: Number(res.rows[0]?.documents ?? 0), chunks: Number(res.rows[0]?.chunks ?? 0) };
    },
  };
}

export type DocumentStore = ReturnType<typeof createDocumentStore>;

/**
 * Retention (platform/retention, record type `rag_document`): deletes at most `limit` of the
 * tenant's documents created before `cutoff` (not those created by `heldUsers`), active or soft
 * deleted, with their chunks, the answer-cache entries drawing on them and (for active ones) their
 * share of the term statistics; how many documents.
 */
export async function purgeRagDocuments(
  q: SqlQuery,
  tenantId: string,
  cutoff: Date,
  heldUsers: readonly string[],
  limit: number,
): Promise<number> {
  const docs = await q.query<{ id: string; status: string }>(
    `SELECT id::text, status FROM rag_documents WHERE tenant_id = $1 AND created_at < $2
       AND (created_by IS NULL OR NOT (created_by = ANY($3::text[])))
     ORDER BY created_at LIMIT $4 FOR UPDATE SKIP LOCKED`,
    [tenantId, cutoff, [...heldUsers], limit],
  );
  for (const d of docs.rows) if (d.status === 'active') await countTerms(q, tenantId, d.id, -1);
  const ids = docs.rows.map((d) => d.id);
  if (ids.length === 0) return 0;
  await q.query(`DELETE FROM rag_query_cache WHERE tenant_id = $1 AND document_ids && $2::text[]`, [tenantId, ids]);
  const res = await q.query(`DELETE FROM rag_documents WHERE tenant_id = $1 AND id = ANY($2::uuid[])`, [tenantId, ids]);
  return res.rowCount;
}
