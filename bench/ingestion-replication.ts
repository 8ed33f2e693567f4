// Replication lag (issue 32's target: p99 <= 1 s at 1,000 changes/s; numbers only, nothing passes
// or fails). A source table on a PostgreSQL server with wal_level=logical gets `--rate` inserts a
// second for `--seconds` (each row's `written_ms` is the source server's clock at the insert; the
// writer commits every 10 ms, so 1,000 changes/s are about 100 transactions a second). A
// postgres_cdc pipeline (cdc.connector.ts, run by the module's CdcManager in this process, its
// batches staged in a throwaway database on DATABASE_URL) streams them; an observer polls every
// 20 ms for completed `wal:` batches and reads their staged rows. A row's lag is the time it was
// seen staged (its batch completed) minus its `written_ms`: commit to staged row, the batch's end
// included, plus up to one poll interval. Both clocks are this machine's.
// The source is INGESTION_CDC_SOURCE_URL (default: the throwaway cluster on 5433, started with
// `PGPORT=5433 PGDATA_DIR=/tmp/pg-logical PG_WAL_LEVEL=logical bash ../shared/ci/start-postgres.sh`).
// `npm run bench -- ingestion-replication [--rate 1000] [--seconds 30] [--flush-ms 200]`
// (--flush-ms: INGESTION_CDC_FLUSH_MS, how long the connector collects changes before a batch).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase } from '../platform/db/database';
import { createLogger } from '../platform/logging/logger';
import { dropReplication } from '../subgraphs/ingestion/cdc.connector';
import { loadIngestionConfig } from '../subgraphs/ingestion/ingestion.config';
import { createIngestionModule } from '../subgraphs/ingestion/ingestion.module';
import type { PipelineDefinition } from '../subgraphs/ingestion/pipeline.types';

