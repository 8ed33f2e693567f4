// The events subgraph over real HTTP and graphql-ws: the catalog, publish (BAD_USER_INPUT with the
// JSON pointer in extensions), subscriptions with the DLQ and its redrive, and the
// `events(topic, afterPosition)` subscription that replays, goes live and resumes, each tenant
// seeing only its own stream.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { AccessTokens } from '../../../platform/auth/jwt';
import { eventsService } from '../../../services/events';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';

jest.setTimeout(60_000);

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
let h: Harness;
let url: string;
let tokenA: string;
let tokenB: string;
const clients: Client[] = [];

beforeAll(async () => {
  // NATS_URL (when set) carries the notices through JetStream instead of NOTIFY/in-process.
  h = await startServices([eventsService], { NATS_URL: process.env.NATS_URL, REQUIRE_AUTH: 'true' });
  url = h.services.events!.url;
  tokenA = await tokens.issue({ username: 'alice', tenantId: 'gq-a', roles: ['user'], scopes: ['read', 'write'] });
  tokenB = await tokens.issue({ username: 'bob', tenantId: 'gq-b', roles: ['user'], scopes: ['read', 'write'] });
  for (const t of [tokenA, tokenB]) {
    const r = await gql(
      `mutation($i: RegisterTopicInput!) { registerEventTopic(input: $i) { name platform } }`,
      {
        i: {
          name: 'ledger.entries',
          schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
        },
      },
      t,
    );
    expect(r.data.registerEventTopic).toEqual({ name: 'ledger.entries', platform: false });
  }
});
afterAll(async () => {
  for (const c of clients) await c.dispose();
  await h?.close();
});

async function gql(query: string, variables: Record<string, unknown>, token: string): Promise<any> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return res.json();
}

const PUBLISH = `mutation($i: PublishEventInput!) { publishEvent(input: $i) { duplicate event { id position tenantId specversion data subject } } }`;
const publish = (token: string, data: unknown, subject?: string) =>
  gql(PUBLISH, { i: { topic: 'ledger.entries', data, subject } }, token);

