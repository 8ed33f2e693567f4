// Ingestion throughput (issue 32's benchmark; numbers only, nothing passes or fails):
//   - the same-run baseline: the CSV file read and parsed by csv-parse alone (no database);
//   - a CSV push through the core path (spool, parse, JSONata mapping, target schema, stage with
//     lineage, chunked checkpoints, manifest), without PII scrubbing and with four fields scrubbed;
//   - on PostgreSQL (DATABASE_URL), `COPY` of the same file into a plain table, in the same run;
//   - peak RSS (the process's maxRSS) after each phase.
// Runs on in-memory PGlite and, when DATABASE_URL is set, on a throwaway PostgreSQL database.
// `npm run bench -- ingestion [rows] [--postgres-only]` (100,000 by default; the figure is
// 1,000,000). `--postgres-only` leaves out PGlite (whose in-memory database grows the process) and
// the no-database phases, so the peak RSS printed is the PostgreSQL path's own: the flat-memory check.
// `--unscrubbed` leaves out the scrubbed push (for the 1 GB file: about 11,000,000 rows).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse';
import pg from 'pg';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase } from '../platform/db/database';
import { createLogger } from '../platform/logging/logger';
import { loadIngestionConfig } from '../subgraphs/ingestion/ingestion.config';
import { createIngestionModule } from '../subgraphs/ingestion/ingestion.module';
import { compileNormaliser } from '../subgraphs/ingestion/normaliser';
import type { PipelineDefinition } from '../subgraphs/ingestion/pipeline.types';

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const rssMb = () => process.resourceUsage().maxRSS / 1024;

export function writeCsv(file: string, rows: number): void {
  const out = fs.openSync(file, 'w');
  fs.writeSync(out, 'id,first,last,email,ssn,phone,balance\n');
  let buf = '';
  for (let i = 1; i <= rows; i++) {
    buf += `${i},First${i},Last${i % 977},user${i}@example.com,${100 + (i % 899)}-${10 + (i % 89)}-${1000 + (i % 8999)},+1555${String(i).padStart(7, '0')},${(i % 10000) / 7}\n`;
    if (buf.length > 1 << 20) {
      fs.writeSync(out, buf);
      buf = '';
    }
  }
  fs.writeSync(out, buf);
  fs.closeSync(out);
}

async function parseOnly(file: string): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  for await (const _ of fs.createReadStream(file).pipe(parse({ columns: true }))) n++;
  return n / ((performance.now() - t0) / 1000);
}

/** The mapping and target-schema check alone (no spool, no database): where the core path's time goes. */
async function mapOnly(file: string): Promise<number> {
  const normaliser = compileNormaliser(definition('bench-map', false) as unknown as PipelineDefinition);
  const t0 = performance.now();
  let n = 0;
  for await (const record of fs.createReadStream(file).pipe(parse({ columns: true }))) {
    await normaliser.normalise(record as Record<string, unknown>);
    n++;
  }
  return n / ((performance.now() - t0) / 1000);
}

export function definition(name: string, scrub: boolean) {
  return {
    name,
    source: { kind: 'rest_push' },
    format: { type: 'csv' },
    mapping: {
      customer_id: '$number(id)',
      full_name: 'first & " " & last',
      email: 'email',
      ssn: 'ssn',
      phone: 'phone',
      balance: '$number(balance)',
    },
    target: {
      dataset: name,
      schema: {
        type: 'object',
        required: ['customer_id', 'balance'],
        properties: { customer_id: { type: 'integer', minimum: 1 }, balance: { type: 'number', minimum: 0 } },
      },
    },
    ...(scrub ? { pii: { fields: { ssn: 'mask', email: 'tokenize', phone: 'remove', full_name: 'hash' } } } : {}),
    // batch_size left to the default (10,000 records a chunk and checkpoint).
  };
}

