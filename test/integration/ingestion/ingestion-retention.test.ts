// Retention of ingestion batches (record type `ingestion_batch`, batch-retention.store.ts, run by
// the platform's purge pass as the ingestion service's sweeper runs it): a batch past the tenant's
// policy loses its staged data, its own table on PostgreSQL (ingestion_staged.b_<batch>) or its rows
// in ingestion_staged_records on PGlite, with its row; a live batch (within the policy), a running
// batch however old, and another tenant's batch keep theirs. Runs on PGlite and on PostgreSQL.
import { Readable } from 'node:stream';
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import { createLogger } from '../../../platform/logging/logger';
import { runPurgePass, RETENTION_PURGED_EVENT } from '../../../platform/retention/purge-pass';
import { insertHold, upsertPolicy } from '../../../platform/retention/retention.store';
import { purgeIngestionBatches } from '../../../subgraphs/ingestion/batch-retention.store';
import { batchTableName } from '../../../subgraphs/ingestion/batch-table.store';
import { loadIngestionConfig } from '../../../subgraphs/ingestion/ingestion.config';
import { createIngestionModule, type IngestionModule } from '../../../subgraphs/ingestion/ingestion.module';
import { createTestDatabase, type TestDatabase } from '../../support/database';

jest.setTimeout(120_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const caller = { correlationId: 'ingestion-retention-test' };
const A = 'ing-ret-a';
const B = 'ing-ret-b';
const TARGET = { recordType: 'ingestion_batch' as const, service: 'ingestion', purge: purgeIngestionBatches };
let db: TestDatabase;
let ingestion: IngestionModule;

beforeAll(async () => {
  db = await createTestDatabase();
  const env = { ...process.env, LOG_LEVEL: 'ERROR', REQUIRE_AUTH: 'false', INGESTION_SCHEDULER_TICK_MS: '0' };
  ingestion = createIngestionModule({
    db,
    config: {
      ...loadIngestionConfig(env, loadPlatformConfig(env).auth.jwtSecret),
      schemaRegistryUrl: 'http://127.0.0.1:1',
    },
    logger: createLogger('ERROR', 'ingestion'),
    env,
  });
});
afterAll(async () => {
  await db.drop();
});

let seq = 0;
/** A completed batch of three rows for the tenant, created `daysAgo` days ago. */
async function batch(tenantId: string, daysAgo: number) {
  const n = ++seq;
  const p = await ingestion.pipelines.create(caller, {
    tenantId,
    definition: {
      name: `ret-${n}`,
      source: { kind: 'rest_push' },
      format: { type: 'csv' },
      mapping: { id: '$number(id)', name: 'name' },
      target: { dataset: 'ret', schema: { type: 'object', required: ['id'] } },
    },
  });
  const csv = `id,name\n1,a${n}\n2,b${n}\n3,c${n}\n`;
  const b = await ingestion.batches.push(caller, p.id, {
    stream: Readable.from([Buffer.from(csv)]),
    sourceName: `f${n}.csv`,
    tenantId,
  });
  expect(b.status).toBe('completed');
  await db.sql.query(
    `UPDATE ingestion_batches SET created_at = now() - make_interval(days => $2) WHERE id = $1::uuid`,
    [b.id, daysAgo],
  );
  return b;
}

/** Where the batch's rows are: its own table (PostgreSQL), else its rows in the shared table. */
async function staged(batchId: string): Promise<{ table: boolean; rows: number }> {
  const t = await db.sql.query<{ t: string | null }>(`SELECT to_regclass($1)::text AS t`, [
    `ingestion_staged.${batchTableName(batchId)}`,
  ]);
  const shared = await db.sql.query<{ n: number }>(
    `SELECT count(*)::float8 AS n FROM ingestion_staged_records WHERE batch_id = $1::uuid`,
    [batchId],
  );
  return { table: t.rows[0]!.t !== null, rows: Number(shared.rows[0]!.n) };
}

it('a batch past retention loses its staged table (or rows) and its row; a live, a running and another tenant’s batch keep theirs', async () => {
  const old = await batch(A, 40);
  const live = await batch(A, 5);
  const running = await batch(A, 40);
  await db.sql.query(`UPDATE ingestion_batches SET status = 'running' WHERE id = $1::uuid`, [running.id]);
  const otherTenant = await batch(B, 40);
  // On PostgreSQL each of these plain CSV batches was staged into a table of its own.
  const before = await staged(old.id);
  expect(before).toEqual(onPostgres ? { table: true, rows: 0 } : { table: false, rows: 3 });

  await upsertPolicy(db.sql, A, 'ingestion_batch', 30, 'admin');
  // A hold on the type keeps everything.
  const hold = await insertHold(
    db.sql,
    A,
    { recordType: 'ingestion_batch', subjectId: null, subjectRef: null, reason: 'audit' },
    'admin',
  );
  const [held] = await runPurgePass(db.sql, TARGET, { tenantIds: [A, B] });
  expect(held).toMatchObject({ tenantId: A, purged: 0, held: true });
  expect(await staged(old.id)).toEqual(before);
  await db.sql.query(`UPDATE legal_holds SET released_at = now() WHERE id = $1::uuid`, [hold.id]);

  const outcomes = await runPurgePass(db.sql, TARGET, { tenantIds: [A, B] });
  expect(outcomes).toEqual([expect.objectContaining({ tenantId: A, recordType: 'ingestion_batch', purged: 1 })]);

  // Past retention: no table, no rows, no batch, no quarantine or checkpoint.
  expect(await staged(old.id)).toEqual({ table: false, rows: 0 });
  await expect(ingestion.batches.batch(caller, old.id, A)).rejects.toThrow('Batch not found');
  for (const table of ['ingestion_quarantine', 'ingestion_checkpoints']) {
    const left = await db.sql.query(`SELECT 1 FROM ${table} WHERE batch_id = $1::uuid`, [old.id]);
    expect(left.rows).toHaveLength(0);
  }
  // Live, running, another tenant's: as they were, their records readable.
  for (const [b, tenant] of [
    [live, A],
    [running, A],
    [otherTenant, B],
  ] as const) {
    expect(await staged(b.id)).toEqual(before);
    const records = await ingestion.batches.records(caller, b.id, { tenantId: tenant });
    expect(records.map((r) => r.offset)).toEqual([0, 1, 2]);
  }
  // The purge is audited with counts only.
  const audit = await db.sql.query<{ data: unknown }>(
    `SELECT event_data AS data FROM outbox_events WHERE tenant_id = $1 AND event_type = $2`,
    [A, RETENTION_PURGED_EVENT],
  );
  expect(audit.rows.map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data))).toEqual([
    expect.objectContaining({ record_type: 'ingestion_batch', purged: 1 }),
  ]);
});
