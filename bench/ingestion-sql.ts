// The whole-CSV COPY path's server-side steps, each measured with EXPLAIN (ANALYZE, BUFFERS, WAL)
// (numbers only; nothing passes or fails). On a throwaway PostgreSQL database (DATABASE_URL), in one
// transaction, with the bench's customers file (bench/ingestion.ts's shape) and pipeline:
//   - COPY of the file's records into the temporary text table: as csv-staging.store.ts sends it
//     (8 MiB pieces) and as one COPY, beside the server's own COPY of the file into a plain table;
//   - staging as it was (one INSERT ... SELECT, then a second statement mapping again for the
//     checksums) and as it is (one statement: a materialised CTE, the INSERT and the aggregates);
//   - what a staged row costs: the same precomputed rows inserted into copies of the staged table
//     (as it is, `data text`; `data json` as it was; no primary key; UNLOGGED, which would not survive
//     a crash: measured only);
//   - with `--scrub`, the pipeline also masks, hashes and tokenizes (in SQL, sql-scrub.ts).
// Every step is rolled back. `npm run bench -- ingestion-sql [rows] [--scrub]` (200,000 by default).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../platform/db/database';
import type { SqlQuery } from '../platform/db/sql';
import { JS_NUMBER, mappedRows, RAW, recordJson, stagingStatement } from '../subgraphs/ingestion/csv-staging.store';
import { tenantPiiKey } from '../subgraphs/ingestion/pii-scrubber';
import { compileSqlPlan } from '../subgraphs/ingestion/sql-mapping';
import { hmacPads } from '../subgraphs/ingestion/sql-scrub';

const COLUMNS = ['id', 'first', 'last', 'email', 'ssn', 'phone', 'balance'];
const PIECE = 8 * 1024 * 1024;

function csvBody(rows: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= rows; i++)
    lines.push(
      `${i},First${i},Last${i % 977},user${i}@example.com,${100 + (i % 899)}-${10 + (i % 89)}-${1000 + (i % 8999)},+1555${String(i).padStart(7, '0')},${(i % 10000) / 7}`,
    );
  return lines.join('\n') + '\n';
}

/** Whole records of about `bytes` each, as csv-copy-source.ts cuts them. */
function pieces(body: string, bytes: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < body.length;) {
    const end = body.indexOf('\n', Math.min(at + bytes, body.length - 1)) + 1 || body.length;
    out.push(body.slice(at, end));
    at = end;
  }
  return out;
}

interface PlanNode {
  'Actual Total Time'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Dirtied Blocks'?: number;
  'Shared Written Blocks'?: number;
  'Local Written Blocks'?: number;
  'Temp Written Blocks'?: number;
  'WAL Bytes'?: number;
}

async function explain(q: SqlQuery, label: string, statement: string, params: unknown[] = []): Promise<void> {
  await q.exec('SAVEPOINT step');
  const res = await q.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
    `EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) ${statement}`,
    params,
  );
  await q.exec('ROLLBACK TO SAVEPOINT step');
  const { Plan: p, 'Execution Time': ms } = res.rows[0]!['QUERY PLAN'][0];
  const mb = (n = 0) => ((n * 8192) / 1e6).toFixed(1);
  console.log(
    `${label.padEnd(58)} ${ms.toFixed(0).padStart(6)} ms  shared hit ${p['Shared Hit Blocks'] ?? 0}, dirtied ${mb(p['Shared Dirtied Blocks'])} MB, temp written ${mb(p['Temp Written Blocks'])} MB, WAL ${((p['WAL Bytes'] ?? 0) / 1e6).toFixed(1)} MB`,
  );
}

async function timed(label: string, work: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  await work();
  console.log(`${label.padEnd(58)} ${(performance.now() - t0).toFixed(0).padStart(6)} ms`);
}

