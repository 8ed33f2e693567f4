// A large tenant gets its own HNSW index (tenant-index.store.ts): the maintenance pass builds it
// once a tenant reaches RAG_TENANT_INDEX_MIN_CHUNKS, only for such tenants, once; the planner then
// walks that index for the tenant's searches (EXPLAIN) and the shared one for the others, and the
// answers match exact search. A tenant id with a quote in it is a literal, not SQL.
import { createLogger } from '../../../platform/logging/logger';
import { createChunkSearchStore } from '../../../subgraphs/rag/chunk-search.store';
import { l2normalise } from '../../../subgraphs/rag/embedding/embedder';
import { startRagMaintenance } from '../../../subgraphs/rag/maintenance';
import { createTenantIndexStore, tenantIndexName } from '../../../subgraphs/rag/tenant-index.store';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { addChunks, platformScope } from '../../support/rag-chunks';

jest.setTimeout(120_000);

let db: TestDatabase;
let seed = 7;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648 - 0.5;
};
const vector = () => l2normalise(Array.from({ length: 384 }, random));
const filter = platformScope;
const BIG = "big'one";

beforeAll(async () => {
  db = await createTestDatabase();
  await addChunks(db.sql, BIG, 60, vector);
  await addChunks(db.sql, 'small', 20, vector);
});
afterAll(async () => {
  await db?.drop();
});

test('the tenant past the threshold gets its own index, once; its searches walk it, the others walk the shared one', async () => {
  const tenantIndexes = createTenantIndexStore(db.sql, { concurrently: db.kind === 'postgres' });
  const noJobs = { resumeAbandoned: async () => ({ resumed: 0, failed: 0 }), settle: async () => {} };
  const maintenance = startRagMaintenance({
    documents: noJobs as never,
    answers: { purgeExpired: async () => 0 } as never,
    tenantIndexes,
    tenantIndexMinChunks: 50,
    intervalMs: 60_000,
    logger: createLogger('ERROR', 'rag'),
  });
  try {
    // sweep() waits for the pass the start ran, which built the index; another pass builds none.
    expect((await maintenance.sweep()).indexed).toBe(0);
  } finally {
    await maintenance.stop();
  }
  expect(await tenantIndexes.largeTenants(50)).toEqual([{ tenantId: BIG, index: 'valid' }]);

  const search = createChunkSearchStore(db.sql, { exactSearchMaxRows: 0, efSearch: 200 });
  const query = vector();
  expect(await search.indexPlan(filter(BIG), query, 10)).toContain(tenantIndexName(BIG));
  const shared = await search.indexPlan(filter('small'), query, 10);
  expect(shared).toContain('rag_chunks_embedding_hnsw');
  expect(shared).not.toContain('rag_chunks_hnsw_t_');

  const exact = (await search.nearest(filter(BIG), query, 10, 'exact')).hits.map((h) => h.chunkId);
  const indexed = (await search.nearest(filter(BIG), query, 10, 'index')).hits.map((h) => h.chunkId);
  expect(indexed).toEqual(exact);
});
