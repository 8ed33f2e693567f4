// Retrieval (POST /retrieve, POST /v1/rag/search, GraphQL `search`): the query embedded once,
// the tenant's active chunks in the cascading scope searched by cosine (and by full text when
// use_hybrid), the two rankings merged by weighted reciprocal rank fusion (vector 0.8, text 0.2,
// k = 60), the context-priority boost applied, best first.
import { performance } from 'node:perf_hooks';
import type { Caller } from '../../platform/auth/caller';
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import type { Embedder } from './embedding/embedder';
import type { ChunkSearchStore, ScopeFilter, VectorHit } from './chunk-search.store';
import type { RagConfig } from './rag.config';
import type { RetrievedChunk, Scope } from './rag.types';
import { boosted, cascadeLevels, normaliseScope, readableAccessLevels, scopeIssues } from './scope.rules';

export const RRF_K = 60;
export const VECTOR_WEIGHT = 0.8;
export const TEXT_WEIGHT = 0.2;
const MAX_QUERY_CHARS = 8000;

export interface RetrieveInput extends Scope {
  query?: unknown;
  topK?: unknown;
  useHybrid?: unknown;
}

export interface RetrieveResult {
  query: string;
  chunks: RetrievedChunk[];
  retrievalTimeMs: number;
  levels: string[];
  method: string;
}

export interface ParsedRetrieve {
  query: string;
  scope: Scope;
  topK: number;
  useHybrid: boolean;
}

export class RetrievalService {
  constructor(private readonly deps: { config: RagConfig; embedder: Embedder; search: ChunkSearchStore }) {}

  get embedder(): Embedder {
    return this.deps.embedder;
  }

  /** Field checks shared by /retrieve, /query and GraphQL: issues name the domain's fields. */
  parse(input: RetrieveInput, defaults: { useHybrid: boolean }): ParsedRetrieve {
    const { config } = this.deps;
    const issues: InputIssue[] = [];
    if (typeof input.query !== 'string' || input.query.trim() === '') issues.push({ loc: ['query'], msg: 'Field required: a non-empty string', type: 'missing' });
    else if (input.query.length > MAX_QUERY_CHARS) issues.push({ loc: ['query'], msg: `String should have at most ${MAX_QUERY_CHARS} characters`, type: 'string_too_long' });
    let topK = config.defaultTopK;
    if (input.topK !== undefined && input.topK !== null) {
      if (typeof input.topK !== 'number' || !Number.isInteger(input.topK) || input.topK < 1) issues.push({ loc: ['topK'], msg: 'Input should be an integer of at least 1', type: 'greater_than_equal' });
      else if (input.topK > config.maxTopK) issues.push({ loc: ['topK'], msg: `Input should be less than or equal to ${config.maxTopK}`, type: 'less_than_equal' });
      else topK = input.topK;
    }
    if (input.useHybrid !== undefined && input.useHybrid !== null && typeof input.useHybrid !== 'boolean') issues.push({ loc: ['useHybrid'], msg: 'Input should be a valid boolean', type: 'bool_type' });
    issues.push(...scopeIssues(input as Record<string, unknown>));
    if (issues.length > 0) throw new InputError(issues);
    return {
      query: (input.query as string).trim(), topK, useHybrid: typeof input.useHybrid === 'boolean' ? input.useHybrid : defaults.useHybrid,
      scope: normaliseScope(input),
    };
  }

  filterFor(caller: Caller, tenantId: string, scope: Scope): ScopeFilter {
    return { tenantId, levels: cascadeLevels(scope), scope, accessLevels: readableAccessLevels(caller) };
  }

  async retrieve(caller: Caller, tenantId: string, p: ParsedRetrieve, embedding?: number[]): Promise<RetrieveResult> {
    const started = performance.now();
    const vector = embedding ?? (await this.deps.embedder.embed([p.query]))[0]!;
    const filter = this.filterFor(caller, tenantId, p.scope);
    const chunks = p.useHybrid ? await this.hybrid(filter, p.query, vector, p.topK) : await this.vectorOnly(filter, vector, p.topK);
    return { query: p.query, chunks: chunks.hits, retrievalTimeMs: Math.round((performance.now() - started) * 100) / 100, levels: filter.levels, method: chunks.method };
  }

