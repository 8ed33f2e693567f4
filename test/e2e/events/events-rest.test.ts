// The events service's REST door with tokens: tenant topics with their JSON Schema, publishing
// (201, a retried id 200, 422 naming the JSON pointer, 413 over the size limit, 429 over the rate
// and the storage quota, 403 for a tenant on a platform topic), durable subscriptions (pull, ack,
// nack, DLQ list/inspect/redrive with its audit row in the outbox, replay), and tenancy: another
// tenant sees nothing.
import { AccessTokens } from '../../../platform/auth/jwt';
import { EventsClient } from '../../../platform/clients/events.client';
import { ServiceCallError } from '../../../platform/clients/service-request';
import { RULEPACK_DEPRECATED } from '../../../platform/contracts/rulepack.events';
import { defineEventsService, eventsService } from '../../../services/events';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';

jest.setTimeout(60_000);

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
let db: TestDatabase;
let h: Harness;
let limited: Harness;
let url: string;
let alice: string;
let bob: string;
let reader: string;
let operator: string;
let service: string;

const ORDER_SCHEMA = {
  type: 'object',
  required: ['amount'],
  properties: {
    amount: { type: 'number' },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
  },
};

async function call(token: string, method: string, path: string, body?: unknown, base = url) {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null, headers: res.headers };
}

beforeAll(async () => {
  db = await createTestDatabase();
  h = await startServices([eventsService], { REQUIRE_AUTH: 'true' }, { db });
  url = h.services.events!.url;
  const user = (username: string, tenantId: string, scopes = ['read', 'write']) =>
    tokens.issue({ username, tenantId, roles: ['user'], scopes });
  alice = await user('alice', 'ev-a');
  bob = await user('bob', 'ev-b');
  reader = await user('rita', 'ev-a', ['read']);
  operator = await tokens.issue({ username: 'op', tenantId: 'platform', roles: ['platform-admin'], scopes: ['admin'] });
  service = await tokens.issue({
    username: 'svc-packs',
    tenantId: 'default',
    roles: ['service:packs'],
    scopes: ['write'],
  });
  for (const t of [alice, bob]) {
    expect((await call(t, 'POST', '/topics', { name: 'orders.created', schema: ORDER_SCHEMA })).status).toBe(201);
  }
});
afterAll(async () => {
  await limited?.close();
  await h?.close();
  await db?.drop();
});

