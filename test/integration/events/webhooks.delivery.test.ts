// Webhooks delivered to a real HTTP receiver on 127.0.0.1 (allowed by EVENTS_WEBHOOK_ALLOWED_ADDRESSES):
// both signatures verify (v1 with the standardwebhooks package, v1a with the tenant's public JWK),
// 500s are retried with backoff, 410 disables the endpoint, secret rotation overlaps, a hanging
// receiver holds one slot only, and one tenant's endpoint never receives another's events.
import { createPublicKey, randomUUID, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../../../platform/logging/logger';
import {
  createWebhookModule,
  loadWebhookConfig,
  type WebhookConfig,
  type WebhookEvent,
  type WebhookModule,
} from '../../../subgraphs/events/webhooks';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { until } from '../../support/waiting';
import { startReceiver, type Receiver } from './webhooks.receiver';

const logger = createLogger('CRITICAL', 'test');

// Backoff in milliseconds instead of hours; no jitter, so the schedule is the configured one.
function testConfig(extra: Record<string, string> = {}): WebhookConfig {
  return {
    ...loadWebhookConfig({
      EVENTS_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
      EVENTS_WEBHOOK_BACKOFF: '50ms,100ms',
      EVENTS_WEBHOOK_POLL_MS: '20',
      EVENTS_WEBHOOK_WORKER_SLOTS: '4',
      ...extra,
    }),
    jitter: 0,
  };
}

let db: TestDatabase;
let receiver: Receiver;
const modules: WebhookModule[] = [];

function moduleFor(config = testConfig()): WebhookModule {
  const m = createWebhookModule({ db, logger, config });
  modules.push(m);
  m.worker.start();
  return m;
}

function event(tenant: string, type = 'workflow.completed', data: unknown = { ok: true }): WebhookEvent {
  return {
    specversion: '1.0',
    id: randomUUID(),
    source: '/services/workflow',
    type,
    subject: 'wf-1',
    time: new Date().toISOString(),
    datacontenttype: 'application/json',
    tenantid: tenant,
    data,
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver();
});
afterEach(async () => {
  await Promise.all(modules.splice(0).map((m) => m.worker.stop()));
  // What a test left queued must not reach the next test's workers.
  await db.sql.query(`DELETE FROM webhook_queue WHERE status = 'pending'`);
  receiver.answer = (_req, res) => res.writeHead(204).end();
  receiver.received.length = 0;
});
afterAll(async () => {
  await receiver?.close();
  await db?.drop();
});

function v1aSignatures(header: string): string[] {
  return header
    .split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .map((s) => s.slice(4));
}

it('delivers a signed CloudEvent that verifies with standardwebhooks (v1) and with the public JWK (v1a)', async () => {
  const hooks = moduleFor();
  const tenant = `t-${randomUUID()}`;
  const { endpoint, secret } = await hooks.endpoints.create(tenant, { url: receiver.url('/signed') });
  expect(secret).toMatch(/^whsec_/);
  const ev = event(tenant);
  expect(await hooks.deliver(ev)).toBe(1);

  await until(() => receiver.received.some((r) => r.path === '/signed'), 'the delivery');
  const got = receiver.received.find((r) => r.path === '/signed')!;
  expect(got.headers['webhook-id']).toBe(ev.id);
  expect(got.headers['content-type']).toBe('application/json');
  expect(JSON.parse(got.body)).toEqual(ev);

  // v1: the package's own verification (also checks the timestamp is within 5 minutes).
  expect(new Webhook(secret).verify(got.body, got.headers)).toEqual(ev);
  expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got.body, got.headers)).toThrow(
    /No matching signature/,
  );

  // v1a: Ed25519 over `${id}.${timestamp}.${body}` with the key the tenant's JWKS publishes.
  const jwks = await hooks.endpoints.jwks(tenant);
  expect(jwks.keys).toHaveLength(1);
  expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
  expect(jwks.keys[0]).not.toHaveProperty('d');
  const key = createPublicKey({ key: { ...jwks.keys[0]! }, format: 'jwk' });
  const content = Buffer.from(`${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`);
  const sigs = v1aSignatures(got.headers['webhook-signature']!);
  expect(sigs).toHaveLength(1);
  expect(verify(null, content, key, Buffer.from(sigs[0]!, 'base64'))).toBe(true);
  // A tampered body does not verify.
  expect(verify(null, Buffer.from(`${content.toString()} `), key, Buffer.from(sigs[0]!, 'base64'))).toBe(false);

  await until(async () => (await hooks.endpoints.messages(tenant, endpoint.id))[0]?.status === 'delivered', 'status');
  const log = await hooks.endpoints.attempts(tenant, endpoint.id);
  expect(log).toMatchObject([{ attempt: 1, outcome: 'success', status_code: 204, event_id: ev.id }]);
});

