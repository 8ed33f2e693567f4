// The operators' doors on platform consumer groups, over real HTTP: a durable platform consumer
// (platform/events/backbone/durable-consumer.ts) whose handler fails leaves an event in its group's
// dead-letter queue; a platform operator lists the groups (REST and GraphQL), reads the dead letters
// (the access recorded in the tenant shown) and redrives them (all, or one tenant's; audited in
// each tenant's ledger through the outbox), after which the consumer handles the event. A tenant,
// even its admin, gets 403 on every door; an unknown group is 404.
import { AccessTokens } from '../../../platform/auth/jwt';
import { consume, type DurableConsumer } from '../../../platform/events/backbone/durable-consumer';
import { createLogger } from '../../../platform/logging/logger';
import { defineEventsService } from '../../../services/events';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';

jest.setTimeout(60_000);

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const GROUP = 'test.platform-groups.orders';
const TOPIC = 'pg.orders';
let h: Harness;
let url: string;
let alice: string;
let aliceAdmin: string;
let bob: string;
let operator: string;
let consumer: DurableConsumer;
let failing = true;
const handled: string[] = [];

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
}

const gql = (token: string, query: string, variables: Record<string, unknown> = {}) =>
  call(token, 'POST', '/graphql', { query, variables }).then((r) => r.body as { data?: any; errors?: any[] });

const outbox = (type: string, tenantId: string) =>
  h.db.sql
    .query<{ event_data: any; user_id: string }>(
      `SELECT event_data, user_id FROM outbox_events WHERE event_type = $1 AND tenant_id = $2 ORDER BY id`,
      [type, tenantId],
    )
    .then((r) => r.rows);

beforeAll(async () => {
  h = await startServices([defineEventsService()], { REQUIRE_AUTH: 'true' });
  url = h.services.events!.url;
  const user = (username: string, tenantId: string, roles = ['user']) =>
    tokens.issue({ username, tenantId, roles, scopes: ['read', 'write', 'admin'] });
  alice = await user('alice', 'pg-a');
  aliceAdmin = await user('ada', 'pg-a', ['admin']);
  bob = await user('bob', 'pg-b');
  operator = await tokens.issue({ username: 'op', tenantId: 'platform', roles: ['platform-admin'], scopes: ['admin'] });
  for (const t of [alice, bob])
    expect((await call(t, 'POST', '/topics', { name: TOPIC, schema: {} })).status).toBe(201);
  consumer = await consume(h.db, {
    subscription: GROUP,
    topic: TOPIC,
    maxDeliveries: 2,
    backoffMs: 10,
    pollMs: 50,
    bus: h.bus,
    logger: createLogger('ERROR', 'test'),
    handler: (event) => {
      if (failing) throw new Error(`cannot handle ${event.id} yet`);
      handled.push(`${event.tenantId}/${event.id}`);
    },
  });
  expect((await call(alice, 'POST', '/publish', { topic: TOPIC, data: { n: 1 }, id: 'a-1' })).status).toBe(201);
  expect((await call(bob, 'POST', '/publish', { topic: TOPIC, data: { n: 2 }, id: 'b-1' })).status).toBe(201);
  await until(async () => {
    const r = await call(operator, 'GET', `/platform-groups/${GROUP}`);
    return r.body?.dead === 2;
  }, 'both events dead-lettered');
});

afterAll(async () => {
  await consumer?.stop();
  await h?.close();
});