async function benchOn(
  label: string,
  dbConfig: { url?: string; pgliteDir: string; poolSize: number },
  file: string,
  rows: number,
  unscrubbedOnly: boolean,
) {
  const env = { ...process.env, LOG_LEVEL: 'ERROR', REQUIRE_AUTH: 'false', INGESTION_SCHEDULER_TICK_MS: '0' };
  const platform = loadPlatformConfig(env);
  const db = await openDatabase(dbConfig);
  const ingestion = createIngestionModule({
    db,
    config: { ...loadIngestionConfig(env, platform.auth.jwtSecret), schemaRegistryUrl: 'http://127.0.0.1:1' },
    logger: createLogger('ERROR', 'ingestion'),
    env,
  });
  console.log(`\n## ${label}`);
  try {
    const caller = { correlationId: 'bench' };
    const results: Record<string, number> = {};
    for (const scrub of unscrubbedOnly ? [false] : [false, true]) {
      const name = scrub ? 'bench-scrubbed' : 'bench-plain';
      const p = await ingestion.pipelines.create(caller, { definition: definition(name, scrub), tenantId: 'bench' });
      const t0 = performance.now();
      const batch = await ingestion.batches.push(caller, p.id, {
        stream: fs.createReadStream(file),
        sourceName: path.basename(file),
        tenantId: 'bench',
      });
      const secs = (performance.now() - t0) / 1000;
      results[name] = rows / secs;
      console.log(
        `CSV push${scrub ? ', 4 fields scrubbed' : ', no scrubbing'}: ${fmt(rows / secs)} rows/s (${fmt(secs, 1)} s, ${batch.status}, ${fmt(batch.rowsStaged)} staged; peak RSS ${fmt(rssMb())} MB)`,
      );
    }
    if (!unscrubbedOnly)
      console.log(
        `scrubbing costs ${fmt((1 - results['bench-scrubbed']! / results['bench-plain']!) * 100, 1)}% of the unscrubbed rate`,
      );
    if (db.kind === 'postgres') {
      await db.sql.exec(
        'CREATE TABLE bench_copy (id bigint, first text, last text, email text, ssn text, phone text, balance numeric)',
      );
      fs.chmodSync(file, 0o644);
      const t0 = performance.now();
      await db.sql.exec(`COPY bench_copy FROM '${file}' WITH (FORMAT csv, HEADER true)`);
      const secs = (performance.now() - t0) / 1000;
      console.log(
        `COPY of the same file into a plain table: ${fmt(rows / secs)} rows/s (${fmt(secs, 1)} s); CSV push without scrubbing = ${fmt(results['bench-plain']! / (rows / secs), 3)}x COPY`,
      );
    }
  } finally {
    await db.close();
  }
}

export async function run(args: string[]): Promise<void> {
  const postgresOnly = args.includes('--postgres-only');
  const unscrubbedOnly = args.includes('--unscrubbed');
  const rows = Number(args.find((a) => !a.startsWith('--')) ?? 100_000) || 100_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ingestion-'));
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'customers.csv');
  try {
    writeCsv(file, rows);
    console.log(
      `# ingestion benchmark: ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}, ${fmt(rows)} rows (${fmt(fs.statSync(file).size / 1e6, 1)} MB), node ${process.version}`,
    );
    if (!postgresOnly) {
      console.log(`baseline, csv-parse alone on the same file: ${fmt(await parseOnly(file))} rows/s`);
      console.log(`csv-parse + mapping + Ajv check, no database: ${fmt(await mapOnly(file))} rows/s`);
      await benchOn('PGlite (in memory)', { pgliteDir: 'memory://', poolSize: 1 }, file, rows, unscrubbedOnly);
    }
    const base = process.env.DATABASE_URL;
    if (!base) {
      console.log('\n(DATABASE_URL not set: PostgreSQL and COPY skipped)');
      return;
    }
    const name = `bench_ingestion_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    try {
      const url = new URL(base);
      url.pathname = `/${name}`;
      await benchOn(
        `PostgreSQL (${url.host})`,
        { url: url.toString(), pgliteDir: '', poolSize: 10 },
        file,
        rows,
        unscrubbedOnly,
      );
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
