// Nearest-neighbour and full-text search over a tenant's active chunks in a cascading scope.
//
// A filtered HNSW search can come back short: the index yields its ef_search nearest rows of
// the whole table and the WHERE clause then drops other tenants' and other scopes' rows. Three
// answers, cheapest first (docs/rag.md, "Decisions"):
//   - a scope of at most `exactSearchMaxRows` chunks is searched exactly (the distance expression
//     is written so the index cannot serve it): exact and fast at that size;
//   - a larger scope uses the HNSW index with pgvector 0.8's iterative scan (`hnsw.iterative_scan
//     = relaxed_order`), which keeps walking the graph until the LIMIT is met;
//   - where that is unavailable or still short, the exact search answers.
// So a search never returns fewer than top_k rows when the scope holds that many.
import { toSql } from 'pgvector';
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import type { AccessLevel, Level, Scope } from './rag.types';
import { planTextSearch } from './text-search.rules';

export interface ScopeFilter {
  tenantId: string;
  /** The levels the scope reaches (cascading rule) and the ids that pin each. */
  levels: Level[];
  scope: Scope;
  accessLevels: readonly AccessLevel[];
}

export interface VectorHit {
  chunkId: string;
  documentId: string;
  documentTitle: string;
  level: Level;
  content: string;
  heading: string | null;
  similarity: number;
}

export interface TextHit extends VectorHit {
  textRank: number;
}

interface HitRow {
  chunk_id: string;
  document_id: string;
  title: string;
  level: string;
  content: string;
  heading: string | null;
  similarity: number | string;
  text_rank?: number | string;
}

const hit = (r: HitRow): VectorHit => ({
  chunkId: r.chunk_id,
  documentId: r.document_id,
  documentTitle: r.title,
  level: r.level as Level,
  content: r.content,
  heading: r.heading,
  similarity: Number(r.similarity),
});

/** WHERE clause of the cascading scope, its parameters appended to `params`. */
export function scopeWhere(f: ScopeFilter, params: unknown[]): string {
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const tenant = add(f.tenantId);
  const levelConds = f.levels.map((level) => {
    if (level === 'platform') return `d.level = 'platform'`;
    if (level === 'suite') return `(d.level = 'suite' AND d.suite_id = ${add(f.scope.suiteId)})`;
    const pins = [`d.level = '${level}'`];
    if (level === 'module' || level === 'entity') {
      if (f.scope.moduleId !== undefined) pins.push(`d.module_id = ${add(f.scope.moduleId)}`);
      if (f.scope.suiteId !== undefined) pins.push(`(d.suite_id IS NULL OR d.suite_id = ${add(f.scope.suiteId)})`);
    }
    if (level === 'entity') pins.push(`d.entity_id = ${add(f.scope.entityId)}`);
    return `(${pins.join(' AND ')})`;
  });
  return `c.tenant_id = ${tenant} AND d.tenant_id = ${tenant} AND d.status = 'active' AND d.access_level = ANY(${add([...f.accessLevels])}::text[]) AND (${levelConds.join(' OR ')})`;
}

const SELECT = `c.id::text AS chunk_id, d.id::text AS document_id, d.title, d.level, c.content, c.heading`;

export interface SearchOptions {
  exactSearchMaxRows: number;
  efSearch: number;
  /** false: never use pgvector's iterative scan (tests the fallback); default: when the server has it. */
  iterativeScan?: boolean;
  /**
   * Past the exact-search size the HNSW index is used even where the planner would join
   * through the tenant's btree indexes and sort (measured on PostgreSQL, 1,500 chunks in scope:
   * 27 ms p50 that way, 4 ms through the index); false leaves the choice to the planner.
   */
  forceIndex?: boolean;
}

