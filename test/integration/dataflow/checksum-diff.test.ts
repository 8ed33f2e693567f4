// The checksum-and-split diff on a real database (PGlite, or PostgreSQL with DATABASE_URL): it
// finds exactly the keys the in-memory `match` (exact rule) finds, on datasets cut into many
// cells; it reads only the cells that differ; it falls back to one join when most cells differ;
// and another tenant's rows under the same dataset names never enter the comparison.
import { checksumDiff, DEFAULT_DIFF } from '../../../subgraphs/dataflow/checksum-diff';
import type { PackReconciliation, StagedRecord } from '../../../subgraphs/dataflow/dataflow.types';
import { sqlDatasetStore, type DatasetStore } from '../../../subgraphs/dataflow/dataset.store';
import { createTestDatabase, type TestDatabase } from '../../support/database';

jest.setTimeout(120_000);

let db: TestDatabase;
let store: DatasetStore;
beforeAll(async () => {
  db = await createTestDatabase();
  store = sqlDatasetStore(db.sql);
});
afterAll(async () => {
  await db?.drop();
});

const spec = (left: string, right: string): PackReconciliation => ({
  name: 'diff',
  left,
  right,
  method: 'checksum_diff',
  pii: ['name'],
  sample_size: 3,
});
const records = (n: number, data: (i: number) => Record<string, unknown> | null): StagedRecord[] =>
  Array.from({ length: n }, (_, i) => ({ key: `k${String(i).padStart(4, '0')}`, data: data(i) })).filter(
    (r): r is StagedRecord => r.data !== null,
  );
const small = { ...DEFAULT_DIFF, cellRows: 16 };

/** The keys of each category, compared in memory (the reference: whole records, key order aside). */
function expected(left: StagedRecord[], right: StagedRecord[]) {
  const canon = (d: Record<string, unknown>) => JSON.stringify(Object.entries(d).sort(([a], [b]) => (a < b ? -1 : 1)));
  const byKey = new Map(right.map((r) => [r.key, r.data]));
  const want = { matched: 0, unmatched_left: [] as string[], unmatched_right: [] as string[], break: [] as string[] };
  for (const l of left) {
    const r = byKey.get(l.key);
    if (!r) want.unmatched_left.push(l.key);
    else if (canon(r) === canon(l.data)) want.matched++;
    else want.break.push(l.key);
    byKey.delete(l.key);
  }
  want.unmatched_right = [...byKey.keys()];
  return want;
}

it('finds exactly the keys the in-memory match finds, including the first and last keys', async () => {
  const left = records(1000, (i) => (i % 97 === 5 ? null : { id: i, name: `n${i}`, amount: i }));
  const right = records(1000, (i) =>
    i === 0 || i === 999 || i % 131 === 7
      ? { id: i, name: `n${i}`, amount: -i - 1 }
      : i % 89 === 3
        ? null
        : { amount: i, id: i, name: `n${i}` },
  );
  right.push({ key: 'zz-only-right', data: { id: -1 } });
  await store.stage('acme', 'a_l', left, null);
  await store.stage('acme', 'a_r', right, null);

  const { result, rows } = await checksumDiff(store, 'acme', spec('a_l', 'a_r'), 'a_l', 'a_r', small);
  const want = expected(left, right);
  const keys = (c: string) =>
    rows
      .filter((r) => r.category === c)
      .map((r) => r.key)
      .sort();
  expect(keys('unmatched_left')).toEqual([...want.unmatched_left].sort());
  expect(keys('unmatched_right')).toEqual([...want.unmatched_right].sort());
  expect(keys('break')).toEqual([...want.break].sort());
  expect(keys('break')).toEqual(expect.arrayContaining(['k0000', 'k0999']));
  expect(result).toMatchObject({
    method: 'checksum_diff',
    result: 'failed',
    matched: { count: want.matched },
    breaks: { count: want.break.length },
  });
  // Key order of the JSON object is not a difference (the right side lists `amount` first).
  expect(want.matched).toBeGreaterThan(900);
  // PII masked in samples and stored rows.
  expect(result.breaks.samples[0]).toMatchObject({ left: { name: '***' }, right: { name: '***' } });
  expect(result.breaks.samples).toHaveLength(3);
});

it('settles equal datasets from the sums alone and reads only the cells that differ', async () => {
  const left = records(2000, (i) => ({ v: i }));
  await store.stage('acme', 'b_l', left, null);
  await store.stage('acme', 'b_r', left, null);
  const equal = await checksumDiff(store, 'acme', spec('b_l', 'b_r'), 'b_l', 'b_r', small);
  expect(equal.result).toMatchObject({ result: 'passed', matched: { count: 2000 }, rows_compared: 0 });
  expect(equal.result.differing_ranges).toEqual([]);

  await store.stage('acme', 'b_r', [{ key: 'k1234', data: { v: -1 } }], null);
  const one = await checksumDiff(store, 'acme', spec('b_l', 'b_r'), 'b_l', 'b_r', small);
  expect(one.result).toMatchObject({ result: 'failed', matched: { count: 1999 }, breaks: { count: 1 } });
  expect(one.rows.map((r) => r.key)).toEqual(['k1234']);
  expect(one.result.differing_ranges).toHaveLength(1);
  const [range] = one.result.differing_ranges!;
  expect(range!.from! <= 'k1234' && 'k1234' < range!.to!).toBe(true);
  expect(one.result.rows_compared).toBeLessThanOrEqual(2 * small.cellRows);
});

it('compares everything in one join when most cells differ, with the same answer', async () => {
  const left = records(600, (i) => ({ v: i }));
  const right = records(600, (i) => (i === 7 ? null : { v: i % 3 === 0 ? i : -i }));
  right.push({ key: 'k9999', data: { v: 1 } });
  await store.stage('acme', 'c_l', left, null);
  await store.stage('acme', 'c_r', right, null);
  const { result, rows } = await checksumDiff(store, 'acme', spec('c_l', 'c_r'), 'c_l', 'c_r', small);
  expect(result.rows_compared).toBe(1200);
  expect(result.differing_ranges).toEqual([{ from: null, to: null, rows: 1200 }]);
  expect(result).toMatchObject({
    matched: { count: 200 },
    breaks: { count: 399 },
    unmatched_left: { count: 1 },
    unmatched_right: { count: 1 },
  });
  const want = expected(left, right);
  expect(rows.filter((r) => r.category === 'break').map((r) => r.key)).toEqual(want.break);
});

it('handles an empty side and never reads another tenant', async () => {
  const left = records(100, (i) => ({ v: i }));
  await store.stage('acme', 'd_l', left, null);
  await store.stage('other', 'd_r', left, null);
  await store.stage(
    'other',
    'd_l',
    records(5, (i) => ({ v: -i })),
    null,
  );
  const { result } = await checksumDiff(store, 'acme', spec('d_l', 'd_r'), 'd_l', 'd_r', small);
  expect(result).toMatchObject({
    matched: { count: 0 },
    unmatched_left: { count: 100 },
    unmatched_right: { count: 0 },
  });
  const none = await checksumDiff(store, 'nobody', spec('d_l', 'd_r'), 'd_l', 'd_r', small);
  expect(none.result).toMatchObject({ result: 'passed', matched: { count: 0 }, rows_compared: 0 });
});