it('retries after 500s with backoff, keeping the webhook-id, and logs every attempt', async () => {
  const hooks = moduleFor();
  const tenant = `t-${randomUUID()}`;
  let calls = 0;
  receiver.answer = (_req, res) => (++calls <= 2 ? res.writeHead(500).end('down') : res.writeHead(200).end('ok'));
  const { endpoint } = await hooks.endpoints.create(tenant, { url: receiver.url('/flaky') });
  const ev = event(tenant);
  await hooks.deliver(ev);

  await until(async () => (await hooks.endpoints.messages(tenant, endpoint.id))[0]?.status === 'delivered', 'success');
  expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([ev.id, ev.id, ev.id]);
  const log = (await hooks.endpoints.attempts(tenant, endpoint.id)).reverse();
  expect(log.map((a) => [a.attempt, a.outcome, a.status_code, a.response])).toEqual([
    [1, 'http_error', 500, 'down'],
    [2, 'http_error', 500, 'down'],
    [3, 'success', 200, 'ok'],
  ]);
  // The retries waited at least the configured delays (50 ms, then 100 ms). Not a speed check: both
  // times are the database's, and a retry cannot be claimed before its next_attempt_at, which is
  // set after the previous attempt was logged.
  expect(log[1]!.attempted_at.getTime() - log[0]!.attempted_at.getTime()).toBeGreaterThanOrEqual(50);
  expect(log[2]!.attempted_at.getTime() - log[1]!.attempted_at.getTime()).toBeGreaterThanOrEqual(100);
});

it('gives up after the last backoff step: the delivery is failed, and can be redelivered', async () => {
  const hooks = moduleFor();
  const tenant = `t-${randomUUID()}`;
  receiver.answer = (_req, res) => res.writeHead(503).end();
  const { endpoint } = await hooks.endpoints.create(tenant, { url: receiver.url('/down') });
  await hooks.deliver(event(tenant));
  await until(async () => (await hooks.endpoints.messages(tenant, endpoint.id))[0]?.status === 'failed', 'failure');
  const [message] = await hooks.endpoints.messages(tenant, endpoint.id);
  expect(message).toMatchObject({ attempts: 3, last_error: 'HTTP 503' });
  expect(await hooks.endpoints.attempts(tenant, endpoint.id)).toHaveLength(3);

  receiver.answer = (_req, res) => res.writeHead(200).end();
  await hooks.endpoints.redeliver(tenant, message!.id);
  await until(async () => (await hooks.endpoints.messages(tenant, endpoint.id))[0]?.status === 'delivered', 'redrive');
  // Another tenant cannot redeliver it.
  await expect(hooks.endpoints.redeliver(`other-${tenant}`, message!.id)).rejects.toThrow(/No failed/);
});

it('a 410 answer disables the endpoint and cancels what was queued for it', async () => {
  const hooks = moduleFor();
  const tenant = `t-${randomUUID()}`;
  receiver.answer = (_req, res) => res.writeHead(410).end('gone');
  const { endpoint } = await hooks.endpoints.create(tenant, { url: receiver.url('/gone'), maxConcurrency: 1 });
  await hooks.deliver(event(tenant));
  await until(async () => !(await hooks.endpoints.get(tenant, endpoint.id)).enabled, 'the endpoint disabled');
  const after = await hooks.endpoints.get(tenant, endpoint.id);
  expect(after.disabledReason).toMatch(/410/);
  expect(after.disabledAt).toBeInstanceOf(Date);
  expect(await hooks.deliver(event(tenant))).toBe(0);
  expect(receiver.received).toHaveLength(1);

  // Enabling it again clears the reason and deliveries resume.
  receiver.answer = (_req, res) => res.writeHead(200).end();
  const enabled = await hooks.endpoints.update(tenant, endpoint.id, { enabled: true });
  expect(enabled.disabledReason).toBeNull();
  expect(await hooks.deliver(event(tenant))).toBe(1);
  await until(() => receiver.received.length === 2, 'delivery after re-enabling');
});

