// The semantic answer cache (rag_query_cache; spec 02 rule 3): an answer is reused for a query
// whose embedding is within the similarity threshold of a cached one, in the same tenant and
// scope, while the entry is younger than its TTL. Entries name the documents they drew on, so a
// change to one of them (or a new document in the scope) removes them.
import { createHash, randomUUID } from 'node:crypto';
import { toSql } from 'pgvector';
import type { SqlExecutor } from '../../platform/db/sql';
import type { CachedAnswer, Level, Scope } from './rag.types';

export function scopeKey(scope: Scope): string {
  return [scope.suiteId ?? '', scope.moduleId ?? '', scope.entityId ?? ''].map((s) => s.replace(/\|/g, '||')).join('|');
}

export interface CacheEntryInput {
  tenantId: string;
  scope: Scope;
  queryText: string;
  embedding: number[];
  answer: string;
  chunksUsed: number;
  documentSources: string[];
  documentIds: string[];
  model: string;
  tokensUsed: number;
  ttlHours: number;
}

interface Row {
  id: string;
  answer: string;
  chunks_used: number;
  document_sources: string[] | string;
  model: string | null;
  tokens_used: number;
  hit_count: number;
  similarity: number | string;
}

export function createQueryCacheStore(sql: SqlExecutor) {
  return {
    /** The closest live entry at or above `threshold`, its hit count raised. */
    async lookup(tenantId: string, scope: Scope, embedding: number[], threshold: number): Promise<CachedAnswer | null> {
      // Few entries per tenant and scope: an exact scan of them is cheap and never misses.
      const res = await sql.query<Row>(
        `SELECT id::text, answer, chunks_used, document_sources, model, tokens_used, hit_count, 1 - (query_embedding <=> $1::vector(384)) AS similarity
         FROM rag_query_cache WHERE tenant_id = $2 AND scope_key = $3 AND expires_at > now() AND query_embedding IS NOT NULL
         ORDER BY (query_embedding <=> $1::vector(384)) + 0 LIMIT 1`,
        [toSql(embedding), tenantId, scopeKey(scope)],
      );
      const row = res.rows[0];
      if (!row || Number(row.similarity) < threshold) return null;
      const updated = await sql.query<{ hit_count: number }>(
        `UPDATE rag_query_cache SET hit_count = hit_count + 1 WHERE id = $1::uuid AND tenant_id = $2 RETURNING hit_count`,
        [row.id, tenantId],
      );
      return {
        id: row.id,
        answer: row.answer,
        chunksUsed: row.chunks_used,
        model: row.model,
        tokensUsed: row.tokens_used,
        similarity: Number(row.similarity),
        documentSources:
          typeof row.document_sources === 'string'
            ? (JSON.parse(row.document_sources) as string[])
            : row.document_sources,
        hitCount: updated.rows[0]?.hit_count ?? row.hit_count + 1,
      };
    },

    async store(e: CacheEntryInput): Promise<void> {
      const key = scopeKey(e.scope);
      const hash = createHash('sha256')
        .update(`${e.tenantId}\n${key}\n${e.queryText.trim().toLowerCase()}`)
        .digest('hex');
      await sql.query(
        `INSERT INTO rag_query_cache (id, tenant_id, query_hash, query_text, query_embedding, answer, chunks_used, document_sources, document_ids, model, tokens_used, context_scope, scope_key, hit_count, expires_at)
         VALUES ($1::uuid, $2, $3, $4, $5::vector(384), $6, $7, $8::jsonb, $9::text[], $10, $11, $12::jsonb, $13, 1, now() + make_interval(secs => $14))
         ON CONFLICT (query_hash) DO UPDATE SET answer = EXCLUDED.answer, query_embedding = EXCLUDED.query_embedding, chunks_used = EXCLUDED.chunks_used,
           document_sources = EXCLUDED.document_sources, document_ids = EXCLUDED.document_ids, model = EXCLUDED.model, tokens_used = EXCLUDED.tokens_used,
           created_at = now(), expires_at = EXCLUDED.expires_at, hit_count = 1`,
        [
          randomUUID(),
          e.tenantId,
          hash,
          e.queryText,
          toSql(e.embedding),
          e.answer,
          e.chunksUsed,
          JSON.stringify(e.documentSources),
          e.documentIds,
          e.model,
          e.tokensUsed,
          JSON.stringify({
            suite_id: e.scope.suiteId ?? null,
            module_id: e.scope.moduleId ?? null,
            entity_id: e.scope.entityId ?? null,
          }),
          key,
          e.ttlHours * 3600,
        ],
      );
    },

    /**
     * A document was added in a place: entries whose scope reaches that place are stale (a
     * platform document reaches every scope of the tenant).
     */
    async invalidateFor(tenantId: string, level: Level, place: Scope): Promise<number> {
      const field =
        level === 'suite' ? 'suite_id' : level === 'module' ? 'module_id' : level === 'entity' ? 'entity_id' : null;
      const value =
        level === 'suite'
          ? place.suiteId
          : level === 'module'
            ? place.moduleId
            : level === 'entity'
              ? place.entityId
              : null;
      const res = field
        ? await sql.query(`DELETE FROM rag_query_cache WHERE tenant_id = $1 AND context_scope->>'${field}' = $2`, [
            tenantId,
            value,
          ])
        : await sql.query(`DELETE FROM rag_query_cache WHERE tenant_id = $1`, [tenantId]);
      return res.rowCount;
    },

    async purgeExpired(): Promise<number> {
      return (await sql.query(`DELETE FROM rag_query_cache WHERE expires_at <= now()`)).rowCount;
    },
  };
}

export type QueryCacheStore = ReturnType<typeof createQueryCacheStore>;
