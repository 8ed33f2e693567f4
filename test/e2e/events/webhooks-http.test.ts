// Webhooks through the events service's doors, end to end over real HTTP: an endpoint registered by
// REST, an event published by REST, delivered to a real node:http receiver on 127.0.0.1 (allowed by
// EVENTS_WEBHOOK_ALLOWED_ADDRESSES), its `v1` signature verified with the `standardwebhooks`
// package and its `v1a` one with the JWK Set fetched from the service's routes. Also: 410 disables
// the endpoint, a hanging receiver does not hold up another endpoint, secret rotation overlaps,
// redelivery, the SSRF guard's 422 where 127.0.0.1 is not allowed, another tenant sees nothing
// (404 for its endpoint ids), and the GraphQL fields.
import { createPublicKey, verify } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { AccessTokens } from '../../../platform/auth/jwt';
import { defineEventsService, eventsService } from '../../../services/events';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { deadUrl, fixtureSupergraphFile, startGateway } from '../../integration/gateway/gateway.support';
import { startReceiver, type Received, type Receiver } from '../../integration/events/webhooks.receiver';

jest.setTimeout(90_000);

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
let db: TestDatabase;
let h: Harness;
let url: string;
let receiver: Receiver;
/** Requests the receiver holds open (the hanging endpoint), answered when the test ends. */
const held: ServerResponse[] = [];
/** While true, requests to /hang are held open instead of answered. */
let hanging = true;
let tenantCount = 0;

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
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
}

async function gql(token: string, query: string, variables: Record<string, unknown> = {}) {
  const r = await call(token, 'POST', '/graphql', { query, variables });
  return r.body as { data?: any; errors?: any[] };
}

/** A fresh tenant with the `orders.created` topic: tests never see each other's endpoints or events. */
async function tenant(scopes = ['read', 'write']): Promise<{ id: string; token: string }> {
  const id = `wh-${++tenantCount}`;
  const token = await tokens.issue({ username: `user-${id}`, tenantId: id, roles: ['user'], scopes });
  const topic = await call(token, 'POST', '/topics', { name: 'orders.created', schema: { type: 'object' } });
  expect(topic.status).toBe(201);
  return { id, token };
}

async function publish(token: string, data: unknown = { amount: 1 }): Promise<string> {
  const r = await call(token, 'POST', '/publish', { topic: 'orders.created', data });
  expect(r.status).toBe(201);
  return r.body.event.id as string;
}

const at = (path: string) => receiver.received.filter((r) => r.path === path);

function headersOf(r: Received) {
  return {
    'webhook-id': r.headers['webhook-id']!,
    'webhook-timestamp': r.headers['webhook-timestamp']!,
    'webhook-signature': r.headers['webhook-signature']!,
  };
}

