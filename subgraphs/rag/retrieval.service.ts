// Retrieval (POST /retrieve, POST /v1/rag/search, GraphQL `search`): the query embedded once,
// the tenant's active chunks in the cascading scope searched by cosine (and, when use_hybrid, by
// full text over the question and its WordNet expansion), the two rankings fused (FUSION below,
// docs/rag.md "Hybrid"), the context-priority boost applied, best first.
import { performance } from 'node:perf_hooks';
import type { Caller } from '../../platform/auth/caller';
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import { l2normalise, type Embedder } from './embedding/embedder';
import type { ExpansionTerm, QueryExpander } from './expansion/query-expansion';
import type { SoftMatcher } from './ranking/soft-match';
import type { ChunkSearchStore, ScopeFilter, VectorHit } from './chunk-search.store';
import type { RagConfig } from './rag.config';
import type { RetrievedChunk, Scope } from './rag.types';
import { boosted, cascadeLevels, normaliseScope, readableAccessLevels, scopeIssues } from './scope.rules';

/**
 * How hybrid search merges its rankings: by cosine, by full text and (when the embedder has word
 * vectors) by soft word matching (ranking/soft-match.ts) of the candidates either found. `rrf`:
 * weighted reciprocal rank fusion, Σ weight/(k + rank). `convex`: each score normalised over the
 * candidates (cosine and soft match min-max, text rank over the best), then Σ weight × score'.
 * Tuned on the dev split of test/fixtures/rag/eval-set.json (`npm run bench -- rag-eval`), never
 * on its held-out split.
 */
export interface FusionOptions {
  method: 'rrf' | 'convex';
  vectorWeight: number;
  textWeight: number;
  softWeight: number;
  k: number;
  /**
   * The hybrid's vector side searches with the question's vector plus this times the vector of
   * its expansion words (renormalised); 0: the question's vector alone.
   */
  expansionVector: number;
}

// Dev split (70 questions), `npm run bench -- rag-eval dev`: this beat convex combinations and
// RRF with k = 60 (docs/benchmarks.md). Soft matching carries most of the weight: it is the
// signal that meets paraphrased words one by one.
export const FUSION: FusionOptions = {
  method: 'rrf',
  vectorWeight: 0.3,
  textWeight: 0.1,
  softWeight: 0.6,
  k: 10,
  expansionVector: 0,
};
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
  constructor(
    private readonly deps: {
      config: RagConfig;
      embedder: Embedder;
      search: ChunkSearchStore;
      /** The question's expansion words, per question word for soft matching and merged for the full-text side (none: no expansion). */
      expander?: () => Pick<QueryExpander, 'expandEach' | 'merge'>;
      fusion?: FusionOptions;
      /** Soft word matching of the candidates (none: the embedder has no word vectors). */
      softMatch?: SoftMatcher;
    },
  ) {}

  /** The expansion words hybrid search adds to a question's full-text side. */
  expansion(query: string): ExpansionTerm[] {
    const expander = this.deps.expander?.();
    return expander ? expander.merge(expander.expandEach(query)) : [];
  }

  get embedder(): Embedder {
    return this.deps.embedder;
  }

  /** Field checks shared by /retrieve, /query and GraphQL: issues name the domain's fields. */
  parse(input: RetrieveInput, defaults: { useHybrid: boolean }): ParsedRetrieve {
    const { config } = this.deps;
    const issues: InputIssue[] = [];
    if (typeof input.query !== 'string' || input.query.trim() === '')
      issues.push({ loc: ['query'], msg: 'Field required: a non-empty string', type: 'missing' });
    else if (input.query.length > MAX_QUERY_CHARS)
      issues.push({
        loc: ['query'],
        msg: `String should have at most ${MAX_QUERY_CHARS} characters`,
        type: 'string_too_long',
      });
    let topK = config.defaultTopK;
    if (input.topK !== undefined && input.topK !== null) {
      if (typeof input.topK !== 'number' || !Number.isInteger(input.topK) || input.topK < 1)
        issues.push({ loc: ['topK'], msg: 'Input should be an integer of at least 1', type: 'greater_than_equal' });
      else if (input.topK > config.maxTopK)
        issues.push({
          loc: ['topK'],
          msg: `Input should be less than or equal to ${config.maxTopK}`,
          type: 'less_than_equal',
        });
      else topK = input.topK;
    }
    if (input.useHybrid !== undefined && input.useHybrid !== null && typeof input.useHybrid !== 'boolean')
      issues.push({ loc: ['useHybrid'], msg: 'Input should be a valid boolean', type: 'bool_type' });
    issues.push(...scopeIssues(input as Record<string, unknown>));
    if (issues.length > 0) throw new InputError(issues);
    return {
      query: (input.query as string).trim(),
      topK,
      useHybrid: typeof input.useHybrid === 'boolean' ? input.useHybrid : defaults.useHybrid,
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
    const chunks = p.useHybrid
      ? await this.hybrid(filter, p.query, vector, p.topK)
      : await this.vectorOnly(filter, vector, p.topK);
    return {
      query: p.query,
      chunks: chunks.hits,
      retrievalTimeMs: Math.round((performance.now() - started) * 100) / 100,
      levels: filter.levels,
      method: chunks.method,
    };
  }

  private async vectorOnly(
    filter: ScopeFilter,
    vector: number[],
    k: number,
  ): Promise<{ hits: RetrievedChunk[]; method: string }> {
    // Over-fetch a little: the boost may lift a more specific chunk from just below the cut.
    const { hits, method } = await this.deps.search.nearest(filter, vector, Math.min(k * 2, k + 20));
    const ranked = hits
      .map((h) => toResult(h, h.similarity))
      .sort((a, b) => b.score - a.score || a.chunkId.localeCompare(b.chunkId));
    return { hits: cascadeOrder(ranked, this.deps.config.cascadeMargin).slice(0, k), method };
  }

  private async hybrid(
    filter: ScopeFilter,
    query: string,
    questionVector: number[],
    k: number,
  ): Promise<{ hits: RetrievedChunk[]; method: string }> {
    const pool = Math.max(k * 4, 20);
    const fusion = this.deps.fusion ?? FUSION;
    const expander = this.deps.expander?.();
    const each = expander?.expandEach(query) ?? new Map<string, ExpansionTerm[]>();
    const expansion = expander?.merge(each) ?? [];
    let vector = questionVector;
    if (fusion.expansionVector > 0 && expansion.length > 0) {
      const [extra] = await this.deps.embedder.embed([expansion.map((e) => e.word).join(' ')]);
      vector = l2normalise(questionVector.map((x, i) => x + fusion.expansionVector * extra![i]!));
    }
    const [{ hits: byVector, method }, byText] = await Promise.all([
      this.deps.search.nearest(filter, vector, pool),
      this.deps.search.fullText(filter, query, pool, this.deps.config.textCandidates, expansion),
    ]);
    const similarity = new Map(byVector.map((h) => [h.chunkId, h.similarity]));
    const missing = byText.filter((h) => !similarity.has(h.chunkId)).map((h) => h.chunkId);
    // The database computes the text-only hits' cosines while soft matching runs here.
    const pending = this.deps.search.similarities(filter.tenantId, missing, vector);
    const hits = new Map<string, VectorHit>([...byText, ...byVector].map((h) => [h.chunkId, h]));
    // Soft matching scores the best 2×top_k of each side: it reorders what could reach the top k,
    // at half the cost of scoring the whole pool (the rest keeps its vector and text ranks).
    const candidates = [
      ...new Map([...byText.slice(0, 2 * k), ...byVector.slice(0, 2 * k)].map((h) => [h.chunkId, h])).values(),
    ];
    const soft =
      this.deps.softMatch && fusion.softWeight > 0
        ? this.deps.softMatch
            .score(
              query,
              candidates.map((h) => (h.heading ? `${h.heading}\n${h.content}` : h.content)),
              each,
            )
            .map((score, i) => ({ id: candidates[i]!.chunkId, score }))
        : [];
    for (const [id, s] of await pending) similarity.set(id, s);
    const fused = fuse(
      byVector.map((h) => ({ id: h.chunkId, score: h.similarity })),
      byText.map((h) => ({ id: h.chunkId, score: h.textRank })),
      soft,
      similarity,
      fusion,
    );
    const ranked = [...fused]
      .map(([id, f]) => ({ result: toResult(hits.get(id)!, similarity.get(id) ?? 0), f }))
      .sort((a, b) => b.f - a.f || b.result.score - a.result.score || a.result.chunkId.localeCompare(b.result.chunkId));
    return {
      hits: cascadeOrder(
        ranked.map((r) => r.result),
        this.deps.config.cascadeMargin,
      ).slice(0, k),
      method: `hybrid(${method}+fts)`,
    };
  }
}