describe('topics', () => {
  it("lists the platform's catalogue (seeded from the contracts) beside the tenant's own topics", async () => {
    const r = await call(alice, 'GET', '/topics');
    expect(r.status).toBe(200);
    const byName = new Map<string, any>(r.body.topics.map((t: any) => [t.name, t]));
    expect(byName.get(RULEPACK_DEPRECATED.topic)).toMatchObject({
      platform: true,
      version: RULEPACK_DEPRECATED.version,
    });
    expect(byName.get(RULEPACK_DEPRECATED.topic).schema.$id).toBeUndefined();
    expect(byName.get('orders.created')).toMatchObject({ platform: false, schema: ORDER_SCHEMA });
  });

  it('refuses a schema that is not a JSON Schema, and a taken name', async () => {
    const bad = await call(alice, 'POST', '/topics', { name: 'bad.schema', schema: { type: 'no-such-type' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'schema']);
    expect((await call(alice, 'POST', '/topics', { name: 'orders.created', schema: {} })).status).toBe(409);
    expect((await call(alice, 'POST', '/topics', { name: RULEPACK_DEPRECATED.topic, schema: {} })).status).toBe(409);
  });
});

describe('publishing', () => {
  it('stores a CloudEvents 1.0 envelope with the tenant extension, and a retried id once', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const r = await call(alice, 'POST', '/publish', {
      topic: 'orders.created',
      data: { amount: 12.5 },
      id: 'order-1',
      subject: 'acct-1',
      traceparent,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      duplicate: false,
      event: {
        specversion: '1.0',
        id: 'order-1',
        type: 'orders.created',
        source: '/tenants/ev-a/topics/orders.created',
        subject: 'acct-1',
        tenantid: 'ev-a',
        traceparent,
        topic: 'orders.created',
        position: 1,
        data: { amount: 12.5 },
      },
    });
    expect(Number.isNaN(Date.parse(r.body.event.time))).toBe(false);
    const again = await call(alice, 'POST', '/publish', {
      topic: 'orders.created',
      data: { amount: 99 },
      id: 'order-1',
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ duplicate: true, event: { position: 1, data: { amount: 12.5 } } });
  });

  it("refuses data that breaks the topic's schema with 422 naming the JSON pointer", async () => {
    const wrongType = await call(alice, 'POST', '/publish', { topic: 'orders.created', data: { amount: 'ten' } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail[0]).toMatchObject({ loc: ['body', 'data', 'amount'], ctx: { pointer: '/amount' } });
    const nested = await call(alice, 'POST', '/publish', {
      topic: 'orders.created',
      data: { amount: 1, items: [{ sku: 'a' }, { sku: 7 }] },
    });
    expect(nested.status).toBe(422);
    expect(nested.body.detail[0]).toMatchObject({
      loc: ['body', 'data', 'items', 1, 'sku'],
      ctx: { pointer: '/items/1/sku' },
    });
    expect(nested.body.detail[0].msg).toMatch(/^\/items\/1\/sku: /);
    const missing = await call(alice, 'POST', '/publish', { topic: 'orders.created', data: {} });
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'data', 'amount'], ctx: { pointer: '/amount' } });
    const badTrace = await call(alice, 'POST', '/publish', {
      topic: 'orders.created',
      data: { amount: 1 },
      traceparent: 'nope',
    });
    expect(badTrace.status).toBe(422);
    expect(badTrace.body.detail[0].loc).toEqual(['body', 'traceparent']);
  });

  it('answers 413 for an event over the size limit (256 KB by default)', async () => {
    const r = await call(alice, 'POST', '/publish', {
      topic: 'orders.created',
      data: { amount: 1, note: 'x'.repeat(300 * 1024) },
    });
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/too large/);
  });

  it('keeps platform topics for platform services and operators', async () => {
    const payload = { pack_id: 'kyc.rules', version: '1.0.0', owner_tenant: 'ev-a' };
    const tenant = await call(alice, 'POST', '/publish', { topic: RULEPACK_DEPRECATED.topic, data: payload });
    expect(tenant.status).toBe(403);
    const bySvc = await call(service, 'POST', '/publish', {
      topic: RULEPACK_DEPRECATED.topic,
      data: payload,
      tenant_id: 'ev-a',
    });
    expect(bySvc.status).toBe(201);
    expect(bySvc.body.event.tenantid).toBe('ev-a');
    // The contract's schema is checked as the contract says (semver format, no extra fields needed).
    const broken = await call(operator, 'POST', '/publish', {
      topic: RULEPACK_DEPRECATED.topic,
      data: { ...payload, version: 'v1' },
      tenant_id: 'ev-a',
    });
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0].ctx.pointer).toBe('/version');
    // The tenant reads its own stream of the platform topic.
    const mine = await call(alice, 'GET', `/topics/${RULEPACK_DEPRECATED.topic}/events`);
    expect(mine.body.events.map((e: any) => e.data)).toEqual([payload]);
  });

  it('needs the write scope to publish', async () => {
    const r = await call(reader, 'POST', '/publish', { topic: 'orders.created', data: { amount: 1 } });
    expect(r.status).toBe(403);
  });
});