export async function run(args: string[]): Promise<void> {
  const rows = Number(args.find((a) => !a.startsWith('--')) ?? 200_000) || 200_000;
  const scrub = args.includes('--scrub');
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL must name a PostgreSQL server');
  const plan = compileSqlPlan(
    {
      mapping: {
        customer_id: '$number(id)',
        full_name: 'first & " " & last',
        email: 'email',
        ssn: 'ssn',
        phone: 'phone',
        balance: '$number(balance)',
      },
      target: {
        dataset: 'bench',
        schema: {
          type: 'object',
          required: ['customer_id', 'balance'],
          properties: { customer_id: { type: 'integer', minimum: 1 }, balance: { type: 'number', minimum: 0 } },
        },
      },
      ...(scrub ? { pii: { fields: { ssn: 'mask', email: 'tokenize', phone: 'remove', full_name: 'hash' } } } : {}),
    },
    COLUMNS,
  )!;
  const body = csvBody(rows);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ingestion-sql-'));
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'customers.csv');
  fs.writeFileSync(file, `${COLUMNS.join(',')}\n${body}`, { mode: 0o644 });
  const name = `bench_ingestion_sql_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), pgliteDir: '', poolSize: 2 });
  console.log(
    `# ingestion-sql: ${rows.toLocaleString('en-US')} rows (${(body.length / 1e6).toFixed(1)} MB), ${scrub ? 'scrubbed' : 'no scrubbing'}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  try {
    const columns = COLUMNS.map((_, i) => `c${i + 1}`).join(', ');
    const copy = `COPY ${RAW} (${columns}) FROM STDIN WITH (FORMAT csv, FORCE_NOT_NULL (${columns}))`;
    for (const variant of ['', ' UNLOGGED'])
      await db.sql.exec(
        `CREATE${variant} TABLE staged${variant ? '_unlogged' : ''} (LIKE ingestion_staged_records INCLUDING ALL)`,
      );
    await db.sql.exec(`CREATE TABLE staged_json (LIKE ingestion_staged_records INCLUDING ALL)`);
    await db.sql.exec(`ALTER TABLE staged_json ALTER COLUMN data TYPE json USING data::json`);
    await db.sql.exec(`CREATE TABLE staged_nokey (LIKE ingestion_staged_records INCLUDING DEFAULTS)`);
    await db.sql.exec(`CREATE TABLE plain_copy (${COLUMNS.map((c) => `${c} text`).join(', ')})`);
    await db.sql.transaction(async (q) => {
      await q.exec('SET LOCAL extra_float_digits = 1');
      await q.exec(JS_NUMBER);
      await timed(`server COPY of the file into a plain text table`, () =>
        q.exec(`COPY plain_copy FROM '${file}' WITH (FORMAT csv, HEADER true)`),
      );
      const raw = `CREATE TEMP TABLE ${RAW} (o bigint GENERATED ALWAYS AS IDENTITY (MINVALUE 0 START WITH 0), ${COLUMNS.map((_, i) => `c${i + 1} text`).join(', ')})`;
      await q.exec(raw);
      await timed(`COPY FROM STDIN into the temp table, one statement`, () => q.copyFrom!(copy, body));
      await q.exec(`DROP TABLE ${RAW}`);
      await q.exec(raw);
      const cut = pieces(body, PIECE);
      await timed(`COPY FROM STDIN into the temp table, ${cut.length} pieces of 8 MiB`, async () => {
        for (const p of cut) await q.copyFrom!(copy, p);
      });
      await q.exec(`ANALYZE ${RAW}`);
      const params = [
        '00000000-0000-0000-0000-000000000001',
        'bench',
        '00000000-0000-0000-0000-000000000002',
        'bench',
        'customers.csv',
      ];
      const pads = hmacPads(tenantPiiKey('bench-secret', 'bench'));
      const all = scrub ? [...params, pads.inner, pads.outer] : params;
      const staged = plan.fields.filter((f) => f.staged);
      // As it was: the INSERT, then the checksums mapping again (with ORDER BY in each aggregate).
      const insertOnly = `INSERT INTO ingestion_staged_records (batch_id, record_offset, tenant_id, pipeline_id, dataset, source, data)
        SELECT $1::uuid, o, $2, $3::uuid, $4, $5, ${recordJson(plan, false)} FROM (${mappedRows(plan)}) m`;
      const sumsApart = `SELECT ${staged.map((f) => `encode(sha256(convert_to(string_agg(${f.alias}, E'\\n' ORDER BY o), 'UTF8')), 'hex')`).join(', ')} FROM (${mappedRows(plan)}) m`;
      await explain(q, 'before: INSERT ... SELECT (mapping)', insertOnly, all);
      // The pads are $6/$7 in the mapping; alone here they are $1/$2.
      await explain(
        q,
        'before: checksums, mapping again',
        sumsApart.replace(/\$6/g, '$1').replace(/\$7/g, '$2'),
        scrub ? [pads.inner, pads.outer] : [],
      );
      await explain(q, 'after: one statement (CTE, INSERT, checksums)', stagingStatement(plan, false), all);
      // The cost of a staged row: the same rows, precomputed, into each variant of the table.
      await q.exec(`CREATE TEMP TABLE pre (LIKE staged_nokey INCLUDING DEFAULTS)`);
      await q.exec(`ALTER TABLE pre ALTER COLUMN data TYPE text`);
      await q.query(insertOnly.replace('ingestion_staged_records', 'pre'), all);
      const into = (table: string, cast: string) =>
        `INSERT INTO ${table} (batch_id, record_offset, tenant_id, pipeline_id, dataset, source, data) SELECT batch_id, record_offset, tenant_id, pipeline_id, dataset, source, data::${cast} FROM pre`;
      await explain(q, 'staged rows into the staged table as it is (text, key)', into('staged', 'text'));
      await explain(q, 'into a copy with data json, as it was (key)', into('staged_json', 'json'));
      await explain(q, 'into a copy without the key (text)', into('staged_nokey', 'text'));
      await explain(q, 'into an UNLOGGED copy (text, key; not crash-safe)', into('staged_unlogged', 'text'));
    });
  } finally {
    await db.close();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
