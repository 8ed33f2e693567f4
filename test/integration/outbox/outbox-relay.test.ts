// The relay against a real ledger over HTTP: rows written while the ledger is down are retried
// with backoff and, once it is back, delivered exactly once each, in order per tenant.
import { createLogger } from '../../../platform/logging/logger';
import { createLedgerClient } from '../../../platform/clients/ledger.client';
import { startOutboxRelay, type OutboxRelay } from '../../../platform/outbox/outbox-relay';
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import type { BuiltService } from '../../../platform/service';
import { ledgerService } from '../../../services/ledger';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { freePort, until } from '../../support/waiting';
import { registryOf } from '../../../launcher/registry';
import { relayTokenProvider } from '../../../launcher/outbox-task';

// Starting a database and a service can take seconds on a busy CI machine.
jest.setTimeout(60_000);

// The ledger's reads here are anonymous (trust-the-gateway mode); the relay still sends its token.
const env = { LOG_LEVEL: 'ERROR', JWT_SECRET_KEY: TEST_JWT_SECRET, NODE_ENV: 'test', LEDGER_REQUIRE_AUTH: 'false' };
const logger = createLogger('ERROR', 'test');

let db: TestDatabase;
let ledger: BuiltService | undefined;
let relay: OutboxRelay | undefined;
let ledgerPort = 0;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await relay?.stop();
  await ledger?.stop?.();
  await ledger?.app.close();
  await db?.drop();
});

async function writeOutbox(service: string, tenant: string, n: number, keyPrefix: string): Promise<void> {
  await db.sql.query(
    `INSERT INTO outbox_events (service, tenant_id, event_type, event_data, user_id, idempotency_key)
     VALUES ($1, $2, 'user_login', $3::jsonb, 'alice', $4)`,
    [service, tenant, JSON.stringify({ n, tenant }), `${keyPrefix}-${n}`],
  );
}

async function ledgerEvents(tenant: string): Promise<{ n: number }[]> {
  const res = await db.sql.query<{ d: string }>(
    'SELECT event_data::text AS d FROM ledger_events WHERE tenant_id = $1 ORDER BY seq',
    [tenant],
  );
  return res.rows.map((r) => JSON.parse(r.d) as { n: number });
}

