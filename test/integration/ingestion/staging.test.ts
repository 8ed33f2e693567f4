// A chunk's staged rows as the store writes them: with COPY FROM STDIN on PostgreSQL (DATABASE_URL
// set) or one INSERT over jsonb_to_recordset on PGlite. Values that COPY's text format must escape
// (backslashes, tabs, newlines, CRs, in the record and in the batch's own columns) come back as
// they went in; the chunk and its checkpoint commit together or not at all; another tenant reads none of it.
import { randomUUID } from 'node:crypto';
import type { SqlExecutor } from '../../../platform/db/sql';
import { createBatchStore, type Chunk } from '../../../subgraphs/ingestion/batch.store';
import { createTestDatabase, type TestDatabase } from '../../support/database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

const RECORDS: Record<string, unknown>[] = [
  { id: 1, text: 'back\\slash, tab\tand\nnewline\r\nand "quotes"' },
  { id: 2, text: '\\N is not null here', nested: { a: [1, 'x\\y'], b: null } },
  { id: 3, text: 'ünïcödé ✓ \u2028 line separator', n: 1.5e-7 },
  { id: 4, text: '\\.' },
];

async function openBatch(store: ReturnType<typeof createBatchStore>, tenantId: string, sourceName: string) {
  const opened = await store.open(
    tenantId,
    { pipelineId: randomUUID(), pipelineVersion: 1, sourceName, contentSha256: randomUUID() },
    () => ({ eventType: 'START' }),
  );
  return opened.batch;
}

const chunk = (from: number, records: Record<string, unknown>[]): Chunk => ({
  staged: records.map((r, i) => ({ offset: from + i, json: JSON.stringify(r) })),
  quarantined: [],
  from,
  to: from + records.length,
});

it(`stages a chunk (${process.env.DATABASE_URL ? 'COPY on PostgreSQL' : 'INSERT on PGlite'}) with every value as it was`, async () => {
  // Counts the COPYs the store makes: one a chunk on PostgreSQL, none on PGlite.
  let copies = 0;
  const counting: SqlExecutor = {
    ...db.sql,
    transaction: (work) =>
      db.sql.transaction((q) =>
        work({
          ...q,
          copyFrom: q.copyFrom && ((text, data) => (copies++, q.copyFrom!(text, data))),
        }),
      ),
  };
  const store = createBatchStore(counting);
  const batch = await openBatch(store, 'stage-a', 'odd\tname\\with\nbreaks.csv');
  await store.commitChunk('stage-a', batch, 'data\\set', chunk(0, RECORDS));
  const staged = await store.staged('stage-a', batch.id, -1, 100);
  expect(staged.map((s) => s.offset)).toEqual([0, 1, 2, 3]);
  expect(staged.map((s) => s.data)).toEqual(RECORDS);
  expect(staged.every((s) => s.source === 'odd\tname\\with\nbreaks.csv' && s.dataset === 'data\\set')).toBe(true);
  expect((await store.get('stage-a', batch.id))!.rowsStaged).toBe(4);
  expect(copies).toBe(db.kind === 'postgres' ? 1 : 0);

  // Another tenant sees neither the batch nor its rows.
  expect(await store.get('stage-b', batch.id)).toBeNull();
  expect(await store.staged('stage-b', batch.id, -1, 100)).toEqual([]);
});

it('commits nothing of a chunk whose checkpoint was moved by another runner', async () => {
  const store = createBatchStore(db.sql);
  const batch = await openBatch(store, 'stage-a', 'race.csv');
  await store.commitChunk('stage-a', batch, 'd', chunk(0, RECORDS.slice(0, 2)));
  // A second runner read the same checkpoint (0) and tries to commit the same offsets again.
  await expect(store.commitChunk('stage-a', batch, 'd', chunk(0, RECORDS.slice(0, 2)))).rejects.toThrow(
    /another runner/,
  );
  // A chunk whose rows fail (a duplicate offset) leaves the checkpoint where it was.
  await expect(
    store.commitChunk('stage-a', batch, 'd', { ...chunk(2, RECORDS.slice(0, 1)), staged: [{ offset: 1, json: '{}' }] }),
  ).rejects.toThrow();
  await store.commitChunk('stage-a', batch, 'd', chunk(2, RECORDS.slice(2)));
  const staged = await store.staged('stage-a', batch.id, -1, 100);
  expect(staged.map((s) => s.offset)).toEqual([0, 1, 2, 3]);
  expect((await store.get('stage-a', batch.id))!.rowsRead).toBe(4);
});