/** Does one of the request's v1a signatures verify under one of the JWKS's keys? */
function v1aVerifies(r: Received, jwks: { keys: Record<string, unknown>[] }): boolean {
  const h = headersOf(r);
  const content = Buffer.from(`${h['webhook-id']}.${h['webhook-timestamp']}.${r.body}`);
  const signatures = h['webhook-signature']
    .split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .map((s) => Buffer.from(s.slice(4), 'base64'));
  return jwks.keys.some((jwk) => {
    const key = createPublicKey({ key: jwk as never, format: 'jwk' });
    return signatures.some((sig) => verify(null, content, key, sig));
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver();
  receiver.answer = (req, res) => {
    if (req.path === '/gone') res.writeHead(410).end('gone');
    else if (req.path === '/hang' && hanging) held.push(res);
    else res.writeHead(204).end();
  };
  // Backoff in milliseconds, no jitter: a retry is due at once rather than in minutes.
  const events = defineEventsService({ webhooks: { backoffMs: [50, 100], jitter: 0, pollMs: 20 } });
  h = await startServices([events], { REQUIRE_AUTH: 'true', EVENTS_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1' }, { db });
  url = h.services.events!.url;
});
afterAll(async () => {
  for (const res of held) if (!res.writableEnded) res.writeHead(204).end();
  await h?.close();
  await receiver?.close();
  await db?.drop();
});

describe('delivery', () => {
  it('delivers a REST-published event, signed: v1 verifies with the secret, v1a with the published JWKS', async () => {
    const a = await tenant();
    const created = await call(a.token, 'POST', '/webhooks', {
      url: receiver.url('/signed'),
      description: 'orders',
      topics: ['orders.*'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: receiver.url('/signed'),
      description: 'orders',
      topics: ['orders.*'],
      enabled: true,
      disabled_reason: null,
    });
    expect(created.body.secret).toMatch(/^whsec_/);

    const eventId = await publish(a.token, { amount: 42 });
    await until(() => at('/signed').length === 1, 'the delivery');
    const got = at('/signed')[0]!;
    expect(got.headers['webhook-id']).toBe(eventId);
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(got.body)).toMatchObject({
      specversion: '1.0',
      id: eventId,
      type: 'orders.created',
      tenantid: a.id,
      topic: 'orders.created',
      data: { amount: 42 },
    });

    // v1: the standardwebhooks package, as a receiver would use it (it throws when nothing verifies).
    expect(new Webhook(created.body.secret).verify(got.body, headersOf(got))).toMatchObject({ id: eventId });

    // v1a: the tenant's JWK Set from the authenticated route and from the public one agree.
    const jwks = await call(a.token, 'GET', '/webhooks/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    const pub = await fetch(`${url}/.well-known/webhooks/${a.id}/jwks.json`);
    expect(pub.status).toBe(200);
    expect(await pub.json()).toEqual(jwks.body);
    expect(v1aVerifies(got, jwks.body)).toBe(true);
    // Another tenant's keys do not verify it.
    const other = await tenant();
    expect(v1aVerifies(got, (await call(other.token, 'GET', '/webhooks/jwks.json')).body)).toBe(false);

    // The delivery log and the message.
    const id = created.body.id as string;
    await until(
      async () => (await call(a.token, 'GET', `/webhooks/${id}/attempts`)).body.attempts.length === 1,
      'the attempt in the log',
    );
    const attempts = await call(a.token, 'GET', `/webhooks/${id}/attempts`);
    expect(attempts.body.attempts[0]).toMatchObject({
      event_id: eventId,
      attempt: 1,
      outcome: 'success',
      status_code: 204,
    });
    await until(
      async () => (await call(a.token, 'GET', `/webhooks/${id}/messages`)).body.messages[0]?.status === 'delivered',
      'the message delivered',
    );
    const messages = await call(a.token, 'GET', `/webhooks/${id}/messages`);
    expect(messages.body.messages).toEqual([
      expect.objectContaining({ event_id: eventId, event_type: 'orders.created', status: 'delivered', attempts: 1 }),
    ]);
  });

  it('sends only what the topic filter asks for', async () => {
    const a = await tenant();
    await call(a.token, 'POST', '/topics', { name: 'invoices.paid', schema: {} });
    expect(
      (await call(a.token, 'POST', '/webhooks', { url: receiver.url('/filtered'), topics: ['invoices.paid'] })).status,
    ).toBe(201);
    await publish(a.token);
    const paid = await call(a.token, 'POST', '/publish', { topic: 'invoices.paid', data: { n: 1 } });
    await until(() => at('/filtered').length >= 1, 'the invoice');
    expect(at('/filtered').map((r) => r.headers['webhook-id'])).toEqual([paid.body.event.id]);
  });

  it('redelivers an event on request, with the same webhook-id', async () => {
    const a = await tenant();
    const ep = (await call(a.token, 'POST', '/webhooks', { url: receiver.url('/again') })).body;
    const eventId = await publish(a.token);
    await until(() => at('/again').length === 1, 'the first delivery');
    await until(
      async () => (await call(a.token, 'GET', `/webhooks/${ep.id}/messages`)).body.messages[0]?.status === 'delivered',
      'the delivery recorded',
    );
    const r = await call(a.token, 'POST', `/webhooks/${ep.id}/messages/${eventId}/redeliver`);
    expect(r).toEqual({ status: 202, body: { queued: true } });
    await until(() => at('/again').length === 2, 'the redelivery');
    expect(at('/again')[1]!.headers['webhook-id']).toBe(eventId);
    expect((await call(a.token, 'POST', `/webhooks/${ep.id}/messages/no-such-event/redeliver`)).status).toBe(404);
  });

  it('a 410 answer disables the endpoint; enabling it again clears the reason', async () => {
    const a = await tenant();
    const ep = (await call(a.token, 'POST', '/webhooks', { url: receiver.url('/gone') })).body;
    await publish(a.token);
    await until(
      async () => (await call(a.token, 'GET', `/webhooks/${ep.id}`)).body.enabled === false,
      'the endpoint disabled',
    );
    const disabled = await call(a.token, 'GET', `/webhooks/${ep.id}`);
    expect(disabled.body.disabled_reason).toMatch(/410/);
    expect(disabled.body.disabled_at).not.toBeNull();
    const attempts = await call(a.token, 'GET', `/webhooks/${ep.id}/attempts`);
    expect(attempts.body.attempts).toEqual([expect.objectContaining({ status_code: 410, attempt: 1 })]);
    // An event published while it is disabled is not queued for it, so enabling it sends nothing old.
    await publish(a.token);
    expect((await call(a.token, 'GET', `/webhooks/${ep.id}/messages`)).body.messages).toHaveLength(1);
    const enabled = await call(a.token, 'PATCH', `/webhooks/${ep.id}`, { enabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null });
    expect(at('/gone')).toHaveLength(1);
  });

  it('a receiver that hangs holds its own delivery slot, not the other endpoint', async () => {
    const a = await tenant();
    const hang = await call(a.token, 'POST', '/webhooks', {
      url: receiver.url('/hang'),
      timeout_ms: 60_000,
      max_concurrency: 1,
    });
    expect(hang.status).toBe(201);
    expect((await call(a.token, 'POST', '/webhooks', { url: receiver.url('/fast') })).status).toBe(201);
    const ids = [await publish(a.token), await publish(a.token), await publish(a.token)];
    await until(() => at('/fast').length === 3, 'every event at the fast endpoint');
    expect(
      at('/fast')
        .map((r) => r.headers['webhook-id'])
        .sort(),
    ).toEqual([...ids].sort());
    // The hanging endpoint got its first event and holds it: its concurrency of 1 keeps the rest queued.
    await until(() => receiver.open('/hang') === 1, 'the hanging request');
    expect(at('/hang')).toHaveLength(1);
    expect(receiver.maxOpen('/hang')).toBe(1);
    hanging = false;
    for (const res of held.splice(0)) res.writeHead(204).end();
    await until(() => at('/hang').length === 3, 'the rest once it answers');
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the overlap, then with the new one only', async () => {
    const a = await tenant();
    const ep = (await call(a.token, 'POST', '/webhooks', { url: receiver.url('/rotate') })).body;
    const old = ep.secret as string;
    const rotated = await call(a.token, 'POST', `/webhooks/${ep.id}/rotate-secret`, { overlap_seconds: 3600 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(old);
    expect(Date.parse(rotated.body.previous_valid_until)).toBeGreaterThan(Date.now());
    expect((await call(a.token, 'GET', `/webhooks/${ep.id}/secret`)).body).toEqual({ secret: fresh });

    await publish(a.token);
    await until(() => at('/rotate').length === 1, 'the delivery during the overlap');
    const during = at('/rotate')[0]!;
    expect(during.headers['webhook-signature']!.split(' ').filter((s) => s.startsWith('v1,'))).toHaveLength(2);
    expect(() => new Webhook(old).verify(during.body, headersOf(during))).not.toThrow();
    expect(() => new Webhook(fresh).verify(during.body, headersOf(during))).not.toThrow();

    const newest = (await call(a.token, 'POST', `/webhooks/${ep.id}/rotate-secret`, { overlap_seconds: 0 })).body
      .secret as string;
    await publish(a.token);
    await until(() => at('/rotate').length === 2, 'the delivery after the overlap');
    const after = at('/rotate')[1]!;
    expect(() => new Webhook(newest).verify(after.body, headersOf(after))).not.toThrow();
    expect(() => new Webhook(fresh).verify(after.body, headersOf(after))).toThrow();
    expect(() => new Webhook(old).verify(after.body, headersOf(after))).toThrow();
  });

  it('rotates the signing key: both keys are published and sign during the overlap', async () => {
    const a = await tenant();
    await call(a.token, 'POST', '/webhooks', { url: receiver.url('/keys') });
    const before = (await call(a.token, 'GET', '/webhooks/jwks.json')).body;
    const after = await call(a.token, 'POST', '/webhooks/signing-keys/rotate', { overlap_seconds: 3600 });
    expect(after.status).toBe(200);
    expect(after.body.keys).toHaveLength(2);
    expect(after.body.keys.map((k: any) => k.kid)).toContain(before.keys[0].kid);
    await publish(a.token);
    await until(() => at('/keys').length === 1, 'the delivery');
    const got = at('/keys')[0]!;
    expect(v1aVerifies(got, before)).toBe(true);
    expect(v1aVerifies(got, { keys: after.body.keys.filter((k: any) => k.kid !== before.keys[0].kid) })).toBe(true);
  });
});

describe('input and the SSRF guard', () => {
  it('refuses bad fields with FastAPI 422s naming them', async () => {
    const a = await tenant();
    const r = await call(a.token, 'POST', '/webhooks', { url: receiver.url('/x'), timeout_ms: 5 });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'timeout_ms']);
    const bad = await call(a.token, 'POST', '/webhooks', { url: 'ftp://example.com/x' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'url']);
    const ep = (await call(a.token, 'POST', '/webhooks', { url: receiver.url('/x') })).body;
    const overlap = await call(a.token, 'POST', `/webhooks/${ep.id}/rotate-secret`, { overlap_seconds: -1 });
    expect(overlap.status).toBe(422);
    expect(overlap.body.detail[0].loc).toEqual(['body', 'overlap_seconds']);
    expect((await call(a.token, 'GET', '/webhooks/not-a-uuid')).status).toBe(404);
  });

  it('refuses private and metadata addresses even where 127.0.0.1 is allowed', async () => {
    const a = await tenant();
    for (const target of ['http://10.0.0.1/hook', 'http://169.254.169.254/latest/meta-data']) {
      const r = await call(a.token, 'POST', '/webhooks', { url: target });
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc: ['body', 'url'], msg: expect.stringMatching(/^refused: /) });
    }
  });

  it('refuses http://127.0.0.1 (422) where the operator has not allowed it', async () => {
    // Its own database: its worker, without the allowance, must not pick up the other tests' deliveries.
    const strict = await startServices([eventsService], { REQUIRE_AUTH: 'true' });
    try {
      const token = await tokens.issue({ username: 's', tenantId: 'wh-strict', roles: ['user'], scopes: ['write'] });
      const r = await call(token, 'POST', '/webhooks', { url: receiver.url('/hook') }, strict.services.events!.url);
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc: ['body', 'url'], msg: expect.stringMatching(/^refused: /) });
    } finally {
      await strict.close();
    }
  });
});