it('after a secret rotation both secrets sign during the overlap, and only the new one after it', async () => {
  const hooks = moduleFor();
  const tenant = `t-${randomUUID()}`;
  const { endpoint, secret: first } = await hooks.endpoints.create(tenant, { url: receiver.url('/rotate') });
  const { secret: second, previousValidUntil } = await hooks.endpoints.rotateSecret(tenant, endpoint.id, 3600);
  expect(second).not.toBe(first);
  expect(previousValidUntil.getTime()).toBeGreaterThan(Date.now());
  expect(await hooks.endpoints.secret(tenant, endpoint.id)).toBe(second);

  await hooks.deliver(event(tenant));
  await until(() => receiver.received.length === 1, 'delivery during the overlap');
  const during = receiver.received[0]!;
  expect(during.headers['webhook-signature']!.split(' ').filter((s) => s.startsWith('v1,'))).toHaveLength(2);
  expect(() => new Webhook(first).verify(during.body, during.headers)).not.toThrow();
  expect(() => new Webhook(second).verify(during.body, during.headers)).not.toThrow();

  // A rotation with no overlap ends every older secret at once.
  const { secret: third } = await hooks.endpoints.rotateSecret(tenant, endpoint.id, 0);
  await hooks.deliver(event(tenant));
  await until(() => receiver.received.length === 2, 'delivery after the overlap');
  const after = receiver.received[1]!;
  expect(() => new Webhook(third).verify(after.body, after.headers)).not.toThrow();
  expect(() => new Webhook(first).verify(after.body, after.headers)).toThrow();
  expect(() => new Webhook(second).verify(after.body, after.headers)).toThrow();
});

it('after a signing-key rotation the JWKS publishes both keys and both sign during the overlap', async () => {
  const hooks = moduleFor();
  const tenant = `t-${randomUUID()}`;
  await hooks.endpoints.create(tenant, { url: receiver.url('/keys') });
  const before = await hooks.endpoints.jwks(tenant);
  const rotated = await hooks.endpoints.rotateSigningKey(tenant, 3600);
  expect(rotated.keys).toHaveLength(2);
  expect(rotated.keys.map((k) => k.kid)).toContain(before.keys[0]!.kid);

  await hooks.deliver(event(tenant));
  await until(() => receiver.received.length === 1, 'delivery');
  const got = receiver.received[0]!;
  const content = Buffer.from(`${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`);
  const sigs = v1aSignatures(got.headers['webhook-signature']!).map((s) => Buffer.from(s, 'base64'));
  for (const jwk of rotated.keys) {
    const key = createPublicKey({ key: { ...jwk }, format: 'jwk' });
    expect(sigs.some((sig) => verify(null, content, key, sig))).toBe(true);
  }
});

it('an endpoint of tenant A never receives tenant B events, and B cannot see A endpoint', async () => {
  const hooks = moduleFor();
  const a = `a-${randomUUID()}`;
  const b = `b-${randomUUID()}`;
  const { endpoint: epA } = await hooks.endpoints.create(a, { url: receiver.url('/tenant-a') });
  await hooks.endpoints.create(b, { url: receiver.url('/tenant-b'), topics: ['workflow.*'] });
  const eventsA = [event(a), event(a, 'pack.certified')];
  const eventsB = [event(b), event(b, 'pack.certified'), event(b, 'workflow.failed')];
  for (const e of [...eventsA, ...eventsB]) await hooks.deliver(e);

  // B's filter takes workflow.* only: 2 of its 3 events; A has no filter: both of its events.
  await until(() => receiver.received.length === 4, 'four deliveries');
  const ids = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => r.headers['webhook-id']);
  expect(ids('/tenant-a').sort()).toEqual(eventsA.map((e) => e.id).sort());
  expect(ids('/tenant-b').sort()).toEqual([eventsB[0]!.id, eventsB[2]!.id].sort());
  for (const r of receiver.received) expect(JSON.parse(r.body).tenantid).toBe(r.path === '/tenant-a' ? a : b);

  await expect(hooks.endpoints.get(b, epA.id)).rejects.toThrow(/not found/);
  await expect(hooks.endpoints.rotateSecret(b, epA.id)).rejects.toThrow(/not found/);
  await expect(hooks.endpoints.attempts(b, epA.id)).rejects.toThrow(/not found/);
  expect(await hooks.endpoints.list(b)).toHaveLength(1);
  // The tenants' signing keys differ.
  expect((await hooks.endpoints.jwks(a)).keys[0]!.kid).not.toBe((await hooks.endpoints.jwks(b)).keys[0]!.kid);
});

