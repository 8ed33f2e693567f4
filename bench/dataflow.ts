// `npm run bench -- dataflow [rows]` (issue 33): reconciling two tables of `rows` records (default
// 200,000; the figure is 1,000,000) in dataflow_records, on in-memory PGlite and, when
// DATABASE_URL is set, on a throwaway PostgreSQL database. For 10% and for 0.05% of rows
// differing: the checksum-and-split diff (checksum_diff), the in-memory key match (`match`,
// reading both sides), and beside them, in the same run on the same rows, a plain SQL FULL OUTER
// JOIN counting the differing keys (the baseline). `npm run bench -- dataflow <rows> postgres`
// runs PostgreSQL only, `... jsonata` the JSONata rate only. Then JSONata transforms per record (the
// worker thread the service uses) in records/s. Times are wall clock on whatever the machine is
// doing: the load average is printed with them.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { openDatabase, type Database } from '../platform/db/database';
import { checksumDiff } from '../subgraphs/dataflow/checksum-diff';
import { sqlDatasetStore } from '../subgraphs/dataflow/dataset.store';
import type { PackReconciliation } from '../subgraphs/dataflow/dataflow.types';
import { evaluatePerRecord } from '../subgraphs/dataflow/jsonata.transform';
import { matchDatasets } from '../subgraphs/dataflow/reconcile.match';

const TENANT = 'bench';
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

async function timed<T>(what: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await what();
  return { ms: performance.now() - t0, value };
}

/** `left`, and `right_<n>` where every n-th row's amount differs, all `rows` long. */
async function seed(db: Database, rows: number, everies: number[]): Promise<void> {
  const insert = (dataset: string, every: number | null) =>
    db.sql.query(
      `INSERT INTO dataflow_records (tenant_id, dataset, record_key, data)
       SELECT $1, $2, lpad(i::text, 9, '0'),
              jsonb_build_object('id', i, 'name', 'customer ' || i,
                'amount', (i % 1000) + CASE WHEN $3::int IS NOT NULL AND i % $3::int = 0 THEN 1 ELSE 0 END)
         FROM generate_series(1, $4::int) AS i`,
      [TENANT, dataset, every, rows],
    );
  await insert('left', null);
  for (const e of everies) await insert(`right_${e}`, e);
  await db.sql.query('ANALYZE dataflow_records');
}

async function joinBaseline(db: Database, right: string): Promise<number> {
  const { rows } = await db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM (SELECT record_key, data FROM dataflow_records WHERE tenant_id = $1 AND dataset = 'left') l
       FULL OUTER JOIN (SELECT record_key, data FROM dataflow_records WHERE tenant_id = $1 AND dataset = $2) r
         ON l.record_key = r.record_key
      WHERE l.record_key IS NULL OR r.record_key IS NULL OR l.data <> r.data`,
    [TENANT, right],
  );
  return rows[0]!.n;
}

async function benchOn(label: string, config: { url?: string; pgliteDir: string; poolSize: number }, rows: number) {
  const db = await openDatabase(config);
  try {
    console.log(`\n## ${label}: ${rows.toLocaleString('en')} rows a side (load average ${load()})`);
    const everies = [10, 2000];
    const seeded = await timed(() => seed(db, rows, everies));
    console.log(`seeded ${(everies.length + 1) * rows} rows in ${(seeded.ms / 1000).toFixed(1)} s`);
    const store = sqlDatasetStore(db.sql);
    console.log('| differing | method | seconds | rows/s (both sides) | differences found | × the join |');
    console.log('|---|---|---|---|---|---|');
    for (const every of everies) {
      const right = `right_${every}`;
      const share = `${(100 / every).toFixed(2)}%`;
      const spec: PackReconciliation = {
        name: 'bench',
        left: 'left',
        right,
        compare: [{ left: 'amount', rule: 'exact' }],
        sample_size: 5,
      };
      // Join and diff taken in turns, three times each, the median kept: on a shared machine one
      // run's ratio moves by half either way.
      const joins: Awaited<ReturnType<typeof timed<number>>>[] = [];
      const diffs: Awaited<ReturnType<typeof timed<Awaited<ReturnType<typeof checksumDiff>>>>>[] = [];
      for (let i = 0; i < 3; i++) {
        joins.push(await timed(() => joinBaseline(db, right)));
        diffs.push(await timed(() => checksumDiff(store, TENANT, { ...spec, method: 'checksum_diff' }, 'left', right)));
      }
      const median = <T extends { ms: number }>(xs: T[]) => [...xs].sort((a, b) => a.ms - b.ms)[1]!;
      const join = median(joins);
      const diff = median(diffs);
      const match = await timed(async () => {
        const [l, r] = [
          await store.read(TENANT, 'left', null, rows + 1),
          await store.read(TENANT, right, null, rows + 1),
        ];
        return matchDatasets(
          spec,
          l.map(({ key, data }) => ({ key, data })),
          r.map(({ key, data }) => ({ key, data })),
        );
      });
      const line = (method: string, ms: number, found: number) =>
        console.log(
          `| ${share} | ${method} | ${(ms / 1000).toFixed(2)} | ${Math.round((2 * rows) / (ms / 1000)).toLocaleString('en')} | ${found} | ${(ms / join.ms).toFixed(2)} |`,
        );
      line('SQL FULL OUTER JOIN (baseline)', join.ms, join.value);
      const d = diff.value.result;
      line(
        d.differing_cells
          ? `checksum_diff by kept cells (${d.rows_compared} rows compared, ${d.differing_cells.length} cells)`
          : d.differing_ranges?.length === 1 &&
              d.differing_ranges[0]!.from === null &&
              d.differing_ranges[0]!.to === null
            ? `checksum_diff → one join (${d.rows_compared} rows compared)`
            : `checksum_diff by key ranges (${d.rows_compared} rows compared, ${d.differing_ranges?.length ?? 0} ranges)`,
        diff.ms,
        d.breaks.count + d.unmatched_left.count + d.unmatched_right.count,
      );
      const m = match.value.result;
      line(
        'match (read both, compare in memory)',
        match.ms,
        m.breaks.count + m.unmatched_left.count + m.unmatched_right.count,
      );
    }
  } finally {
    await db.close();
  }
}