describe('tenancy and scopes', () => {
  it("another tenant cannot list, read, change or use an endpoint (404), nor receive the tenant's events", async () => {
    const a = await tenant();
    const b = await tenant();
    const ep = (await call(a.token, 'POST', '/webhooks', { url: receiver.url('/mine') })).body;
    const bEp = (await call(b.token, 'POST', '/webhooks', { url: receiver.url('/theirs') })).body;
    expect((await call(b.token, 'GET', '/webhooks')).body.endpoints.map((e: any) => e.id)).toEqual([bEp.id]);
    const tries: [string, string, unknown?][] = [
      ['GET', `/webhooks/${ep.id}`],
      ['PATCH', `/webhooks/${ep.id}`, { enabled: false }],
      ['GET', `/webhooks/${ep.id}/secret`],
      ['POST', `/webhooks/${ep.id}/rotate-secret`, {}],
      ['GET', `/webhooks/${ep.id}/attempts`],
      ['GET', `/webhooks/${ep.id}/messages`],
      ['POST', `/webhooks/${ep.id}/messages/any/redeliver`],
      ['DELETE', `/webhooks/${ep.id}`],
    ];
    for (const [method, path, body] of tries) {
      const r = await call(b.token, method, path, body);
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
    // A user of B naming A's tenant is refused outright.
    expect((await call(b.token, 'GET', `/webhooks?tenant_id=${a.id}`)).status).toBe(403);
    // A's endpoint is intact and B's events reach only B's endpoint.
    expect((await call(a.token, 'GET', `/webhooks/${ep.id}`)).body.enabled).toBe(true);
    await publish(b.token);
    await until(() => at('/theirs').length === 1, "B's delivery");
    expect(at('/mine')).toHaveLength(0);
    // Deleting is the owner's.
    expect(await call(a.token, 'DELETE', `/webhooks/${ep.id}`)).toEqual({ status: 200, body: { deleted: true } });
    expect((await call(a.token, 'GET', `/webhooks/${ep.id}`)).status).toBe(404);
  });

  it('a read-only token lists endpoints but reads no secret and changes nothing (403)', async () => {
    const a = await tenant();
    const ep = (await call(a.token, 'POST', '/webhooks', { url: receiver.url('/ro') })).body;
    const reader = await tokens.issue({ username: 'r', tenantId: a.id, roles: ['user'], scopes: ['read'] });
    expect((await call(reader, 'GET', '/webhooks')).body.endpoints).toHaveLength(1);
    expect((await call(reader, 'GET', `/webhooks/${ep.id}/secret`)).status).toBe(403);
    expect((await call(reader, 'POST', '/webhooks', { url: receiver.url('/ro2') })).status).toBe(403);
    expect((await call(reader, 'PATCH', `/webhooks/${ep.id}`, { enabled: false })).status).toBe(403);
  });

  it('the public JWKS route needs no token and makes no key for an unknown tenant', async () => {
    expect((await fetch(`${url}/.well-known/webhooks/nobody-here/jwks.json`)).status).toBe(404);
    expect((await fetch(`${url}/.well-known/webhooks/nobody-here/jwks.json`)).status).toBe(404);
    expect((await fetch(`${url}/webhooks/jwks.json`)).status).toBe(401);
  });
});

describe('through the gateway', () => {
  it('reaches every method of the webhook routes under /api/events (PATCH included)', async () => {
    const nowhere = await deadUrl();
    const gw = await startGateway({
      EVENTS_URL: url,
      SUPERGRAPH_PATH: fixtureSupergraphFile(`${nowhere}/graphql`),
      RATE_LIMIT_PER_SECOND: '1000',
      RATE_LIMIT_BURST: '1000',
    });
    try {
      const a = await tenant();
      const created = await call(a.token, 'POST', '/api/events/webhooks', { url: receiver.url('/gw') }, gw.url);
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const patched = await call(a.token, 'PATCH', `/api/events/webhooks/${id}`, { description: 'via gw' }, gw.url);
      expect([patched.status, patched.body.description]).toEqual([200, 'via gw']);
      const jwks = await call(a.token, 'GET', '/api/events/webhooks/jwks.json', undefined, gw.url);
      expect(jwks.body.keys).toHaveLength(1);
      expect((await call(a.token, 'DELETE', `/api/events/webhooks/${id}`, undefined, gw.url)).status).toBe(200);
      expect((await call(a.token, 'GET', `/api/events/webhooks/${id}`, undefined, gw.url)).status).toBe(404);
    } finally {
      await gw.close();
    }
  });
});

describe('GraphQL', () => {
  it('creates and lists endpoints with their delivery log; another tenant sees none of them', async () => {
    const a = await tenant();
    const b = await tenant();
    const created = await gql(
      a.token,
      `mutation($i: CreateWebhookEndpointInput!) {
        createWebhookEndpoint(input: $i) { secret endpoint { id url topics enabled timeoutMs maxConcurrency createdAt } }
      }`,
      { i: { url: receiver.url('/gql'), topics: ['orders.created'], timeoutMs: 5000, maxConcurrency: 2 } },
    );
    expect(created.errors).toBeUndefined();
    const ep = created.data.createWebhookEndpoint;
    expect(ep.secret).toMatch(/^whsec_/);
    expect(ep.endpoint).toMatchObject({
      url: receiver.url('/gql'),
      topics: ['orders.created'],
      enabled: true,
      timeoutMs: 5000,
      maxConcurrency: 2,
    });
    expect(Number.isNaN(Date.parse(ep.endpoint.createdAt))).toBe(false);

    const eventId = await publish(a.token);
    await until(() => at('/gql').length === 1, 'the delivery');
    const log = `query($id: ID!) { webhookEndpoint(id: $id) { id attempts { eventId attempt outcome statusCode }
      messages { eventId status } } }`;
    await until(
      async () =>
        (await gql(a.token, log, { id: ep.endpoint.id })).data.webhookEndpoint.messages[0]?.status === 'delivered',
      'the delivery in the log',
    );
    const one = await gql(a.token, log, { id: ep.endpoint.id });
    expect(one.data.webhookEndpoint.attempts).toEqual([{ eventId, attempt: 1, outcome: 'success', statusCode: 204 }]);

    const list = await gql(a.token, `{ webhookEndpoints { id url } }`);
    expect(list.data.webhookEndpoints).toEqual([{ id: ep.endpoint.id, url: receiver.url('/gql') }]);
    expect((await gql(b.token, `{ webhookEndpoints { id } }`)).data.webhookEndpoints).toEqual([]);
    expect((await gql(b.token, log, { id: ep.endpoint.id })).data.webhookEndpoint).toBeNull();

    const refused = await gql(
      a.token,
      `mutation { createWebhookEndpoint(input: { url: "http://10.1.2.3/x" }) { secret } }`,
    );
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'url' });

    const updated = await gql(
      a.token,
      `mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { description: "renamed", enabled: false }) { description enabled } }`,
      { id: ep.endpoint.id },
    );
    expect(updated.data.updateWebhookEndpoint).toEqual({ description: 'renamed', enabled: false });
    const rotated = await gql(
      a.token,
      `mutation($id: ID!) { rotateWebhookSecret(id: $id, overlapSeconds: 60) { secret previousValidUntil } }`,
      { id: ep.endpoint.id },
    );
    expect(rotated.data.rotateWebhookSecret.secret).toMatch(/^whsec_/);
    const foreign = await gql(b.token, `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`, { id: ep.endpoint.id });
    expect(foreign.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const deleted = await gql(a.token, `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`, { id: ep.endpoint.id });
    expect(deleted.data.deleteWebhookEndpoint).toBe(true);
  });
});