export function createChunkSearchStore(sql: SqlExecutor, options: SearchOptions) {
  let iterativeScan: boolean | undefined;
  const supportsIterativeScan = async (): Promise<boolean> => {
    if (options.iterativeScan === false) return false;
    if (iterativeScan === undefined) {
      iterativeScan = await sql.query(`SELECT current_setting('hnsw.iterative_scan', true) AS v`).then(
        (r) => r.rows[0] !== undefined && (r.rows[0] as { v: unknown }).v != null,
        () => false,
      );
    }
    return iterativeScan;
  };

  async function exact(q: SqlQuery, f: ScopeFilter, vector: string, k: number): Promise<VectorHit[]> {
    const params: unknown[] = [vector];
    const where = scopeWhere(f, params);
    // `+ 0` keeps the HNSW index out: this is the exact (brute-force) distance over the scope.
    const res = await q.query<HitRow>(
      `SELECT ${SELECT}, 1 - (c.embedding <=> $1::vector(384)) AS similarity FROM rag_chunks c JOIN rag_documents d ON d.id = c.document_id
       WHERE c.embedding IS NOT NULL AND ${where} ORDER BY (c.embedding <=> $1::vector(384)) + 0, c.id LIMIT ${k}`,
      params,
    );
    return res.rows.map(hit);
  }

  const approximateQuery = (f: ScopeFilter, vector: string, k: number) => {
    const params: unknown[] = [vector];
    const where = scopeWhere(f, params);
    return {
      text: `SELECT ${SELECT}, 1 - (c.embedding <=> $1::vector(384)) AS similarity FROM rag_chunks c JOIN rag_documents d ON d.id = c.document_id
       WHERE c.embedding IS NOT NULL AND ${where} ORDER BY c.embedding <=> $1::vector(384) LIMIT ${k}`,
      params,
    };
  };

  async function approximate(q: SqlQuery, f: ScopeFilter, vector: string, k: number): Promise<VectorHit[]> {
    const { text, params } = approximateQuery(f, vector, k);
    return (await q.query<HitRow>(text, params)).rows.map(hit);
  }

  /** Runs `work` with the index path's settings, local to one transaction, set in one round trip. */
  async function indexPath<T>(
    mode: 'auto' | 'exact' | 'index',
    k: number,
    work: (tx: SqlQuery) => Promise<T>,
  ): Promise<T> {
    const settings: [string, string][] = [['hnsw.ef_search', String(Math.max(options.efSearch, k))]];
    if (await supportsIterativeScan()) settings.push(['hnsw.iterative_scan', 'relaxed_order']);
    if (options.forceIndex !== false || mode === 'index')
      settings.push(['enable_seqscan', 'off'], ['enable_bitmapscan', 'off'], ['enable_sort', 'off']);
    return sql.transaction(async (tx) => {
      await tx.query(
        `SELECT ${settings.map((_s, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ')}`,
        settings.flat(),
      );
      return work(tx);
    });
  }

  return {
    /** The plan of the index path (EXPLAIN): which HNSW index a tenant's search walks (tests, operators). */
    async indexPlan(f: ScopeFilter, embedding: number[], k: number): Promise<string> {
      const { text, params } = approximateQuery(f, toSql(embedding) as string, k);
      const res = await indexPath('index', k, (tx) => tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params));
      return res.rows.map((r) => r['QUERY PLAN']).join('\n');
    },

    /** Chunks in scope, up to exactSearchMaxRows + 1: decides between exact search and the index. */
    async countInScope(f: ScopeFilter): Promise<number> {
      const params: unknown[] = [];
      const where = scopeWhere(f, params);
      // Counting stops past the threshold: the decision needs no more, and a large scope is not scanned.
      const res = await sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT 1 FROM rag_chunks c JOIN rag_documents d ON d.id = c.document_id WHERE c.embedding IS NOT NULL AND ${where} LIMIT ${options.exactSearchMaxRows + 1}) s`,
        params,
      );
      return Number(res.rows[0]?.n ?? 0);
    },

    /** The k nearest chunks in scope by cosine; `mode` is for the benchmark's recall check. */
    async nearest(
      f: ScopeFilter,
      embedding: number[],
      k: number,
      mode: 'auto' | 'exact' | 'index' = 'auto',
    ): Promise<{ hits: VectorHit[]; method: 'exact' | 'hnsw' | 'hnsw-iterative' | 'hnsw+exact' }> {
      const vector = toSql(embedding) as string;
      if (mode === 'exact') return { hits: await exact(sql, f, vector, k), method: 'exact' };
      if (mode === 'auto') {
        const inScope = await this.countInScope(f);
        if (inScope <= options.exactSearchMaxRows) return { hits: await exact(sql, f, vector, k), method: 'exact' };
      }
      const iterative = await supportsIterativeScan();
      const hits = await indexPath(mode, k, (tx) => approximate(tx, f, vector, k));
      // relaxed_order may return rows slightly out of order: sort by the distance itself.
      hits.sort((a, b) => b.similarity - a.similarity);
      if (hits.length >= k || mode === 'index') return { hits, method: iterative ? 'hnsw-iterative' : 'hnsw' };
      return { hits: await exact(sql, f, vector, k), method: 'hnsw+exact' };
    },

    /**
     * Full-text matches by the plan of text-search.rules.ts: the tenant's document frequencies of
     * the question's lexemes (rag_term_stats) choose the candidates, at most `budget` of them, and
     * each candidate is ranked by the IDF-weighted ts_rank_cd of every known word. `expansion`
     * (query-expansion.ts) adds words with a weight below the question's own (a lexeme both in the
     * question and an expansion counts as the question's).
     */
    async fullText(
      f: ScopeFilter,
      query: string,
      k: number,
      budget: number,
      expansion: readonly { word: string; weight: number }[] = [],
    ): Promise<TextHit[]> {
      const texts = [query, ...expansion.map((e) => e.word)];
      const boosts = [1, ...expansion.map((e) => e.weight)];
      const stats = await sql.query<{ lexeme: string; boost: number; df: number | null; n: number | null }>(
        `WITH q AS (SELECT l, max(u.w) AS boost FROM unnest($2::text[], $3::float8[]) AS u(t, w), unnest(tsvector_to_array(to_tsvector('english', u.t))) AS l GROUP BY l)
         SELECT q.l AS lexeme, q.boost, s.chunks AS df, (SELECT chunks FROM rag_corpus_stats WHERE tenant_id = $1) AS n
         FROM q LEFT JOIN rag_term_stats s ON s.tenant_id = $1 AND s.lexeme = q.l`,
        [f.tenantId, texts, boosts],
      );
      const chunks = Number(stats.rows[0]?.n ?? 0);
      const plan = planTextSearch(
        stats.rows.map((r) => ({ lexeme: r.lexeme, df: Number(r.df ?? 0), boost: Number(r.boost) })),
        chunks,
        budget,
      );
      let hits: TextHit[] = [];
      for (const match of plan.matches) {
        const params: unknown[] = [match, plan.rank.map((r) => r.query), plan.rank.map((r) => r.weight)];
        const where = scopeWhere(f, params);
        const res = await sql.query<HitRow>(
          `SELECT m.chunk_id, m.document_id, m.title, m.level, m.content, m.heading, 0 AS similarity,
                  (SELECT sum(u.w * ts_rank_cd(m.tsv, u.q::tsquery)) FROM unnest($2::text[], $3::float8[]) AS u(q, w)) AS text_rank
           FROM (SELECT ${SELECT}, c.content_tsv AS tsv FROM rag_chunks c JOIN rag_documents d ON d.id = c.document_id
                 WHERE c.content_tsv IS NOT NULL AND c.content_tsv @@ $1::tsquery AND ${where} LIMIT ${budget}) m
           ORDER BY text_rank DESC, m.chunk_id LIMIT ${k}`,
          params,
        );
        hits = res.rows.map((r) => ({ ...hit(r), textRank: Number(r.text_rank) }));
        if (hits.length >= k) break;
      }
      return hits;
    },

    /** Cosine similarity of given chunks to the query (for text-only hits in a hybrid result). */
    async similarities(tenantId: string, chunkIds: string[], embedding: number[]): Promise<Map<string, number>> {
      if (chunkIds.length === 0) return new Map();
      const res = await sql.query<{ id: string; s: number | string }>(
        `SELECT id::text AS id, 1 - (embedding <=> $1::vector(384)) AS s FROM rag_chunks WHERE tenant_id = $2 AND id = ANY($3::uuid[])`,
        [toSql(embedding), tenantId, chunkIds],
      );
      return new Map(res.rows.map((r) => [r.id, Number(r.s)]));
    },
  };
}

export type ChunkSearchStore = ReturnType<typeof createChunkSearchStore>;