it('a hanging receiver holds one delivery slot; other endpoints keep being served', async () => {
  const hooks = moduleFor();
  const tenant = `t-${randomUUID()}`;
  // The hanging path holds every request until the test lets go; the healthy one answers at once.
  const held: (() => void)[] = [];
  receiver.answer = (req, res) => {
    if (req.path === '/hang') held.push(() => res.writeHead(200).end());
    else res.writeHead(200).end();
  };
  const { endpoint: hanging } = await hooks.endpoints.create(tenant, {
    url: receiver.url('/hang'),
    maxConcurrency: 1,
    timeoutMs: 60_000,
  });
  const { endpoint: healthy } = await hooks.endpoints.create(tenant, { url: receiver.url('/healthy') });
  const events = Array.from({ length: 6 }, () => event(tenant));
  for (const e of events) await hooks.deliver(e);

  // Every event reaches the healthy endpoint while the hanging one holds its single slot.
  const delivered = async (id: string) =>
    (await hooks.endpoints.messages(tenant, id)).filter((m) => m.status === 'delivered').length;
  await until(async () => (await delivered(healthy.id)) === 6, 'the healthy deliveries');
  // Their bookkeeping done, the worker holds just the hanging request.
  await until(() => hooks.worker.inFlight() === 1, 'one delivery in flight');
  expect(receiver.received.filter((r) => r.path === '/hang')).toHaveLength(1);
  expect(receiver.open('/hang')).toBe(1);

  // Let go: the hanging endpoint's backlog drains one request at a time.
  await until(async () => {
    held.splice(0).forEach((answer) => answer());
    return (await delivered(hanging.id)) === 6;
  }, 'the held deliveries');
  expect(receiver.maxOpen('/hang')).toBe(1);
});

it('stopping the worker interrupts a hanging delivery after the grace and hands it back uncounted', async () => {
  const hooks = moduleFor();
  const tenant = `t-${randomUUID()}`;
  receiver.answer = () => {}; // never answers
  const { endpoint } = await hooks.endpoints.create(tenant, { url: receiver.url('/stuck'), timeoutMs: 120_000 });
  await hooks.deliver(event(tenant));
  await until(() => receiver.open('/stuck') === 1, 'the hanging request');
  // A grace of 20 ms, not the endpoint's 120 s timeout: stop() returns once the request is interrupted.
  await hooks.worker.stop(20);
  expect(hooks.worker.inFlight()).toBe(0);
  await until(() => receiver.open('/stuck') === 0, 'the interrupted request closed');
  // No attempt is logged or counted, and the delivery is due again for the next worker.
  expect(await hooks.endpoints.attempts(tenant, endpoint.id)).toEqual([]);
  const [message] = await hooks.endpoints.messages(tenant, endpoint.id);
  expect(message).toMatchObject({ status: 'pending', attempts: 0 });
  const lease = await db.sql.query<{ locked_by: string | null }>(
    `SELECT locked_by FROM webhook_queue WHERE id = $1::int8`,
    [message!.id],
  );
  expect(lease.rows[0]!.locked_by).toBeNull();
  receiver.answer = (_req, res) => res.writeHead(200).end();
  moduleFor();
  await until(async () => (await hooks.endpoints.messages(tenant, endpoint.id))[0]?.status === 'delivered', 'delivery');
});

it('a receiver that does not answer within the endpoint timeout is a timed-out attempt, retried later', async () => {
  // Enough retries that the switch to answering below always comes before they run out.
  const hooks = moduleFor(testConfig({ EVENTS_WEBHOOK_BACKOFF: '50ms,100ms,200ms,400ms,800ms,1600ms' }));
  const tenant = `t-${randomUUID()}`;
  receiver.answer = () => {}; // never answers
  const { endpoint } = await hooks.endpoints.create(tenant, { url: receiver.url('/silent'), timeoutMs: 200 });
  await hooks.deliver(event(tenant));
  await until(async () => (await hooks.endpoints.attempts(tenant, endpoint.id)).length >= 1, 'the timed-out attempt');
  const [attempt] = await hooks.endpoints.attempts(tenant, endpoint.id);
  expect(attempt).toMatchObject({ attempt: 1, outcome: 'timeout', status_code: null });
  expect(attempt!.response).toMatch(/no answer within 200 ms/);
  // The receiver saw the request end when the worker gave up on it.
  await until(() => receiver.open('/silent') === 0, 'the abandoned request closed');
  receiver.answer = (_req, res) => res.writeHead(200).end();
  await until(async () => (await hooks.endpoints.messages(tenant, endpoint.id))[0]?.status === 'delivered', 'retry');
});

it('per-endpoint concurrency holds across two workers on one database', async () => {
  const one = moduleFor();
  moduleFor();
  const tenant = `t-${randomUUID()}`;
  const pending: (() => void)[] = [];
  let maxOpen = 0;
  let open = 0;
  receiver.answer = (_req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    // Answer a little later, so overlapping claims would show up as two open requests.
    pending.push(() => {
      open--;
      res.writeHead(200).end();
    });
    setTimeout(() => pending.shift()?.(), 30);
  };
  const { endpoint } = await one.endpoints.create(tenant, { url: receiver.url('/serial'), maxConcurrency: 1 });
  for (let i = 0; i < 8; i++) await one.deliver(event(tenant));
  await until(
    async () => (await one.endpoints.messages(tenant, endpoint.id)).every((m) => m.status === 'delivered'),
    'all delivered',
  );
  expect(receiver.received).toHaveLength(8);
  expect(maxOpen).toBe(1);
});