describe('tenancy', () => {
  it("shows another tenant nothing of a tenant's events, subscriptions or dead letters", async () => {
    await call(alice, 'POST', '/subscriptions', { name: 'alice-sub', topic: 'orders.created', from_position: 0 });
    const events = await call(bob, 'GET', '/topics/orders.created/events');
    expect(events.status).toBe(200);
    expect(events.body.events).toEqual([]);
    expect((await call(bob, 'GET', '/subscriptions')).body.subscriptions).toEqual([]);
    expect((await call(bob, 'GET', '/subscriptions/alice-sub')).status).toBe(404);
    expect((await call(bob, 'POST', '/subscriptions/alice-sub/pull', {})).status).toBe(404);
    expect((await call(bob, 'GET', '/subscriptions/alice-sub/dlq')).status).toBe(404);
    // Naming the other tenant is refused outright.
    expect((await call(bob, 'GET', '/topics/orders.created/events?tenant_id=ev-a')).status).toBe(403);
    expect(
      (await call(bob, 'POST', '/publish', { topic: 'orders.created', data: { amount: 1 }, tenant_id: 'ev-a' })).status,
    ).toBe(403);
    // An operator may, and that access is recorded in the tenant's ledger (through the outbox).
    const op = await call(operator, 'GET', '/topics/orders.created/events?tenant_id=ev-a');
    expect(op.body.events.length).toBeGreaterThan(0);
  });
});

describe('durable subscriptions', () => {
  it('pulls, acks, nacks into the DLQ after the last delivery, and redrives audited', async () => {
    const created = await call(alice, 'POST', '/subscriptions', {
      name: 'billing',
      topic: 'orders.created',
      max_deliveries: 2,
      backoff_ms: 0,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'billing', max_deliveries: 2, backoff_ms: 0 });
    const start = created.body.position;
    for (const amount of [1, 2]) {
      await call(alice, 'POST', '/publish', { topic: 'orders.created', data: { amount }, subject: `s-${amount}` });
    }
    const first = await call(alice, 'POST', '/subscriptions/billing/pull', { max: 10 });
    expect(first.body.messages.map((m: any) => [m.event.position, m.attempt])).toEqual([
      [start + 1, 1],
      [start + 2, 1],
    ]);
    const [poison, good] = first.body.messages;
    expect((await call(alice, 'POST', '/subscriptions/billing/ack', { lease_ids: [good.lease_id] })).body).toEqual({
      acked: [good.lease_id],
    });
    expect(
      (await call(alice, 'POST', '/subscriptions/billing/nack', { lease_id: poison.lease_id, error: 'boom' })).body,
    ).toEqual({
      state: 'ready',
    });
    const second = await call(alice, 'POST', '/subscriptions/billing/pull', {});
    expect(second.body.messages.map((m: any) => m.attempt)).toEqual([2]);
    const last = await call(alice, 'POST', '/subscriptions/billing/nack', {
      lease_id: second.body.messages[0].lease_id,
      error: 'boom again',
    });
    expect(last.body).toEqual({ state: 'dead' });
    // A lease already used is gone.
    expect((await call(alice, 'POST', '/subscriptions/billing/nack', { lease_id: poison.lease_id })).status).toBe(404);

    const dlq = await call(alice, 'GET', '/subscriptions/billing/dlq');
    expect(dlq.body.dead_letters.map((d: any) => [d.position, d.attempts, d.last_error])).toEqual([
      [start + 1, 2, 'boom again'],
    ]);
    const one = await call(alice, 'GET', `/subscriptions/billing/dlq/${start + 1}`);
    expect(one.body.event).toMatchObject({ data: { amount: 1 }, subject: 's-1' });
    expect((await call(alice, 'GET', `/subscriptions/billing/dlq/${start + 2}`)).status).toBe(404);

    const redriven = await call(alice, 'POST', '/subscriptions/billing/dlq/redrive', {});
    expect(redriven.body).toEqual({ redriven: [start + 1] });
    const audit = await db.sql.query<{ event_type: string; user_id: string; event_data: string }>(
      `SELECT event_type, user_id, event_data::text AS event_data FROM outbox_events
        WHERE service = 'events' AND tenant_id = 'ev-a' AND event_type = 'events.dlq_redriven'`,
    );
    expect(audit.rows.map((r) => [r.user_id, JSON.parse(r.event_data)])).toEqual([
      ['alice', { subscription: 'billing', positions: [start + 1], count: 1 }],
    ]);
    const back = await call(alice, 'POST', '/subscriptions/billing/pull', {});
    expect(back.body.messages.map((m: any) => [m.event.position, m.attempt])).toEqual([[start + 1, 1]]);
    await call(alice, 'POST', '/subscriptions/billing/ack', { lease_ids: [back.body.messages[0].lease_id] });

    // Replay from a position: the second event again.
    const replay = await call(alice, 'POST', '/subscriptions/billing/replay', { after_position: start + 1 });
    expect(replay.body).toEqual({ position: start + 1 });
    const again = await call(alice, 'POST', '/subscriptions/billing/pull', {});
    expect(again.body.messages.map((m: any) => m.event.data)).toEqual([{ amount: 2 }]);
    const neither = await call(alice, 'POST', '/subscriptions/billing/replay', {});
    expect(neither.status).toBe(422);
  });
});

