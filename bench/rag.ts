// `npm run bench -- rag`: the retrieval service's figures, in process over the domain (no HTTP),
// on PGlite (or PostgreSQL with DATABASE_URL). Prints numbers; passes or fails on nothing.
//  1. Ingestion: documents/s and chunks/s (read, chunk, embed, insert with the HNSW index).
//  2. Retrieval latency, query embedding included: p50/p95 of top-5 vector-only and hybrid.
//  3. HNSW recall@10 against exact search on the same data (index path forced).
//  4. Semantic cache: latency of a cache hit.
//  5. The labelled set (test/fixtures/rag/labelled-set.json): recall@5 and MRR for vector-only,
//     full-text-only and hybrid.
// RAG_BENCH_DOCS (default 300, about 1,500 chunks: ~2 minutes on a loaded 2-core machine) sets
// the corpus size; RAG_BENCH_QUERIES (default 200) the number of timed queries. RAG_BENCH_KEEP=1
// keeps the generated corpus under a fixed tenant and reuses it on the next run of the same size
// (on PostgreSQL, where 20,000 documents take minutes to ingest). RAG_BENCH_CORPUS: `topical`
// (default) or `uniform` (the worst case), bench/rag-corpus.support.ts.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { registryOf } from '../launcher/registry';
import type { Caller } from '../platform/auth/caller';
import { openDatabase } from '../platform/db/database';
import { createChunkSearchStore, type ScopeFilter } from '../subgraphs/rag/chunk-search.store';
import { createEmbedder } from '../subgraphs/rag/embedding/embedder.factory';
import { loadRagConfig } from '../subgraphs/rag/rag.config';
import { createRagModule } from '../subgraphs/rag/rag.module';
import labelled from '../test/fixtures/rag/labelled-set.json';
import { generateCorpus, prng, type CorpusKind } from './rag-corpus.support';

