// Identity's audit events reach the ledger through the outbox even when the ledger is down:
// real identity operations over HTTP while no ledger listens, the relay retrying, then the
// ledger started → every event delivered exactly once, in the order identity wrote them.
import { createLedgerClient } from '../../../platform/clients/ledger.client';
import { createLogger } from '../../../platform/logging/logger';
import { startOutboxRelay, type OutboxRelay } from '../../../platform/outbox/outbox-relay';
import type { BuiltService } from '../../../platform/service';
import { identityService } from '../../../services/identity';
import { ledgerService } from '../../../services/ledger';
import { startServices, type Harness } from '../../support/service-harness';
import { freePort, until } from '../../support/waiting';
import { registryOf } from '../../../launcher/registry';
import { relayTokenProvider } from '../../../launcher/outbox-task';

jest.setTimeout(120_000);

const PASSWORD = 'e2e-admin-password-1234';
let h: Harness;
let relay: OutboxRelay | undefined;
let ledger: BuiltService | undefined;

beforeAll(async () => {
  h = await startServices([identityService], { DEV_ADMIN_PASSWORD: PASSWORD, PASSWORD_SCRYPT_LOG_N: '10' });
});
afterAll(async () => {
  await relay?.stop();
  await ledger?.stop?.();
  await ledger?.app.close();
  await h?.close();
});

it("delivers identity's events exactly once, in order, after a ledger outage", async () => {
  const port = await freePort();
  const logger = createLogger('CRITICAL', 'relay');
  relay = startOutboxRelay({
    db: h.db,
    ledger: createLedgerClient({
      baseUrl: `http://127.0.0.1:${port}`,
      timeoutMs: 2000,
      token: relayTokenProvider(h.config.auth.jwtSecret),
    }),
    logger,
    services: ['identity'],
    pollMs: 20,
    backoff: { baseMs: 20, maxMs: 200 },
  });

  const identity = h.services.identity!.url;
  const adminName = h.env.DEV_ADMIN_USERNAME ?? 'admin';
  for (let i = 0; i < 3; i++) {
    const login = await fetch(`${identity}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: adminName, password: PASSWORD }),
    });
    expect(login.status).toBe(200);
  }
  const bad = await fetch(`${identity}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: adminName, password: 'wrong-password' }),
  });
  expect(bad.status).toBe(401);

  const written = async () =>
    (
      await h.db.sql.query<{ key: string; tenant_id: string }>(
        `SELECT idempotency_key AS key, tenant_id FROM outbox_events WHERE service = 'identity' ORDER BY outbox_events.id`,
      )
    ).rows;
  expect((await written()).length).toBeGreaterThanOrEqual(6);
  await until(async () => {
    const r = await h.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE service = 'identity' AND attempts >= 2`,
    );
    return (r.rows[0]?.n ?? 0) > 0;
  }, 'the relay to retry');

  ledger = await ledgerService.build({
    config: h.config,
    db: h.db,
    env: { ...h.env, LEDGER_REQUIRE_AUTH: 'false' },
    logger: createLogger('CRITICAL', 'ledger'),
    registry: registryOf(),
  });
  await ledger.app.listen({ port, host: '127.0.0.1' });

  await until(async () => {
    const r = await h.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE service = 'identity' AND delivered_at IS NULL`,
    );
    return r.rows[0]?.n === 0;
  }, 'delivery');

  const rows = await written();
  for (const tenant of [...new Set(rows.map((r) => r.tenant_id))]) {
    const expected = rows.filter((r) => r.tenant_id === tenant).map((r) => r.key);
    const stored = await h.db.sql.query<{ key: string }>(
      `SELECT idempotency_key AS key FROM ledger_events WHERE tenant_id = $1 ORDER BY ledger_events.seq`,
      [tenant],
    );
    expect(stored.rows.map((r) => r.key)).toEqual(expected);
    const verify = (await (await fetch(`http://127.0.0.1:${port}/verify?tenant_id=${tenant}`)).json()) as {
      valid: boolean;
      total_events: number;
    };
    expect(verify).toEqual({ valid: true, total_events: expected.length, error: null });
  }
  const types = await h.db.sql.query<{ event_type: string }>(
    `SELECT event_type FROM ledger_events ORDER BY created_at`,
  );
  expect(types.rows.map((r) => r.event_type)).toEqual(
    expect.arrayContaining(['auth_login_succeeded', 'token_issued', 'auth_login_failed']),
  );
});