it('retries while the ledger is down, then delivers every event exactly once, in order', async () => {
  const port = await freePort();
  ledgerPort = port;
  const client = createLedgerClient({
    baseUrl: `http://127.0.0.1:${port}`,
    timeoutMs: 2000,
    token: relayTokenProvider(TEST_JWT_SECRET),
  });
  // Interleaved writes of two tenants, plus a row of a service this relay does not serve.
  for (let n = 1; n <= 10; n++) {
    await writeOutbox('identity', 'tenant-a', n, 'a');
    await writeOutbox('identity', 'tenant-b', n, 'b');
  }
  await writeOutbox('someone-else', 'tenant-a', 99, 'other');
  relay = startOutboxRelay({
    db,
    ledger: client,
    logger,
    services: ['identity'],
    pollMs: 10,
    backoff: { baseMs: 10, maxMs: 80 },
  });

  await until(async () => {
    const r = await db.sql.query<{ n: number }>(
      `SELECT max(attempts)::int AS n FROM outbox_events WHERE service = 'identity'`,
    );
    return (r.rows[0]?.n ?? 0) >= 3;
  }, 'retries');
  const failed = await db.sql.query<{ delivered: number; with_error: number }>(
    `SELECT count(delivered_at)::int AS delivered, count(last_error)::int AS with_error FROM outbox_events`,
  );
  expect(failed.rows[0]).toEqual({ delivered: 0, with_error: 2 }); // only each tenant's first row was tried

  // The ledger comes back on the address the relay uses.
  const config = loadPlatformConfig(env);
  ledger = await ledgerService.build({ config, db, env, logger, registry: registryOf() });
  await ledger.app.listen({ port, host: '127.0.0.1' });

  await until(async () => {
    const r = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE service = 'identity' AND delivered_at IS NULL`,
    );
    return r.rows[0]?.n === 0;
  }, 'delivery');
  expect((await ledgerEvents('tenant-a')).map((e) => e.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect((await ledgerEvents('tenant-b')).map((e) => e.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const other = await db.sql.query<{ delivered_at: unknown }>(
    `SELECT delivered_at FROM outbox_events WHERE service = 'someone-else'`,
  );
  expect(other.rows[0]?.delivered_at).toBeNull();

  // A relay that crashed after delivering but before recording it sends again: still one event each.
  await relay.stop();
  await db.sql.query(
    `UPDATE outbox_events SET delivered_at = NULL WHERE tenant_id = 'tenant-a' AND service = 'identity' AND idempotency_key IN ('a-3', 'a-4')`,
  );
  relay = startOutboxRelay({ db, ledger: client, logger, services: ['identity'], pollMs: 10 });
  await until(async () => {
    const r = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE service = 'identity' AND delivered_at IS NULL`,
    );
    return r.rows[0]?.n === 0;
  }, 'redelivery');
  expect((await ledgerEvents('tenant-a')).map((e) => e.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const verify = await fetch(`http://127.0.0.1:${port}/verify?tenant_id=tenant-a`).then((r) => r.json());
  expect(verify).toEqual({ valid: true, total_events: 10, error: null });
});

it("dead-letters an event the ledger refuses (422) and delivers the tenant's later events", async () => {
  await relay?.stop();
  await writeOutbox('identity', 'tenant-c', 1, 'c');
  // event_data must be an object for the ledger: this one can never be appended.
  await db.sql.query(
    `INSERT INTO outbox_events (service, tenant_id, event_type, event_data, idempotency_key) VALUES ('identity', 'tenant-c', 'user_login', '[2]'::jsonb, 'c-2')`,
  );
  await writeOutbox('identity', 'tenant-c', 3, 'c');
  relay = startOutboxRelay({
    db,
    ledger: createLedgerClient({
      baseUrl: `http://127.0.0.1:${ledgerPort}`,
      token: relayTokenProvider(TEST_JWT_SECRET),
    }),
    logger,
    services: ['identity'],
    pollMs: 10,
  });
  await until(async () => {
    const r = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE tenant_id = 'tenant-c' AND delivered_at IS NULL AND dead_lettered_at IS NULL`,
    );
    return r.rows[0]?.n === 0;
  }, 'tenant-c delivery');
  expect((await ledgerEvents('tenant-c')).map((e) => e.n)).toEqual([1, 3]);
  const dead = await db.sql.query<{ key: string; err: string }>(
    `SELECT idempotency_key AS key, last_error AS err FROM outbox_events WHERE dead_lettered_at IS NOT NULL`,
  );
  expect(dead.rows).toEqual([{ key: 'c-2', err: expect.stringContaining('422') }]);
});

it('prunes delivered rows past the retention, never undelivered or dead-lettered ones', async () => {
  await relay?.stop();
  relay = undefined;
  const before = await db.sql.query<{ delivered: number; kept: number }>(
    `SELECT count(delivered_at)::int AS delivered, (count(*) - count(delivered_at))::int AS kept FROM outbox_events WHERE service = 'identity'`,
  );
  expect(before.rows[0]!.delivered).toBeGreaterThan(0);
  const r = startOutboxRelay({
    db,
    ledger: createLedgerClient({
      baseUrl: `http://127.0.0.1:${ledgerPort}`,
      token: relayTokenProvider(TEST_JWT_SECRET),
    }),
    logger,
    services: ['identity'],
    pollMs: 1_000_000,
    retainDeliveredMs: 0,
  });
  await r.runOnce();
  await r.stop();
  const after = await db.sql.query<{ delivered: number; kept: number }>(
    `SELECT count(delivered_at)::int AS delivered, (count(*) - count(delivered_at))::int AS kept FROM outbox_events WHERE service = 'identity'`,
  );
  expect(after.rows[0]).toEqual({ delivered: 0, kept: before.rows[0]!.kept });
});

it('stops cleanly: no pass runs after stop resolves', async () => {
  // One row the ledger keeps refusing, due again at once (no backoff): every pass calls append.
  await writeOutbox('stop-test', 'tenant-stop', 1, 'stop');
  const failing = (calls: string[]) => ({
    append: async (e: { idempotency_key?: string | null }) => {
      calls.push(e.idempotency_key!);
      throw new Error('down');
    },
  });
  const options = { db, logger, services: ['stop-test'], pollMs: 5, backoff: { baseMs: 0, maxMs: 0 } };
  const calls: string[] = [];
  const r = startOutboxRelay({ ...options, ledger: failing(calls) });
  await until(async () => calls.length >= 3, 'the relay to retry the row on its own');
  await r.stop();
  const seen = calls.length;
  // Proof that a still-running relay would have been called again: a second relay on the same row
  // and poll interval, started after the stop, gets through several passes of its own.
  const controlCalls: string[] = [];
  const control = startOutboxRelay({ ...options, ledger: failing(controlCalls) });
  try {
    await until(async () => controlCalls.length >= 3, 'the control relay to run its passes');
  } finally {
    await control.stop();
  }
  expect(calls.length).toBe(seen);
});
