// The checksum-and-split diff on a real database (PGlite, or PostgreSQL with DATABASE_URL), by
// the cells kept at write time and by key ranges cut at read time (the fallback): it finds
// exactly the keys the in-memory `match` (exact rule) finds; it reads only the cells that
// differ; it falls back to one join when most cells differ; the kept cells stay equal to a
// recount after upserts, updates and deletes; missing cells fall back to key ranges; and another
// tenant's rows under the same dataset names never enter the comparison.
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
const ranged = { ...small, useCells: false };

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

describe.each([
  ['cells', small, 'x'],
  ['key ranges', ranged, 'y'],
] as const)('by %s', (_, options, p) => {
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
    await store.stage('acme', `${p}a_l`, left, null);
    await store.stage('acme', `${p}a_r`, right, null);

    const { result, rows } = await checksumDiff(
      store,
      'acme',
      spec(`${p}a_l`, `${p}a_r`),
      `${p}a_l`,
      `${p}a_r`,
      options,
    );
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
    // Looked up by the kept cells, or by key ranges.
    expect(options.useCells ? result.differing_cells : result.differing_ranges).toBeDefined();
    // Key order of the JSON object is not a difference (the right side lists `amount` first).
    expect(want.matched).toBeGreaterThan(900);
    // PII masked in samples and stored rows.
    expect(result.breaks.samples[0]).toMatchObject({ left: { name: '***' }, right: { name: '***' } });
    expect(result.breaks.samples).toHaveLength(3);
  });

  it('compares everything in one join when most cells differ, with the same answer', async () => {
    const left = records(600, (i) => ({ v: i, name: `n${i}` }));
    const right = records(600, (i) => (i === 7 ? null : { v: i % 3 === 0 ? i : -i, name: `n${i}` }));
    right.push({ key: 'k9999', data: { v: 1 } });
    await store.stage('acme', `${p}c_l`, left, null);
    await store.stage('acme', `${p}c_r`, right, null);
    const { result, rows } = await checksumDiff(
      store,
      'acme',
      spec(`${p}c_l`, `${p}c_r`),
      `${p}c_l`,
      `${p}c_r`,
      options,
    );
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
    // Masked in place on the rows read for this diff: every stored row and sample, both sides.
    const breakRow = rows.find((r) => r.category === 'break')!;
    expect(breakRow.detail).toEqual({ left: { v: 1, name: '***' }, right: { v: -1, name: '***' } });
    expect(rows.find((r) => r.category === 'unmatched_left')!.detail).toEqual({ left: { v: 7, name: '***' } });
    expect(result.breaks.samples[0]).toEqual({ key: breakRow.key, ...breakRow.detail });
  });

  it('handles an empty side and never reads another tenant', async () => {
    const left = records(100, (i) => ({ v: i }));
    await store.stage('acme', `${p}d_l`, left, null);
    await store.stage('other', `${p}d_r`, left, null);
    await store.stage(
      'other',
      `${p}d_l`,
      records(5, (i) => ({ v: -i })),
      null,
    );
    const { result } = await checksumDiff(store, 'acme', spec(`${p}d_l`, `${p}d_r`), `${p}d_l`, `${p}d_r`, options);
    expect(result).toMatchObject({
      matched: { count: 0 },
      unmatched_left: { count: 100 },
      unmatched_right: { count: 0 },
    });
    const none = await checksumDiff(store, 'nobody', spec(`${p}d_l`, `${p}d_r`), `${p}d_l`, `${p}d_r`, options);
    expect(none.result).toMatchObject({ result: 'passed', matched: { count: 0 }, rows_compared: 0 });
  });
});

it('by key ranges: settles equal datasets from the sums alone and reads only the ranges that differ', async () => {
  const left = records(2000, (i) => ({ v: i }));
  await store.stage('acme', 'b_l', left, null);
  await store.stage('acme', 'b_r', left, null);
  const equal = await checksumDiff(store, 'acme', spec('b_l', 'b_r'), 'b_l', 'b_r', ranged);
  expect(equal.result).toMatchObject({ result: 'passed', matched: { count: 2000 }, rows_compared: 0 });
  expect(equal.result.differing_ranges).toEqual([]);

  await store.stage('acme', 'b_r', [{ key: 'k1234', data: { v: -1 } }], null);
  const one = await checksumDiff(store, 'acme', spec('b_l', 'b_r'), 'b_l', 'b_r', ranged);
  expect(one.result).toMatchObject({ result: 'failed', matched: { count: 1999 }, breaks: { count: 1 } });
  expect(one.rows.map((r) => r.key)).toEqual(['k1234']);
  expect(one.result.differing_ranges).toHaveLength(1);
  const [range] = one.result.differing_ranges!;
  expect(range!.from! <= 'k1234' && 'k1234' < range!.to!).toBe(true);
  expect(one.result.rows_compared).toBeLessThanOrEqual(2 * small.cellRows);
});

/** The kept cells of a dataset (cell -1: its totals) beside a recount from its records (cells at zero left out). */
async function cellsAndRecount(tenant: string, dataset: string) {
  const q = async (sql: string) =>
    (await db.sql.query<{ cell: number; n: string; s: string }>(sql, [tenant, dataset])).rows.map(
      (r) => `${r.cell}:${r.n}:${r.s}`,
    );
  return {
    kept: await q(
      'SELECT cell, n::text AS n, s::text AS s FROM dataflow_cells WHERE tenant_id = $1 AND dataset = $2 AND n <> 0 ORDER BY cell',
    ),
    recount: await q(
      `SELECT coalesce(cell, -1) AS cell, count(*)::text AS n, sum(hashtextextended(record_key || '|' || data::text, 0))::text AS s
         FROM dataflow_records WHERE tenant_id = $1 AND dataset = $2
        GROUP BY GROUPING SETS ((cell), ()) ORDER BY 1`,
    ),
  };
}