describe('limits', () => {
  beforeAll(async () => {
    limited = await startServices(
      [defineEventsService({ config: { publishPerSecond: 1, tenantStorageBytes: 4096 } })],
      { REQUIRE_AUTH: 'true' },
      { db },
    );
  });

  it('answers 429 with Retry-After over the per-tenant publish rate', async () => {
    const base = limited.services.events!.url;
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    // One publish a second: a burst meets the limit within a few tries, whatever the clock.
    for (let i = 0; i < 20 && !statuses.includes(429); i++) {
      const r = await call(bob, 'POST', '/publish', { topic: 'orders.created', data: { amount: i } }, base);
      statuses.push(r.status);
      if (r.status === 429) retryAfter = r.headers.get('retry-after');
    }
    expect(statuses).toContain(429);
    expect(retryAfter).toBe('1');
  });

  it("answers 429 once a tenant's storage quota is used up", async () => {
    const base = limited.services.events!.url;
    const statuses: number[] = [];
    let detail = '';
    // Each event is ~1.5 KB against a 4 KB quota; rate refusals in between are retried.
    for (let i = 0; i < 200 && !detail.includes('quota'); i++) {
      const r = await call(
        operator,
        'POST',
        '/publish',
        {
          topic: 'orders.created',
          data: { amount: i, note: 'q'.repeat(1200) },
          tenant_id: 'ev-b',
        },
        base,
      );
      statuses.push(r.status);
      if (r.status === 429) detail = String(r.body.detail);
      if (r.status === 429 && !detail.includes('quota')) await new Promise((res) => setTimeout(res, 200));
    }
    expect(detail).toMatch(/storage quota/);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
  });
});

describe('the typed client (platform/clients/events.client.ts)', () => {
  it('publishes, pulls and acks, and reports a schema failure as a 422 ServiceCallError naming the pointer', async () => {
    const client = new EventsClient(url);
    const ctx = { token: bob };
    await client.createSubscription(ctx, { name: 'client-sub', topic: 'orders.created' });
    const published = await client.publish(ctx, { topic: 'orders.created', data: { amount: 7 }, id: 'client-1' });
    expect(published.event).toMatchObject({ id: 'client-1', tenantid: 'ev-b', data: { amount: 7 } });
    const pulled = await client.pull(ctx, 'client-sub');
    expect(pulled.messages.map((m) => m.event.id)).toEqual(['client-1']);
    expect(await client.ack(ctx, 'client-sub', [pulled.messages[0]!.lease_id])).toEqual({
      acked: [pulled.messages[0]!.lease_id],
    });
    const err = await client.publish(ctx, { topic: 'orders.created', data: { amount: [] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceCallError);
    expect((err as ServiceCallError).status).toBe(422);
    expect((err as any).body.detail[0].ctx.pointer).toBe('/amount');
  });
});