async function jsonataRate(records: number): Promise<void> {
  const input = Array.from({ length: records }, (_, i) => ({ id: i, name: `customer ${i}`, amount: i % 1000 }));
  const expression = '{ "id": id, "label": $uppercase(name), "amount": amount * 1.2, "big": amount > 500 }';
  // Per core: the records over the CPU time this process spent (the worker thread evaluating,
  // this thread copying batches to and from it), which other processes' load does not inflate
  // the way it inflates wall time. jsonata's own evaluator for every record (fast: false, as
  // before the fast path) and the service's default, in turns, the better of two runs each.
  const once = async (fast: boolean) => {
    const stats = { fast: 0 };
    const cpu0 = process.cpuUsage();
    const t = await timed(() =>
      evaluatePerRecord(expression, input, { timeoutMs: 600_000, maxHeapMb: 1024 }, ['bench'], { fast, stats }),
    );
    const cpu = process.cpuUsage(cpu0);
    return { ms: t.ms, cpuSeconds: (cpu.user + cpu.system) / 1e6, fast: stats.fast };
  };
  console.log(`\n## JSONata per record: ${records.toLocaleString('en')} records (load average ${load()})`);
  console.log('| evaluator | seconds | records/s wall | records per CPU second | records on the fast path |');
  console.log('|---|---|---|---|---|');
  for (const fast of [false, true]) {
    const runs = [await once(fast), await once(fast)];
    const best = runs.sort((a, b) => a.cpuSeconds - b.cpuSeconds)[0]!;
    console.log(
      `| ${fast ? 'fast path (default)' : 'jsonata evaluate per record'} | ${(best.ms / 1000).toFixed(2)} | ` +
        `${Math.round(records / (best.ms / 1000)).toLocaleString('en')} | ` +
        `${Math.round(records / best.cpuSeconds).toLocaleString('en')} | ${best.fast.toLocaleString('en')} |`,
    );
  }
}

export async function run(args: string[]): Promise<void> {
  const rows = Number(args[0] ?? 200_000) || 200_000;
  // `postgres` as the second argument skips PGlite (and the JSONata rate); `jsonata` runs only that.
  const only = args[1];
  console.log(`# dataflow benchmark: ${os.cpus().length} CPUs, node ${process.version}, load average ${load()}`);
  if (only !== 'postgres') await jsonataRate(Math.min(rows, 100_000));
  if (only === 'jsonata') return;
  if (only !== 'postgres') await benchOn('PGlite (in memory)', { pgliteDir: 'memory://', poolSize: 1 }, rows);
  const base = process.env.DATABASE_URL;
  if (!base) {
    console.log('\n(DATABASE_URL not set: PostgreSQL skipped)');
    return;
  }
  const name = `bench_dataflow_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  try {
    const url = new URL(base);
    url.pathname = `/${name}`;
    await benchOn(`PostgreSQL (${url.host})`, { url: url.toString(), pgliteDir: '', poolSize: 4 }, rows);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}