/**
 * The fused score of every candidate of either side (FusionOptions). `cosine` holds the cosine of
 * every candidate, text-only ones included, so `convex` normalises over the whole pool; `soft`
 * scores every candidate (or none).
 */
export function fuse(
  byVector: readonly { id: string; score: number }[],
  byText: readonly { id: string; score: number }[],
  soft: readonly { id: string; score: number }[],
  cosine: ReadonlyMap<string, number>,
  options: FusionOptions,
): Map<string, number> {
  const out = new Map<string, number>();
  const add = (id: string, x: number) => out.set(id, (out.get(id) ?? 0) + x);
  if (options.method === 'rrf') {
    const byRank = (list: readonly { id: string; score: number }[], weight: number) =>
      [...list]
        .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
        .forEach((h, i) => add(h.id, weight / (options.k + i + 1)));
    byRank(byVector, options.vectorWeight);
    // The text side comes ranked (ties broken by the store).
    byText.forEach((h, i) => add(h.id, options.textWeight / (options.k + i + 1)));
    byRank(soft, options.softWeight);
    return out;
  }
  const ids = [...new Set([...byVector.map((h) => h.id), ...byText.map((h) => h.id)])];
  const minMax = (values: ReadonlyMap<string, number>) => {
    const all = ids.map((id) => values.get(id) ?? 0);
    const lo = Math.min(...all);
    const span = Math.max(...all) - lo;
    return (id: string) => (span > 0 ? ((values.get(id) ?? 0) - lo) / span : 1);
  };
  const c = minMax(cosine);
  const s = minMax(new Map(soft.map((h) => [h.id, h.score])));
  const text = new Map(byText.map((h) => [h.id, h.score]));
  const best = Math.max(0, ...byText.map((h) => h.score));
  for (const id of ids) {
    const t = best > 0 ? (text.get(id) ?? 0) / best : 0;
    out.set(
      id,
      options.vectorWeight * c(id) + options.textWeight * t + (soft.length > 0 ? options.softWeight * s(id) : 0),
    );
  }
  return out;
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
    chunkId: h.chunkId,
    documentId: h.documentId,
    documentTitle: h.documentTitle,
    level: h.level,
    content: h.content,
    heading: h.heading,
    similarity,
    score: Math.round(boosted(similarity, h.level) * 1e6) / 1e6,
  };
}