const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function timed(queries: string[], once: (q: string) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await once(q);
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

export async function run(): Promise<void> {
  const docs = Number(process.env.RAG_BENCH_DOCS ?? 300);
  const nQueries = Number(process.env.RAG_BENCH_QUERIES ?? 200);
  const env = { ...process.env, LOG_LEVEL: 'ERROR' };
  const db = await openDatabase({ url: process.env.DATABASE_URL, pgliteDir: 'memory://', poolSize: 10 });
  const config = loadRagConfig(env, registryOf(), { requireAuth: false });
  const embedder = await createEmbedder({ ...config.embedding, cacheDir: path.resolve(config.embedding.cacheDir) });
  const broker = {
    inference: async () =>
      ({
        response: 'stub answer',
        model_used: 'stub',
        tokens_used: 10,
        rag_chunks_used: 3,
        sources: ['stub'],
      }) as never,
  };
  const rag = createRagModule({ db, config, embedder, broker });
  const kind = (process.env.RAG_BENCH_CORPUS ?? 'topical') as CorpusKind;
  if (kind !== 'topical' && kind !== 'uniform')
    throw new Error(`RAG_BENCH_CORPUS is 'topical' or 'uniform', got '${kind as string}'`);
  const keep = process.env.RAG_BENCH_KEEP === '1';
  const run = `bench-${Date.now()}`;
  const tenant = keep ? `bench-corpus-${kind}-${docs}` : run;
  const caller: Caller = { correlationId: 'bench', headerTenant: tenant };
  console.log(
    `retrieval benchmark on ${db.description}, embedder ${embedder.name}, ${docs} generated documents (${kind} corpus)`,
  );

  // 1. Ingestion (skipped when a kept corpus of this size is already there).
  const texts = await generateCorpus(kind, docs, config.embedding.cacheDir);
  const kept = keep
    ? (
        await db.sql.query<{ d: number; c: number }>(
          `SELECT (SELECT count(*)::int FROM rag_documents WHERE tenant_id = $1 AND status = 'active') AS d, (SELECT count(*)::int FROM rag_chunks WHERE tenant_id = $1) AS c`,
          [tenant],
        )
      ).rows[0]!
    : { d: 0, c: 0 };
  let chunks = kept.c;
  if (kept.d === docs) {
    console.log(
      `ingestion: skipped, reusing the kept corpus of ${docs} documents, ${chunks} chunks (RAG_BENCH_KEEP=1)`,
    );
  } else {
    if (kept.d > 0)
      throw new Error(
        `tenant ${tenant} holds ${kept.d} of ${docs} documents: an interrupted build; delete its rows or use another size`,
      );
    const started = performance.now();
    for (const [i, d] of texts.entries()) {
      const { document } = await rag.documents.upload(
        caller,
        { bytes: Buffer.from(d.text), filename: `d${i}.md` },
        { title: d.title, level: 'platform' },
        {},
      );
      chunks += document.chunksCount;
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `ingestion: ${docs} documents, ${chunks} chunks in ${fmt(seconds)} s: ${fmt(docs / seconds)} documents/s, ${fmt(chunks / seconds)} chunks/s`,
    );
  }

  // What the maintenance pass does once a tenant is this large: its own HNSW index.
  if (config.tenantIndexMinChunks > 0 && chunks >= config.tenantIndexMinChunks) {
    const large = (await rag.tenantIndexes.largeTenants(config.tenantIndexMinChunks)).find(
      (t) => t.tenantId === tenant,
    );
    if (large?.index === 'none') {
      const t = performance.now();
      await rag.tenantIndexes.build(tenant);
      console.log(
        `tenant HNSW index (${chunks} chunks past RAG_TENANT_INDEX_MIN_CHUNKS ${config.tenantIndexMinChunks}): built in ${fmt((performance.now() - t) / 1000)} s`,
      );
    } else console.log(`tenant HNSW index: ${large?.index ?? 'none'}`);
  }

  // 2. Retrieval latency (query embedding included), top 5.
  const random = prng(11);
  const queryTexts = Array.from({ length: nQueries }, (_, i) => {
    const p = labelled.queries[i % labelled.queries.length]!.q;
    return random() < 0.5 ? p : texts[Math.floor(random() * texts.length)]!.text.split('.')[3]!.trim();
  });
  const tenantId = tenant;
  for (const useHybrid of [false, true]) {
    const ms = await timed(queryTexts, (q) =>
      rag.retrieval.retrieve(caller, tenantId, { query: q, scope: {}, topK: 5, useHybrid }),
    );
    console.log(
      `retrieval top-5 ${useHybrid ? 'hybrid     ' : 'vector-only'}: p50 ${fmt(quantile(ms, 0.5), 2)} ms, p95 ${fmt(quantile(ms, 0.95), 2)} ms (${ms.length} queries, ${chunks} chunks, exact search below ${config.exactSearchMaxRows} chunks in scope)`,
    );
  }
  const indexed = createChunkSearchStore(db.sql, {
    exactSearchMaxRows: 0,
    efSearch: config.efSearch,
    forceIndex: true,
  });
  const forcedIndex = await timed(queryTexts.slice(0, 100), async (q) =>
    indexed.nearest(
      { tenantId, levels: ['platform'], scope: {}, accessLevels: ['internal', 'external', 'public'] },
      (await embedder.embed([q]))[0]!,
      5,
    ),
  );
  console.log(
    `retrieval top-5 vector-only through the HNSW index (forced): p50 ${fmt(quantile(forcedIndex, 0.5), 2)} ms, p95 ${fmt(quantile(forcedIndex, 0.95), 2)} ms`,
  );

  // 3. HNSW recall@10 against exact search.
  const filter: ScopeFilter = {
    tenantId,
    levels: ['platform'],
    scope: {},
    accessLevels: ['internal', 'external', 'public'],
  };
  let overlap = 0;
  const recallQueries = queryTexts.slice(0, 50);
  for (const q of recallQueries) {
    const v = (await embedder.embed([q]))[0]!;
    const exact = new Set((await indexed.nearest(filter, v, 10, 'exact')).hits.map((h) => h.chunkId));
    const approx = (await indexed.nearest(filter, v, 10, 'index')).hits.map((h) => h.chunkId);
    overlap += approx.filter((id) => exact.has(id)).length;
  }
  console.log(
    `HNSW recall@10 vs exact: ${fmt(overlap / (recallQueries.length * 10), 3)} (${recallQueries.length} queries, ef_search ${config.efSearch})`,
  );

  // 4. Cache hit latency.
  const question = 'What is the retention period for supplier invoices?';
  await rag.answers.query(caller, { query: question }, {});
  const hits = await timed(
    Array.from({ length: 100 }, () => question),
    async (q) => {
      const a = await rag.answers.query(caller, { query: q }, {});
      if (!a.cacheHit) throw new Error('expected a cache hit');
    },
  );
  console.log(
    `semantic cache hit (embed, lookup, hit count, audit row): p50 ${fmt(quantile(hits, 0.5), 2)} ms, p95 ${fmt(quantile(hits, 0.95), 2)} ms`,
  );

  // 5. Labelled set: recall@5 and MRR.
  const lt = `${run}-labelled`;
  const lcaller: Caller = { correlationId: 'bench', headerTenant: lt };
  const titleToId = new Map<string, string>();
  for (const p of labelled.passages) {
    const { document } = await rag.documents.upload(
      lcaller,
      { bytes: Buffer.from(p.text), filename: `${p.id}.txt` },
      { title: p.id, level: 'platform' },
      {},
    );
    titleToId.set(p.id, document.id);
  }
  const lfilter: ScopeFilter = {
    tenantId: lt,
    levels: ['platform'],
    scope: {},
    accessLevels: ['internal', 'external', 'public'],
  };
  const search = createChunkSearchStore(db.sql, {
    exactSearchMaxRows: config.exactSearchMaxRows,
    efSearch: config.efSearch,
  });
  const methods: Record<string, (q: string) => Promise<string[]>> = {
    'vector-only': async (q) =>
      (await rag.retrieval.retrieve(lcaller, lt, { query: q, scope: {}, topK: 20, useHybrid: false })).chunks.map(
        (c) => c.documentTitle,
      ),
    'full-text-only': async (q) =>
      (await search.fullText(lfilter, q, 20, config.textCandidates)).map((h) => h.documentTitle),
    hybrid: async (q) =>
      (await rag.retrieval.retrieve(lcaller, lt, { query: q, scope: {}, topK: 20, useHybrid: true })).chunks.map(
        (c) => c.documentTitle,
      ),
  };
  for (const [name, rank] of Object.entries(methods)) {
    let recall5 = 0;
    let mrr = 0;
    for (const q of labelled.queries) {
      const position = (await rank(q.q)).indexOf(q.answer) + 1;
      if (position > 0 && position <= 5) recall5++;
      if (position > 0) mrr += 1 / position;
    }
    console.log(
      `labelled set (${labelled.queries.length} paraphrased questions, ${labelled.passages.length} passages), ${name.padEnd(14)}: recall@5 ${fmt(recall5 / labelled.queries.length, 2)}, MRR ${fmt(mrr / labelled.queries.length, 3)}`,
    );
  }
  await db.close();
}
