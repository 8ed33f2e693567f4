// The full-text side's term statistics (rag_term_stats, rag_corpus_stats) on a real database:
// indexing a document counts its chunks' lexemes, a soft delete takes them away, each tenant's
// counts are its own, so one tenant's documents never change what another's search matches or
// how it ranks; a rare word finds its chunk among many that share the common words.
import path from 'node:path';
import { registryOf } from '../../../launcher/registry';
import type { Caller } from '../../../platform/auth/caller';
import { createChunkSearchStore, type ScopeFilter } from '../../../subgraphs/rag/chunk-search.store';
import type { Embedder } from '../../../subgraphs/rag/embedding/embedder';
import { createEmbedder } from '../../../subgraphs/rag/embedding/embedder.factory';
import { loadRagConfig, type RagConfig } from '../../../subgraphs/rag/rag.config';
import { createRagModule, type RagModule } from '../../../subgraphs/rag/rag.module';
import { createTestDatabase, type TestDatabase } from '../../support/database';

jest.setTimeout(120_000);

let db: TestDatabase;
let rag: RagModule;
let config: RagConfig;
const broker = {
  inference: async () =>
    ({ response: 'x', model_used: 'offline', tokens_used: 1, rag_chunks_used: 0, sources: [] }) as never,
};
const caller = (tenant: string): Caller => ({ correlationId: `c-${tenant}`, headerTenant: tenant });
const filter = (tenantId: string): ScopeFilter => ({
  tenantId,
  levels: ['platform'],
  scope: {},
  accessLevels: ['internal', 'external', 'public'],
});

async function stats(tenantId: string, lexemes: string[]): Promise<Record<string, number>> {
  const res = await db.sql.query<{ lexeme: string; chunks: number }>(
    `SELECT lexeme, chunks FROM rag_term_stats WHERE tenant_id = $1 AND lexeme = ANY($2::text[])`,
    [tenantId, lexemes],
  );
  const corpus = await db.sql.query<{ chunks: number }>(`SELECT chunks FROM rag_corpus_stats WHERE tenant_id = $1`, [
    tenantId,
  ]);
  return { ...Object.fromEntries(res.rows.map((r) => [r.lexeme, r.chunks])), N: corpus.rows[0]?.chunks ?? 0 };
}

async function ingest(tenant: string, title: string, text: string): Promise<string> {
  return (
    await rag.documents.upload(
      caller(tenant),
      { bytes: Buffer.from(text), filename: `${title}.md` },
      { title, level: 'platform' },
      {},
    )
  ).document.id;
}

beforeAll(async () => {
  db = await createTestDatabase();
  const c = loadRagConfig(process.env, registryOf(), { requireAuth: false });
  config = { ...c, embedding: { ...c.embedding, cacheDir: path.resolve(c.embedding.cacheDir) } };
  const embedder: Embedder = await createEmbedder(config.embedding);
  rag = createRagModule({ db, config, embedder, broker });
});
afterAll(async () => {
  await db?.drop();
});

test('indexing counts lexemes per tenant, a soft delete takes them away', async () => {
  const first = await ingest('ts-a', 'Invoices', 'Supplier invoices are archived for ten years.');
  await ingest('ts-a', 'Contracts', 'Supplier contracts are renewed every year.');
  expect(await stats('ts-a', ['supplier', 'invoic', 'contract'])).toEqual({
    supplier: 2,
    invoic: 1,
    contract: 1,
    N: 2,
  });
  expect(await stats('ts-b', ['supplier'])).toEqual({ N: 0 });
  await rag.documents.delete(caller('ts-a'), first);
  expect(await stats('ts-a', ['supplier', 'invoic', 'contract'])).toEqual({
    supplier: 1,
    invoic: 0,
    contract: 1,
    N: 1,
  });
});

test("a rare word finds its chunk among many that share the common words; another tenant's documents change nothing", async () => {
  for (let i = 0; i < 40; i++)
    await ingest(
      'ts-c',
      `Routine ${i}`,
      `The payment report lists every payment and report of the quarter, item ${i}.`,
    );
  await ingest('ts-c', 'Sanctions', 'The payment report flags any payment to an embargoed country.');
  const search = createChunkSearchStore(db.sql, {
    exactSearchMaxRows: config.exactSearchMaxRows,
    efSearch: config.efSearch,
  });
  const query = 'payment report embargoed';
  const before = await search.fullText(filter('ts-c'), query, 5, 20);
  expect(before[0]!.documentTitle).toBe('Sanctions');
  // Tenant ts-d indexes many documents full of ts-c's rare word: ts-c's matches and ranks stay the same.
  for (let i = 0; i < 30; i++)
    await ingest('ts-d', `Embargo ${i}`, `Embargoed goods list ${i}: embargoed items are never shipped.`);
  const after = await search.fullText(filter('ts-c'), query, 5, 20);
  expect(after.map((h) => [h.chunkId, h.textRank])).toEqual(before.map((h) => [h.chunkId, h.textRank]));
  expect(after.every((h) => !h.documentTitle.startsWith('Embargo '))).toBe(true);
});

test('hybrid retrieval through the domain puts the rare-word passage first', async () => {
  const r = await rag.retrieval.retrieve(caller('ts-c'), 'ts-c', {
    query: 'Which payments go to an embargoed country?',
    scope: {},
    topK: 3,
    useHybrid: true,
  });
  expect(r.chunks[0]!.documentTitle).toBe('Sanctions');
});
