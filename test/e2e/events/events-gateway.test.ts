// The events backbone through the front door (issue 26: "REST under /api/events/... with gateway
// routes"): publish, pull, ack, nack into the dead-letter queue, inspect, redrive and replay over
// the gateway's /api/events/... routes with real HTTP, the errors in their FastAPI shapes, and the
// `events(topic, afterPosition)` subscription through the router over graphql-ws: replayed from the
// store, then live, each tenant seeing only its own stream. The platform here is identity, the ledger, events
// and the gateway (a supergraph composed of their subgraphs), so the suite stays light.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { registryOf, SERVICES } from '../../../launcher/registry';
import { PROJECT_ROOT } from '../../../platform/project-root';
import { composeRegistry } from '../../../router/compose';
import { until } from '../../support/waiting';
import { gql, startPlatform, tenantToken, type Platform } from '../router/platform.support';

jest.setTimeout(120_000);

const services = SERVICES.filter((s) => ['identity', 'ledger', 'events', 'gateway'].includes(s.name));
let p: Platform;
let dir: string;
let alice: string;
let bob: string;
let reader: string;
const sockets: Client[] = [];

const TOPIC = 'gw.orders';
const SCHEMA = { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } };

/** One call to the gateway's /api/events/... routes; the body parsed when there is one. */
async function api(token: string | undefined, method: string, route: string, body?: unknown) {
  const res = await fetch(`${p.gateway}/api/events${route}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null, headers: res.headers };
}

/** A graphql-ws subscription to the topic through the router; what it receives, in order. */
function follow(token: string, afterPosition: number) {
  const client = createClient({
    url: `${p.gateway.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  sockets.push(client);
  const received: { position: number; tenantId: string; data: { amount: number } }[] = [];
  const errors: unknown[] = [];
  client.subscribe(
    {
      query: `subscription($topic: String!, $after: Float) { events(topic: $topic, afterPosition: $after) { position tenantId data } }`,
      variables: { topic: TOPIC, after: afterPosition },
    },
    {
      next: (v) => (v.errors ? errors.push(v.errors) : received.push((v.data as any).events)),
      error: (e) => errors.push(e),
      complete: () => {},
    },
  );
  return { received, errors };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'supergraph-events-'));
  const supergraph = path.join(dir, 'supergraph.graphql');
  fs.writeFileSync(supergraph, composeRegistry(registryOf(services), PROJECT_ROOT));
  p = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10', SUPERGRAPH_PATH: supergraph }, services);
  alice = await tenantToken('gw-ev-a');
  bob = await tenantToken('gw-ev-b');
  reader = await tenantToken('gw-ev-a', ['read']);
  for (const t of [alice, bob])
    expect((await api(t, 'POST', '/topics', { name: TOPIC, schema: SCHEMA })).status).toBe(201);
});
afterAll(async () => {
  for (const s of sockets) await s.dispose();
  await p?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('REST through the gateway (/api/events/...)', () => {
  it('publishes, pulls, acks, nacks into the DLQ, inspects, redrives and replays', async () => {
    const created = await api(alice, 'POST', '/subscriptions', {
      name: 'gw-billing',
      topic: TOPIC,
      max_deliveries: 2,
      backoff_ms: 0,
    });
    expect(created.status).toBe(201);
    const start = created.body.position;
    for (const amount of [1, 2]) {
      const published = await api(alice, 'POST', '/publish', {
        topic: TOPIC,
        data: { amount },
        subject: `o-${amount}`,
      });
      expect(published.status).toBe(201);
      expect(published.body).toMatchObject({ duplicate: false, event: { specversion: '1.0', tenantid: 'gw-ev-a' } });
    }

    const first = await api(alice, 'POST', '/subscriptions/gw-billing/pull', { max: 10 });
    expect(first.status).toBe(200);
    expect(first.body.messages.map((m: any) => [m.event.position, m.attempt])).toEqual([
      [start + 1, 1],
      [start + 2, 1],
    ]);
    const [poison, good] = first.body.messages;
    expect((await api(alice, 'POST', '/subscriptions/gw-billing/ack', { lease_ids: [good.lease_id] })).body).toEqual({
      acked: [good.lease_id],
    });
    const nack = (leaseId: string, error: string) =>
      api(alice, 'POST', '/subscriptions/gw-billing/nack', { lease_id: leaseId, error });
    expect((await nack(poison.lease_id, 'boom')).body).toEqual({ state: 'ready' });
    const second = await api(alice, 'POST', '/subscriptions/gw-billing/pull', {});
    expect(second.body.messages.map((m: any) => [m.event.position, m.attempt])).toEqual([[start + 1, 2]]);
    expect((await nack(second.body.messages[0].lease_id, 'boom again')).body).toEqual({ state: 'dead' });

    const dlq = await api(alice, 'GET', '/subscriptions/gw-billing/dlq');
    expect(dlq.status).toBe(200);
    expect(dlq.body.dead_letters.map((d: any) => [d.position, d.attempts, d.last_error])).toEqual([
      [start + 1, 2, 'boom again'],
    ]);
    const one = await api(alice, 'GET', `/subscriptions/gw-billing/dlq/${start + 1}`);
    expect(one.body).toMatchObject({ attempts: 2, last_error: 'boom again', event: { data: { amount: 1 } } });
    // Nothing is on the queue while the poison message is dead.
    expect((await api(alice, 'POST', '/subscriptions/gw-billing/pull', {})).body.messages).toEqual([]);

    const redriven = await api(alice, 'POST', '/subscriptions/gw-billing/dlq/redrive', { positions: [start + 1] });
    expect(redriven.body).toEqual({ redriven: [start + 1] });
    expect((await api(alice, 'GET', '/subscriptions/gw-billing/dlq')).body.dead_letters).toEqual([]);
    const back = await api(alice, 'POST', '/subscriptions/gw-billing/pull', {});
    expect(back.body.messages.map((m: any) => [m.event.position, m.attempt])).toEqual([[start + 1, 1]]);
    await api(alice, 'POST', '/subscriptions/gw-billing/ack', { lease_ids: [back.body.messages[0].lease_id] });

    // Replay from a position, then from a time (before everything: the whole stream again).
    const replay = await api(alice, 'POST', '/subscriptions/gw-billing/replay', { after_position: start + 1 });
    expect(replay.body).toEqual({ position: start + 1 });
    const again = await api(alice, 'POST', '/subscriptions/gw-billing/pull', {});
    expect(again.body.messages.map((m: any) => m.event.data)).toEqual([{ amount: 2 }]);
    await api(alice, 'POST', '/subscriptions/gw-billing/ack', { lease_ids: [again.body.messages[0].lease_id] });
    const byTime = await api(alice, 'POST', '/subscriptions/gw-billing/replay', { time: '2000-01-01T00:00:00Z' });
    expect(byTime.body).toEqual({ position: 0 });
    const whole = await api(alice, 'POST', '/subscriptions/gw-billing/pull', { max: 10 });
    expect(whole.body.messages.map((m: any) => m.event.data.amount)).toEqual([1, 2]);
  });

  it('answers in FastAPI shapes: 401 without a token, 422 naming the pointer, 403 without write, 404 unknown', async () => {
    const anonymous = await api(undefined, 'POST', '/publish', { topic: TOPIC, data: { amount: 1 } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: expect.any(String) });
    const bad = await api(alice, 'POST', '/publish', { topic: TOPIC, data: { amount: 'many' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'data', 'amount'], ctx: { pointer: '/amount' } });
    const readOnly = await api(reader, 'POST', '/publish', { topic: TOPIC, data: { amount: 1 } });
    expect(readOnly.status).toBe(403);
    expect((await api(alice, 'GET', '/subscriptions/nope/dlq')).status).toBe(404);
    const neither = await api(alice, 'POST', '/subscriptions/gw-billing/replay', {});
    expect(neither.status).toBe(422);
    expect(neither.body.detail[0].loc[0]).toBe('body');
  });

  it("another tenant sees none of a tenant's subscriptions, dead letters or events through the gateway", async () => {
    expect((await api(bob, 'GET', '/subscriptions')).body.subscriptions).toEqual([]);
    expect((await api(bob, 'GET', '/subscriptions/gw-billing')).status).toBe(404);
    expect((await api(bob, 'GET', '/subscriptions/gw-billing/dlq')).status).toBe(404);
    expect((await api(bob, 'POST', '/subscriptions/gw-billing/dlq/redrive', {})).status).toBe(404);
    expect((await api(bob, 'POST', '/subscriptions/gw-billing/pull', {})).status).toBe(404);
    expect((await api(bob, 'GET', `/topics/${TOPIC}/events`)).body.events).toEqual([]);
    // Naming the other tenant is refused, and so is a forged X-Tenant-ID header.
    expect((await api(bob, 'GET', `/topics/${TOPIC}/events?tenant_id=gw-ev-a`)).status).toBe(403);
    const forged = await fetch(`${p.gateway}/api/events/subscriptions`, {
      headers: { authorization: `Bearer ${bob}`, 'x-tenant-id': 'gw-ev-a' },
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toEqual({ detail: expect.any(String) });
  });
});

describe('GraphQL through the router', () => {
  it('events(topic, afterPosition) over graphql-ws replays the stream, goes live, and keeps tenants apart', async () => {
    const before = await api(alice, 'GET', `/topics/${TOPIC}/events?after_position=0&limit=500`);
    const stored = before.body.events.length;
    expect(stored).toBeGreaterThan(0);
    const a = follow(alice, 0);
    const b = follow(bob, 0);
    await until(() => a.received.length >= stored || a.errors.length > 0, 'the replayed stream');
    expect(a.errors).toEqual([]);
    expect(a.received.map((e) => e.position)).toEqual(before.body.events.map((e: any) => e.position));

    // Live: a publish through the REST door reaches the subscriber through the router.
    const live = await api(alice, 'POST', '/publish', { topic: TOPIC, data: { amount: 99 } });
    await until(() => a.received.some((e) => e.data.amount === 99) || a.errors.length > 0, 'the live event');
    expect(a.received.at(-1)).toEqual({
      position: live.body.event.position,
      tenantId: 'gw-ev-a',
      data: { amount: 99 },
    });
    const own = await api(bob, 'POST', '/publish', { topic: TOPIC, data: { amount: 7 } });
    await until(() => b.received.length > 0 || b.errors.length > 0, "bob's own event");
    expect(b.errors).toEqual([]);
    expect(b.received).toEqual([{ position: own.body.event.position, tenantId: 'gw-ev-b', data: { amount: 7 } }]);
    expect(a.received.every((e) => e.tenantId === 'gw-ev-a')).toBe(true);
  });

  it('the dead-letter queue and its redrive answer through the router', async () => {
    await api(alice, 'POST', '/subscriptions', { name: 'gw-graph', topic: TOPIC, max_deliveries: 1, backoff_ms: 0 });
    const published = await api(alice, 'POST', '/publish', { topic: TOPIC, data: { amount: 5 } });
    const position = published.body.event.position;
    const pulled = await gql(
      p.gateway,
      `mutation { pullEvents(subscription: "gw-graph", max: 5) { leaseId attempt } }`,
      {
        token: alice,
      },
    );
    expect(pulled.body.errors).toBeUndefined();
    const leaseId = pulled.body.data.pullEvents[0].leaseId;
    const nacked = await gql(
      p.gateway,
      `mutation($l: ID!) { nackEvent(subscription: "gw-graph", leaseId: $l, error: "no") }`,
      {
        token: alice,
        variables: { l: leaseId },
      },
    );
    expect(nacked.body.data.nackEvent).toBe('DEAD');
    const query = `{ eventSubscription(name: "gw-graph") { deadLetters { position attempts lastError event { data } } } }`;
    const dead = await gql(p.gateway, query, { token: alice });
    expect(dead.body.data.eventSubscription.deadLetters).toEqual([
      { position, attempts: 1, lastError: 'no', event: { data: { amount: 5 } } },
    ]);
    expect((await gql(p.gateway, query, { token: bob })).body.data?.eventSubscription ?? null).toBeNull();
    const redriven = await gql(p.gateway, `mutation { redriveDeadLetters(subscription: "gw-graph") }`, {
      token: alice,
    });
    expect(redriven.body.data.redriveDeadLetters).toEqual([position]);
    const replayed = await gql(
      p.gateway,
      `mutation($from: ReplayFromInput!) { replayEventSubscription(name: "gw-graph", from: $from) }`,
      { token: alice, variables: { from: { afterPosition: 0 } } },
    );
    expect(replayed.body.data.replayEventSubscription).toBe(0);
  });
});
