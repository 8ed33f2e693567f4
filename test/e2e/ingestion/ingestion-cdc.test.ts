// PostgreSQL logical replication against a real server with wal_level=logical: a consistent
// snapshot of the captured table, then its inserts, updates and deletes streamed as batches; a
// quiet table's slot still advances (heartbeats acknowledge the server's position); and deleting
// the pipeline drops its slot and publication. The server is INGESTION_CDC_SOURCE_URL, by default
// the throwaway cluster CI starts on 5433 (`PGPORT=5433 PGDATA_DIR=/tmp/pg-logical
// PG_WAL_LEVEL=logical bash ../shared/ci/start-postgres.sh`); where there is none, or its
// wal_level is not logical, each case prints why and passes without running.
import pg from 'pg';
import { ingestionService } from '../../../services/ingestion';
import { lsnValue, slotName } from '../../../subgraphs/ingestion/cdc.connector';
import { startServices, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call, token } from './ingestion.support';

jest.setTimeout(180_000);

const SOURCE = process.env.INGESTION_CDC_SOURCE_URL ?? 'postgresql://postgres@127.0.0.1:5433/platform_test';
const TABLE = `cdc_src_${process.pid}_${Date.now() % 100000}`;
let source: pg.Client | undefined;
let skipReason: string | undefined;
let h: Harness;
let url: string;
let a: string;
let pipelineId: string;

const skipped = () => {
  if (skipReason) console.log(`ingestion-cdc skipped: ${skipReason}`);
  return skipReason !== undefined;
};

beforeAll(async () => {
  try {
    source = new pg.Client({ connectionString: SOURCE, connectionTimeoutMillis: 3000 });
    await source.connect();
    const level = (await source.query<{ wal_level: string }>('SHOW wal_level')).rows[0]!.wal_level;
    if (level !== 'logical') skipReason = `${SOURCE} has wal_level=${level}; logical replication needs logical`;
  } catch (err) {
    skipReason = `no PostgreSQL at ${SOURCE} (${(err as Error).message})`;
    source = undefined;
  }
  if (skipReason) return;
  await source!.query(`CREATE TABLE ${TABLE} (id int PRIMARY KEY, name text)`);
  await source!.query(`INSERT INTO ${TABLE} SELECT g, 'n' || g FROM generate_series(1, 5) g`);
  h = await startServices([ingestionService], {
    REQUIRE_AUTH: 'true',
    SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
    INGESTION_SCHEDULER_TICK_MS: '200',
    INGESTION_CDC_FLUSH_MS: '100',
    INGESTION_CDC_HEARTBEAT_MS: '300',
  });
  url = h.services.ingestion!.url;
  a = await token('cdc-a');
});

afterAll(async () => {
  await h?.close();
  if (source) {
    await source.query(`DROP TABLE IF EXISTS ${TABLE}`).catch(() => undefined);
    await source.end();
  }
});

async function batches() {
  return (await call(url, a, 'GET', `/api/ingestion/pipelines/${pipelineId}/batches`)).body.batches as any[];
}

async function records(batchId: string) {
  return (await call(url, a, 'GET', `/api/ingestion/batches/${batchId}/records?limit=100`)).body.records as any[];
}