  private async vectorOnly(filter: ScopeFilter, vector: number[], k: number): Promise<{ hits: RetrievedChunk[]; method: string }> {
    // Over-fetch a little: the boost may lift a more specific chunk from just below the cut.
    const { hits, method } = await this.deps.search.nearest(filter, vector, Math.min(k * 2, k + 20));
    const ranked = hits.map((h) => toResult(h, h.similarity)).sort((a, b) => b.score - a.score || a.chunkId.localeCompare(b.chunkId));
    return { hits: cascadeOrder(ranked, this.deps.config.cascadeMargin).slice(0, k), method };
  }

  private async hybrid(filter: ScopeFilter, query: string, vector: number[], k: number): Promise<{ hits: RetrievedChunk[]; method: string }> {
    const pool = Math.max(k * 4, 20);
    const [{ hits: byVector, method }, byText] = await Promise.all([
      this.deps.search.nearest(filter, vector, pool),
      this.deps.search.fullText(filter, query, pool, this.deps.config.textCandidates),
    ]);
    const similarity = new Map(byVector.map((h) => [h.chunkId, h.similarity]));
    const missing = byText.filter((h) => !similarity.has(h.chunkId)).map((h) => h.chunkId);
    for (const [id, s] of await this.deps.search.similarities(filter.tenantId, missing, vector)) similarity.set(id, s);
    const fused = new Map<string, { hit: VectorHit; rrf: number }>();
    const vectorRanked = byVector.map((h) => toResult(h, h.similarity)).sort((a, b) => b.score - a.score);
    vectorRanked.forEach((r, i) => fused.set(r.chunkId, { hit: byVector.find((h) => h.chunkId === r.chunkId)!, rrf: VECTOR_WEIGHT / (RRF_K + i + 1) }));
    byText.forEach((h, i) => {
      const entry = fused.get(h.chunkId) ?? { hit: h, rrf: 0 };
      entry.rrf += TEXT_WEIGHT / (RRF_K + i + 1);
      fused.set(h.chunkId, entry);
    });
    const ranked = [...fused.values()]
      .map(({ hit, rrf }) => ({ result: toResult(hit, similarity.get(hit.chunkId) ?? 0), rrf }))
      .sort((a, b) => b.rrf - a.rrf || b.result.score - a.result.score || a.result.chunkId.localeCompare(b.result.chunkId));
    return { hits: cascadeOrder(ranked.map((r) => r.result), this.deps.config.cascadeMargin).slice(0, k), method: `hybrid(${method}+fts)` };
  }
}

const LEVEL_ORDER: Record<string, number> = { entity: 0, module: 1, suite: 2, platform: 3 };

/**
 * Cascading order (spec 02 rule 1, "most specific context first"): the chunks about as relevant
 * as the best one (cosine within `margin` of it) come first, entity before module before suite
 * before platform, each level in the given relevance order; the rest follow in that order. So a
 * specific passage leads when it answers about as well, and a weak specific passage never
 * displaces a clearly better general one.
 */
export function cascadeOrder(ranked: RetrievedChunk[], margin: number): RetrievedChunk[] {
  if (ranked.length === 0) return ranked;
  const best = Math.max(...ranked.map((r) => r.similarity));
  const band = ranked.filter((r) => r.similarity >= best - margin);
  const rest = ranked.filter((r) => r.similarity < best - margin);
  // Array.prototype.sort is stable: within a level the relevance order stays.
  band.sort((a, b) => LEVEL_ORDER[a.level]! - LEVEL_ORDER[b.level]!);
  return [...band, ...rest];
}

function toResult(h: VectorHit, similarity: number): RetrievedChunk {
  return {
    chunkId: h.chunkId, documentId: h.documentId, documentTitle: h.documentTitle, level: h.level, content: h.content, heading: h.heading,
    similarity, score: Math.round(boosted(similarity, h.level) * 1e6) / 1e6,
  };
}