function subscribe(token: string, afterPosition: number | null) {
  const client = createClient({
    url: url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  clients.push(client);
  const received: { position: number; tenantId: string; data: { n: number } }[] = [];
  const errors: unknown[] = [];
  client.subscribe(
    {
      query: `subscription($after: Float) { events(topic: "ledger.entries", afterPosition: $after) { position tenantId data } }`,
      variables: { after: afterPosition },
    },
    {
      next: (v) => {
        if (v.errors) errors.push(v.errors);
        else received.push((v.data as any).events);
      },
      error: (e) => errors.push(e),
      complete: () => {},
    },
  );
  return { received, errors, client };
}

describe('catalog and publish', () => {
  it("lists the platform's topics and the tenant's own", async () => {
    const r = await gql(`{ eventTopics { name platform } }`, {}, tokenA);
    const names = r.data.eventTopics.map((t: any) => `${t.name}:${t.platform}`);
    expect(names).toEqual(expect.arrayContaining(['ledger.entries:false', 'rulepack.deprecated:true']));
  });

  it('refuses a payload that breaks the schema with BAD_USER_INPUT and the JSON pointer', async () => {
    const r = await publish(tokenA, { n: 'one' });
    expect(r.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(r.errors[0].extensions.issues[0]).toMatchObject({ loc: ['data', 'n'], ctx: { pointer: '/n' } });
    expect(r.errors[0].extensions.field).toBe('data.n');
  });
});

describe('subscription events(topic, afterPosition) over graphql-ws', () => {
  it('replays from the position, goes live, resumes, and never shows another tenant', async () => {
    for (const n of [1, 2]) expect((await publish(tokenA, { n })).data.publishEvent.event.position).toBe(n);
    await publish(tokenB, { n: 100 });
    const a = subscribe(tokenA, 0);
    await until(() => a.received.length >= 2, 'the replayed events');
    await publish(tokenA, { n: 3 });
    await until(() => a.received.length >= 3, 'the live event');
    expect(a.received).toEqual([1, 2, 3].map((n) => ({ position: n, tenantId: 'gq-a', data: { n } })));

    // Resume after the last position received: only what came after.
    await a.client.dispose();
    await publish(tokenA, { n: 4 });
    const resumed = subscribe(tokenA, 3);
    await until(() => resumed.received.length >= 1, 'the resumed feed');
    expect(resumed.received.map((e) => e.data.n)).toEqual([4]);

    // Tenant B's feed of the same topic name holds only its own event; naming A is refused.
    const b = subscribe(tokenB, 0);
    await until(() => b.received.length >= 1, "B's event");
    await publish(tokenB, { n: 101 });
    await until(() => b.received.length >= 2, "B's live event");
    expect(b.received.map((e) => [e.tenantId, e.data.n])).toEqual([
      ['gq-b', 100],
      ['gq-b', 101],
    ]);
    expect(a.errors).toEqual([]);
    const r = await gql(`{ backboneEvents(topic: "ledger.entries", tenantId: "gq-a") { position } }`, {}, tokenB);
    expect(r.errors[0].extensions.code).toBe('FORBIDDEN');
    const own = await gql(`{ backboneEvents(topic: "ledger.entries") { data } }`, {}, tokenB);
    expect(own.data.backboneEvents).toEqual([{ data: { n: 100 } }, { data: { n: 101 } }]);
  });
});

describe('subscriptions and the DLQ', () => {
  it('pulls, dead-letters after the last delivery, shows the DLQ and redrives it', async () => {
    const created = await gql(
      `mutation { createEventSubscription(input: { name: "gq-sub", topic: "ledger.entries", fromPosition: 0, maxDeliveries: 1 }) { name position maxDeliveries } }`,
      {},
      tokenA,
    );
    expect(created.data.createEventSubscription).toEqual({ name: 'gq-sub', position: 0, maxDeliveries: 1 });
    const pulled = await gql(
      `mutation { pullEvents(subscription: "gq-sub", max: 2) { leaseId attempt event { position } } }`,
      {},
      tokenA,
    );
    const [first, second] = pulled.data.pullEvents;
    expect([first.event.position, second.event.position]).toEqual([1, 2]);
    const nack = await gql(
      `mutation($l: ID!) { nackEvent(subscription: "gq-sub", leaseId: $l, error: "bad") }`,
      { l: first.leaseId },
      tokenA,
    );
    expect(nack.data.nackEvent).toBe('DEAD');
    const acked = await gql(
      `mutation($l: ID!) { ackEvents(subscription: "gq-sub", leaseIds: [$l]) }`,
      { l: second.leaseId },
      tokenA,
    );
    expect(acked.data.ackEvents).toEqual([second.leaseId]);

    const dlq = await gql(
      `{ eventSubscription(name: "gq-sub") { deadLetters { position attempts lastError event { data } } } deadLetter(subscription: "gq-sub", position: 1) { position } }`,
      {},
      tokenA,
    );
    expect(dlq.data.eventSubscription.deadLetters).toEqual([
      { position: 1, attempts: 1, lastError: 'bad', event: { data: { n: 1 } } },
    ]);
    expect(dlq.data.deadLetter).toEqual({ position: 1 });
    // Tenant B sees no such subscription.
    const other = await gql(`{ eventSubscription(name: "gq-sub") { name } eventSubscriptions { name } }`, {}, tokenB);
    expect(other.data).toEqual({ eventSubscription: null, eventSubscriptions: [] });
    const redrive = await gql(`mutation { redriveDeadLetters(subscription: "gq-sub") }`, {}, tokenA);
    expect(redrive.data.redriveDeadLetters).toEqual([1]);
    const replay = await gql(
      `mutation { replayEventSubscription(name: "gq-sub", from: { afterPosition: 0 }) }`,
      {},
      tokenA,
    );
    expect(replay.data.replayEventSubscription).toBe(0);
    const both = await gql(
      `mutation { replayEventSubscription(name: "gq-sub", from: { afterPosition: 0, time: "2026-01-01T00:00:00Z" }) }`,
      {},
      tokenA,
    );
    expect(both.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