it('by cells: settles equal datasets from the kept sums and reads only the cells that differ', async () => {
  const left = records(2000, (i) => ({ v: i }));
  await store.stage('acme', 'e_l', left, null);
  await store.stage('acme', 'e_r', left, null);
  const equal = await checksumDiff(store, 'acme', spec('e_l', 'e_r'), 'e_l', 'e_r');
  expect(equal.result).toMatchObject({ result: 'passed', matched: { count: 2000 }, rows_compared: 0 });
  expect(equal.result.differing_cells).toEqual([]);

  // One record changed on the right: one cell differs, and only its rows are read.
  await store.stage('acme', 'e_r', [{ key: 'k1234', data: { v: -1 } }], null);
  const one = await checksumDiff(store, 'acme', spec('e_l', 'e_r'), 'e_l', 'e_r');
  expect(one.result).toMatchObject({ result: 'failed', matched: { count: 1999 }, breaks: { count: 1 } });
  expect(one.rows.map((r) => r.key)).toEqual(['k1234']);
  expect(one.result.differing_cells).toHaveLength(1);
  expect(one.result.differing_ranges).toBeUndefined();
  expect(one.result.rows_compared).toBeLessThanOrEqual(10);

  // Changed back: equal again.
  await store.stage('acme', 'e_r', [{ key: 'k1234', data: { v: 1234 } }], null);
  const again = await checksumDiff(store, 'acme', spec('e_l', 'e_r'), 'e_l', 'e_r');
  expect(again.result).toMatchObject({ result: 'passed', rows_compared: 0 });
});

it('keeps the cells equal to a recount after upserts, updates, deletes and in rolled-back writes', async () => {
  await store.stage(
    'acme',
    'f',
    records(500, (i) => ({ v: i })),
    null,
  );
  await store.stage(
    'acme',
    'f',
    records(300, (i) => ({ v: i % 2 === 0 ? i : -i })),
    null,
  );
  await db.sql.query(
    `UPDATE dataflow_records SET data = jsonb_set(data, '{w}', '1') WHERE tenant_id = 'acme' AND dataset = 'f' AND record_key LIKE 'k00%'`,
  );
  await db.sql.query(
    `DELETE FROM dataflow_records WHERE tenant_id = 'acme' AND dataset = 'f' AND record_key LIKE 'k01%'`,
  );
  await db.sql.query(
    `UPDATE dataflow_records SET dataset = 'f2' WHERE tenant_id = 'acme' AND dataset = 'f' AND record_key LIKE 'k02%'`,
  );
  await expect(
    db.sql.query(
      `INSERT INTO dataflow_records (tenant_id, dataset, record_key, data)
       VALUES ('acme', 'f', 'new', '{}'), ('acme', 'f', 'new', '{}')`,
    ),
  ).rejects.toThrow();

  for (const dataset of ['f', 'f2']) {
    const { kept, recount } = await cellsAndRecount('acme', dataset);
    expect(recount.length).toBeGreaterThan(50);
    expect(kept).toEqual(recount);
  }
  const deleted = await db.sql.query<{ n: string }>(
    `SELECT coalesce(sum(n), 0)::text AS n FROM dataflow_cells WHERE tenant_id = 'acme' AND dataset = 'f' AND cell >= 0`,
  );
  expect(deleted.rows[0]!.n).toBe(String(500 - 100 - 100));
});

it('falls back to key ranges when a side has records but no cells, with the same answer', async () => {
  const left = records(400, (i) => ({ v: i }));
  const right = records(400, (i) => ({ v: i === 77 ? -1 : i }));
  await store.stage('acme', 'g_l', left, null);
  await store.stage('acme', 'g_r', right, null);
  await db.sql.query(`DELETE FROM dataflow_cells WHERE tenant_id = 'acme' AND dataset = 'g_r'`);
  const { result, rows } = await checksumDiff(store, 'acme', spec('g_l', 'g_r'), 'g_l', 'g_r', small);
  expect(rows.map((r) => r.key)).toEqual(['k0077']);
  expect(result.differing_cells).toBeUndefined();
  expect(result.differing_ranges).toHaveLength(1);
  expect(result.differing_ranges![0]!.from).not.toBeNull();
});

it("by cells: another tenant's cells under the same dataset names are not read", async () => {
  const same = records(300, (i) => ({ v: i }));
  await store.stage('acme', 'h_l', same, null);
  await store.stage('acme', 'h_r', same, null);
  await store.stage(
    'other',
    'h_r',
    records(300, (i) => ({ v: -i })),
    null,
  );
  await store.stage('other', 'h_l', [{ key: 'k0001', data: { v: 'x' } }], null);
  const acme = await checksumDiff(store, 'acme', spec('h_l', 'h_r'), 'h_l', 'h_r');
  expect(acme.result).toMatchObject({ result: 'passed', matched: { count: 300 }, rows_compared: 0 });
  const other = await checksumDiff(store, 'other', spec('h_l', 'h_r'), 'h_l', 'h_r');
  expect(other.result).toMatchObject({ matched: { count: 0 }, breaks: { count: 1 }, unmatched_right: { count: 299 } });
  expect(other.rows.every((r) => !JSON.stringify(r.detail).includes('"v":1'))).toBe(true);
});
