// The proof that a filtered HNSW search never comes back short. 1,500 chunks of another tenant and
// 30 of ours share one HNSW index; the index's plain scan yields its ef_search nearest rows of the
// whole table, of which the WHERE clause keeps ours, about 2%. With the exact-search shortcut
// off (RAG_EXACT_SEARCH_MAX_ROWS=0), top_k 20 must still give 20 rows: through pgvector's
// iterative scan where the server has it, else through the exact fallback; the bare index scan
// (mode 'index', iterative scan off) shows the problem is real.
import { createChunkSearchStore } from '../../../subgraphs/rag/chunk-search.store';
import { l2normalise } from '../../../subgraphs/rag/embedding/embedder';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { addChunks, platformScope } from '../../support/rag-chunks';

jest.setTimeout(300_000);

function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}
const random = prng(42);
const vector = () => l2normalise(Array.from({ length: 384 }, random));

let db: TestDatabase;
const filter = platformScope;

beforeAll(async () => {
  db = await createTestDatabase();
  await addChunks(db.sql, 'noise', 1500, vector);
  await addChunks(db.sql, 'ours', 30, vector);
});
afterAll(async () => {
  await db?.drop();
});

test("top_k 20 under a 2% filter: 20 rows by the index path, with or without pgvector's iterative scan", async () => {
  const query = vector();
  const withIterative = createChunkSearchStore(db.sql, { exactSearchMaxRows: 0, efSearch: 40, forceIndex: true });
  const withoutIterative = createChunkSearchStore(db.sql, {
    exactSearchMaxRows: 0,
    efSearch: 40,
    iterativeScan: false,
    forceIndex: true,
  });

  const bare = await withoutIterative.nearest(filter('ours'), query, 20, 'index');
  expect(bare.hits.length).toBeLessThan(20);
  // The index can serve the ordering (forced as the store forces it: this table is small enough for a seq scan).
  const plan = await db.sql.transaction(async (tx) => {
    for (const setting of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort'])
      await tx.query(`SET LOCAL ${setting} = off`);
    return tx.query<Record<string, string>>(
      `EXPLAIN SELECT id FROM rag_chunks c WHERE c.embedding IS NOT NULL ORDER BY c.embedding <=> $1::vector(384) LIMIT 5`,
      [JSON.stringify(query)],
    );
  });
  expect(JSON.stringify(plan.rows)).toContain('rag_chunks_embedding_hnsw');

  const exact = await withIterative.nearest(filter('ours'), query, 20, 'exact');
  expect(exact.hits).toHaveLength(20);
  for (const store of [withIterative, withoutIterative]) {
    const r = await store.nearest(filter('ours'), query, 20);
    expect(r.hits).toHaveLength(20);
    expect(r.hits.every((h) => h.documentTitle === 'ours doc')).toBe(true);
    expect(['hnsw-iterative', 'hnsw+exact']).toContain(r.method);
  }
  const fallback = await withoutIterative.nearest(filter('ours'), query, 20);
  expect(fallback.method).toBe('hnsw+exact');
  expect(fallback.hits.map((h) => h.chunkId)).toEqual(exact.hits.map((h) => h.chunkId));
});

test('a small scope is searched exactly, and the index path agrees with it on an unfiltered tenant', async () => {
  const query = vector();
  const store = createChunkSearchStore(db.sql, { exactSearchMaxRows: 5000, efSearch: 100 });
  const small = await store.nearest(filter('ours'), query, 20);
  expect(small.method).toBe('exact');
  expect(small.hits).toHaveLength(20);
  const noiseIndex = await createChunkSearchStore(db.sql, {
    exactSearchMaxRows: 0,
    efSearch: 100,
    forceIndex: true,
  }).nearest(filter('noise'), query, 10);
  expect(noiseIndex.hits).toHaveLength(10);
});