describe('platform groups (operators)', () => {
  it('403 for a tenant, even its admin, on every door; 401 without a token', async () => {
    for (const token of [alice, aliceAdmin]) {
      expect((await call(token, 'GET', '/platform-groups')).status).toBe(403);
      expect((await call(token, 'GET', `/platform-groups/${GROUP}`)).status).toBe(403);
      expect((await call(token, 'GET', `/platform-groups/${GROUP}/dlq`)).status).toBe(403);
      expect((await call(token, 'POST', `/platform-groups/${GROUP}/dlq/redrive`, {})).status).toBe(403);
    }
    expect((await fetch(`${url}/platform-groups`)).status).toBe(401);
    const g = await gql(alice, '{ platformGroups { name } }');
    expect(g.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('lists the groups with their messages by state; 404 for an unknown group', async () => {
    const r = await call(operator, 'GET', '/platform-groups');
    expect(r.status).toBe(200);
    expect(r.body.groups.find((g: any) => g.name === GROUP)).toMatchObject({
      topic: TOPIC,
      max_deliveries: 2,
      backoff_ms: 10,
      ready: 0,
      leased: 0,
      dead: 2,
    });
    expect((await call(operator, 'GET', '/platform-groups/no.such.group')).status).toBe(404);
    expect((await call(operator, 'GET', '/platform-groups/no.such.group/dlq')).status).toBe(404);
    expect((await call(operator, 'POST', '/platform-groups/no.such.group/dlq/redrive', {})).status).toBe(404);
  });

  it("shows every tenant's dead letters, recording the operator's access in each tenant shown", async () => {
    const r = await call(operator, 'GET', `/platform-groups/${GROUP}/dlq`);
    expect(r.status).toBe(200);
    const byTenant = Object.fromEntries(r.body.dead_letters.map((d: any) => [d.tenant_id, d]));
    expect(byTenant['pg-a']).toMatchObject({ attempts: 2, event: { id: 'a-1', data: { n: 1 } } });
    expect(byTenant['pg-a'].last_error).toContain('cannot handle a-1');
    expect(byTenant['pg-b']).toMatchObject({ event: { id: 'b-1' } });
    for (const tenant of ['pg-a', 'pg-b']) {
      const access = await outbox('platform_operator_access', tenant);
      expect(access.map((a) => a.event_data.action)).toContain('platform-groups.dlq.read');
    }
    expect((await call(operator, 'GET', `/platform-groups/${GROUP}/dlq?limit=0`)).status).toBe(422);
    const g = await gql(operator, `{ platformGroup(name: "${GROUP}") { dead deadLetters { position event { id } } } }`);
    expect(g.errors).toBeUndefined();
    expect(g.data.platformGroup.dead).toBe(2);
    expect(g.data.platformGroup.deadLetters.map((d: any) => d.event.id).sort()).toEqual(['a-1', 'b-1']);
  });

  it("redrives one tenant's dead letters, then the rest, audited in each tenant's ledger; the consumer then handles them", async () => {
    failing = false;
    const one = await call(operator, 'POST', `/platform-groups/${GROUP}/dlq/redrive`, { tenant_id: 'pg-a' });
    expect(one).toMatchObject({ status: 200, body: { group: GROUP, count: 1, tenants: [{ tenant_id: 'pg-a' }] } });
    consumer.wake();
    await until(() => handled.includes('pg-a/a-1'), "pg-a's event handled after the redrive");
    expect(handled).not.toContain('pg-b/b-1');
    const audit = await outbox('events.dlq_redriven', 'pg-a');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      user_id: 'op',
      event_data: { subscription: `platform:${GROUP}`, count: 1, operator: 'op', operator_tenant: 'platform' },
    });
    expect(await outbox('events.dlq_redriven', 'pg-b')).toEqual([]);

    const rest = await gql(operator, `mutation { redrivePlatformGroup(name: "${GROUP}") { tenantId positions } }`);
    expect(rest.errors).toBeUndefined();
    expect(rest.data.redrivePlatformGroup.map((m: any) => m.tenantId)).toEqual(['pg-b']);
    consumer.wake();
    await until(() => handled.includes('pg-b/b-1'), "pg-b's event handled after the redrive");
    expect(await outbox('events.dlq_redriven', 'pg-b')).toHaveLength(1);
    const after = await call(operator, 'GET', `/platform-groups/${GROUP}`);
    expect(after.body).toMatchObject({ ready: 0, leased: 0, dead: 0 });
  });
});