it('takes a consistent snapshot, then streams inserts, updates and deletes', async () => {
  if (skipped()) return;
  const u = new URL(SOURCE);
  const created = await call(url, a, 'POST', '/api/ingestion/pipelines', {
    definition: {
      name: 'cdc',
      source: {
        kind: 'postgres_cdc',
        host: u.hostname,
        port: Number(u.port || 5432),
        database: u.pathname.slice(1),
        username: decodeURIComponent(u.username),
        table: `public.${TABLE}`,
      },
      format: { type: 'ndjson' },
      mapping: { id: '$number(id)', name: 'name', op: '_op' },
      target: { dataset: 'cdc', schema: { type: 'object', required: ['id', 'op'] } },
      batch_size: 100,
    },
  });
  expect(created.status).toBe(201);
  pipelineId = created.body.id;

  let snapshot: any;
  await until(
    async () => {
      snapshot = (await batches()).find((b) => b.source_name.startsWith('snapshot@'));
      return snapshot?.status === 'completed';
    },
    'the snapshot batch',
    { tries: 600, everyMs: 100 },
  );
  expect(snapshot.progress.rows_staged).toBe(5);
  expect((await records(snapshot.id)).map((r) => r.data.id)).toEqual([1, 2, 3, 4, 5]);

  await source!.query(`INSERT INTO ${TABLE} VALUES (6, 'n6'), (7, 'n7')`);
  await source!.query(`UPDATE ${TABLE} SET name = 'changed' WHERE id = 2`);
  await source!.query(`DELETE FROM ${TABLE} WHERE id = 3`);
  let changes: any[] = [];
  await until(
    async () => {
      const wal = (await batches()).filter((b) => b.source_name.startsWith('wal:') && b.status === 'completed');
      changes = [];
      for (const b of wal.reverse()) changes.push(...(await records(b.id)).map((r) => r.data));
      return changes.length >= 4;
    },
    'the streamed changes',
    { tries: 600, everyMs: 100 },
  );
  expect(changes.map((c) => [c.op, c.id])).toEqual([
    ['insert', 6],
    ['insert', 7],
    ['update', 2],
    ['delete', 3],
  ]);
  expect(changes[2].name).toBe('changed');
  // Another tenant sees none of it.
  const b = await token('cdc-b');
  expect((await call(url, b, 'GET', `/api/ingestion/pipelines/${pipelineId}/batches`)).status).toBe(404);
});

it('acknowledges the server position while the table is quiet (heartbeats)', async () => {
  if (skipped()) return;
  await source!.query(`CREATE TABLE IF NOT EXISTS ${TABLE}_noise (x int)`);
  await source!.query(`INSERT INTO ${TABLE}_noise SELECT generate_series(1, 1000)`);
  const target = lsnValue((await source!.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l);
  await until(
    async () => {
      const r = await source!.query(
        'SELECT confirmed_flush_lsn::text AS l FROM pg_replication_slots WHERE slot_name = $1',
        [slotName(pipelineId)],
      );
      return r.rows[0]?.l !== undefined && lsnValue(r.rows[0].l) >= target;
    },
    'the slot to move past the noise',
    { tries: 600, everyMs: 100 },
  );
  await source!.query(`DROP TABLE ${TABLE}_noise`);
});

it('a burst of changes arriving while batches are staged lands once each, in commit order', async () => {
  if (skipped()) return;
  const before = new Set((await batches()).map((b) => b.id));
  // 300 transactions of one row each, as fast as they commit: many arrive while a batch is in
  // flight, and go together as the next batch (cdc.connector.ts), each change once.
  for (let id = 100; id < 400; id++) await source!.query(`INSERT INTO ${TABLE} VALUES ($1, 'b')`, [id]);
  let ids: number[] = [];
  await until(
    async () => {
      const wal = (await batches()).filter((b) => !before.has(b.id) && b.source_name.startsWith('wal:'));
      if (wal.some((b) => b.status !== 'completed')) return false;
      ids = [];
      for (const b of wal.reverse()) {
        for (let after = -1; ;) {
          const page = (await call(url, a, 'GET', `/api/ingestion/batches/${b.id}/records?limit=100&after=${after}`))
            .body.records as any[];
          ids.push(...page.map((r) => r.data.id));
          if (page.length < 100) break;
          after = page[page.length - 1].offset;
        }
      }
      return ids.length >= 300;
    },
    'the burst staged',
    { tries: 600, everyMs: 100 },
  );
  expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => 100 + i));
});

it('drops the slot and the publication with the pipeline', async () => {
  if (skipped()) return;
  expect((await call(url, a, 'DELETE', `/api/ingestion/pipelines/${pipelineId}`)).status).toBe(204);
  await until(
    async () => {
      const slots = await source!.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', [
        slotName(pipelineId),
      ]);
      const pubs = await source!.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [slotName(pipelineId)]);
      return slots.rowCount === 0 && pubs.rowCount === 0;
    },
    'the slot and publication dropped',
    { tries: 600, everyMs: 100 },
  );
});