const TENANT = 'bench';
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const arg = (args: string[], name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) || fallback : fallback;
};
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function run(args: string[]): Promise<void> {
  const rate = arg(args, '--rate', 1000);
  const seconds = arg(args, '--seconds', 30);
  const flushMs = arg(args, '--flush-ms', 200);
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL must name the PostgreSQL server the batches are staged on');
  const sourceUrl = new URL(
    process.env.INGESTION_CDC_SOURCE_URL ?? 'postgresql://postgres@127.0.0.1:5433/platform_test',
  );
  const source = new pg.Client({ connectionString: sourceUrl.toString() });
  await source.connect();
  const level = (await source.query<{ wal_level: string }>('SHOW wal_level')).rows[0]!.wal_level;
  if (level !== 'logical') throw new Error(`${sourceUrl.host} has wal_level=${level}; logical is needed`);
  const table = `bench_cdc_${randomBytes(4).toString('hex')}`;
  await source.query(
    `CREATE TABLE ${table} (id bigserial PRIMARY KEY, written_ms bigint NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint, payload text)`,
  );

  const name = `bench_ingestion_repl_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), pgliteDir: '', poolSize: 10 });
  const env = {
    ...process.env,
    LOG_LEVEL: 'ERROR',
    REQUIRE_AUTH: 'false',
    INGESTION_SCHEDULER_TICK_MS: '200',
    INGESTION_CDC_FLUSH_MS: String(flushMs),
  };
  const platform = loadPlatformConfig(env);
  const ingestion = createIngestionModule({
    db,
    config: { ...loadIngestionConfig(env, platform.auth.jwtSecret), schemaRegistryUrl: 'http://127.0.0.1:1' },
    logger: createLogger('ERROR', 'ingestion'),
    env,
  });
  const definition = {
    name: 'bench-cdc',
    source: {
      kind: 'postgres_cdc',
      host: sourceUrl.hostname,
      port: Number(sourceUrl.port || 5432),
      database: sourceUrl.pathname.slice(1),
      username: decodeURIComponent(sourceUrl.username),
      table: `public.${table}`,
    },
    format: { type: 'ndjson' },
    mapping: { id: '$number(id)', written_ms: '$number(written_ms)', op: '_op' },
    target: { dataset: 'bench-cdc', schema: { type: 'object', required: ['id', 'written_ms'] } },
  };
  console.log(
    `# ingestion-replication: ${os.cpus().length} CPUs, load average ${load()}, ${rate} changes/s for ${seconds} s, flush ${flushMs} ms, source ${sourceUrl.host}, node ${process.version}`,
  );
  const caller = { correlationId: 'bench' };
  const p = await ingestion.pipelines.create(caller, { definition, tenantId: TENANT });
  ingestion.replication!.start();
  let stopWriter = false;
  try {
    // The stream starts once the (empty) snapshot batch is done.
    for (let i = 0; ; i++) {
      const recent = await ingestion.batches.recent(TENANT, p.id, 5);
      if (recent.some((b) => b.sourceName.startsWith('snapshot@') && b.status === 'completed')) break;
      if (i > 600) throw new Error('the snapshot batch did not complete in 60 s');
      await sleep(100);
    }

    const lags: number[] = [];
    const seenBatches = new Set<string>();
    let seenRows = 0;
    let batchRows = 0;
    const observe = async () => {
      const done = await db.sql.query<{ id: string }>(
        `SELECT id::text AS id FROM ingestion_batches WHERE tenant_id = $1 AND pipeline_id = $2::uuid AND status = 'completed' AND source_name LIKE 'wal:%'`,
        [TENANT, p.id],
      );
      const now = Date.now();
      for (const { id } of done.rows) {
        if (seenBatches.has(id)) continue;
        seenBatches.add(id);
        const rows = await db.sql.query<{ data: string }>(
          `SELECT data FROM ingestion_staged_records WHERE tenant_id = $1 AND batch_id = $2::uuid`,
          [TENANT, id],
        );
        batchRows += rows.rows.length;
        for (const r of rows.rows) {
          const record = JSON.parse(r.data) as { written_ms: number };
          lags.push(now - record.written_ms);
          seenRows++;
        }
      }
    };

    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    let written = 0;
    const writer = (async () => {
      while (!stopWriter) {
        const elapsed = (Date.now() - t0) / 1000;
        if (elapsed >= seconds) break;
        const due = Math.floor(elapsed * rate) - written;
        if (due > 0) {
          await source.query(`INSERT INTO ${table} (payload) SELECT 'change ' || g FROM generate_series(1, $1) g`, [
            due,
          ]);
          written += due;
        }
        await sleep(10);
      }
    })();
    const loads: string[] = [];
    let lastLoad = 0;
    while (Date.now() - t0 < seconds * 1000) {
      await observe();
      if (Date.now() - lastLoad > 10_000) {
        loads.push(load());
        lastLoad = Date.now();
      }
      await sleep(20);
    }
    await writer;
    const wroteSecs = (Date.now() - t0) / 1000;
    for (let i = 0; seenRows < written && i < 1500; i++) {
      await observe();
      await sleep(20);
    }
    const cpu = process.cpuUsage(cpu0);
    const sorted = [...lags].sort((x, y) => x - y);
    console.log(
      `wrote ${written.toLocaleString('en-US')} changes in ${wroteSecs.toFixed(1)} s (${(written / wroteSecs).toFixed(0)}/s); staged and seen ${seenRows.toLocaleString('en-US')} in ${seenBatches.size} batches (mean ${(batchRows / Math.max(1, seenBatches.size)).toFixed(0)} rows)`,
    );
    if (sorted.length > 0)
      console.log(
        `lag, commit to staged row: p50 ${pct(sorted, 50)} ms, p90 ${pct(sorted, 90)} ms, p99 ${pct(sorted, 99)} ms, max ${sorted[sorted.length - 1]} ms`,
      );
    console.log(
      `this process's CPU: ${((cpu.user + cpu.system) / 1000 / Math.max(1, seenRows)).toFixed(3)} ms a change (user+system ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s); load average during the run: ${loads.join(' | ')}; after: ${load()}`,
    );
  } finally {
    stopWriter = true;
    await ingestion.replication!.stop();
    await dropReplication(definition as unknown as PipelineDefinition, p.id, undefined).catch((err: Error) =>
      console.error(`slot not dropped: ${err.message}`),
    );
    await source.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await source.end();
    await db.close();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}
