// The federated router end to end: real identity and ledger subgraphs, HTTP and graphql-ws
// clients, through the gateway on its ephemeral port.
import { createHash } from 'node:crypto';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { AccessTokens } from '../../../platform/auth/jwt';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { repeatUntil } from '../../support/waiting';
import { DEV, gql, startPlatform, tenantToken, type Platform } from './platform.support';

jest.setTimeout(90_000);

/** A promise and whether it has settled yet (for a condition to wait on). */
function settled<T>(promise: Promise<T>): { promise: Promise<T>; readonly done: boolean } {
  const state = { promise, done: false };
  promise.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
}

describe('router through the gateway', () => {
  let p: Platform;
  let admin: string;
  let user: string;

  beforeAll(async () => {
    p = await startPlatform();
    admin = await p.login(DEV.admin.username, DEV.admin.password);
    user = await p.login(DEV.user.username, DEV.user.password);
  });
  afterAll(async () => p?.close());

  const healthy = async () => expect((await fetch(`${p.gateway}/health`)).status).toBe(200);

  it('serves `me` with a bearer token', async () => {
    const { status, headers, body } = await gql(p.gateway, 'query { me { username tenantId roles scopes } }', {
      token: user,
    });
    expect(status).toBe(200);
    // Identity's root field is not cacheable, so neither is the answer (router/graphql/cache-control.ts).
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body.errors).toBeUndefined();
    expect(body.data.me).toEqual({ username: 'user', tenantId: 'default', roles: ['user'], scopes: ['read'] });
  });

  it('logs in anonymously through the router and uses the token it gets', async () => {
    const { body } = await gql(
      p.gateway,
      'mutation($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken tokenType } }',
      { variables: { u: DEV.user.username, p: DEV.user.password } },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.login.tokenType).toBe('bearer');
    const me = await gql(p.gateway, '{ me { username } }', { token: body.data.login.accessToken });
    expect(me.body.data.me.username).toBe('user');
  });

  it('refuses `me` without a token with UNAUTHENTICATED', async () => {
    const { body } = await gql(p.gateway, 'query { me { username } }');
    expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(body.data?.me ?? null).toBeNull();
  });

  it.each([
    ['a malformed token', async () => 'garbage'],
    [
      'an expired token',
      async () =>
        new AccessTokens(TEST_JWT_SECRET, 60).issue(
          { username: 'user', tenantId: 'default', roles: ['user'], scopes: ['read'] },
          Date.now() - 3_600_000,
        ),
    ],
    [
      'a token signed with another key',
      async () =>
        new AccessTokens('x'.repeat(48), 60).issue({
          username: 'admin',
          tenantId: 'default',
          roles: ['admin'],
          scopes: ['admin'],
        }),
    ],
  ])('refuses %s with 401 UNAUTHENTICATED', async (_label, make) => {
    const { status, body } = await gql(p.gateway, '{ me { username } }', { token: await make() });
    expect(status).toBe(401);
    expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('enforces @requiresScopes at the router', async () => {
    const { status, body } = await gql(p.gateway, '{ tenants { id } }', { token: user });
    expect(status).toBe(403);
    expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const ok = await gql(p.gateway, '{ tenants { id } }', { token: admin });
    expect(ok.body.data.tenants).toEqual(expect.arrayContaining([{ id: 'default' }]));
  });

  it('refuses a client X-Tenant-ID naming another tenant', async () => {
    const { status, body } = await gql(p.gateway, '{ me { username } }', {
      token: user,
      headers: { 'x-tenant-id': 'tenant-b' },
    });
    expect(status).toBe(403);
    expect(body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('resolves a query spanning ledger and identity (entities)', async () => {
    const append = await fetch(`${p.gateway}/api/v1/ledger/append`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: 'default', event_type: 'e2e_span', event_data: { n: 1 }, user_id: 'user' }),
    });
    expect(append.status).toBe(200);
    const { body } = await gql(
      p.gateway,
      '{ ledgerEvents(filter: { eventType: "e2e_span" }) { nodes { eventType user { username isActive roles } } } }',
      { token: admin },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.ledgerEvents.nodes).toEqual([
      { eventType: 'e2e_span', user: { username: 'user', isActive: true, roles: ['user'] } },
    ]);
  });

  it("keeps tenant B out of tenant A's ledger, over REST and GraphQL", async () => {
    await fetch(`${p.gateway}/api/v1/ledger/append`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: 'default', event_type: 'tenant_a_secret', event_data: { secret: true } }),
    });
    const b = await tenantToken('tenant-b');
    const own = await fetch(`${p.gateway}/api/v1/ledger/events`, { headers: { authorization: `Bearer ${b}` } });
    expect(own.status).toBe(200);
    const ownBody = (await own.json()) as { events: { tenant_id: string }[] };
    expect(ownBody.events.every((e) => e.tenant_id === 'tenant-b')).toBe(true);
    expect(
      (
        await fetch(`${p.gateway}/api/v1/ledger/events?tenant_id=default`, {
          headers: { authorization: `Bearer ${b}` },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await fetch(`${p.gateway}/api/v1/ledger/events`, {
          headers: { authorization: `Bearer ${b}`, 'x-tenant-id': 'default' },
        })
      ).status,
    ).toBe(403);

    const mine = await gql(p.gateway, '{ ledgerEvents { nodes { tenantId eventType } } }', { token: b });
    expect(mine.body.errors).toBeUndefined();
    expect(mine.body.data.ledgerEvents.nodes.every((e: { tenantId: string }) => e.tenantId === 'tenant-b')).toBe(true);
    const theirs = await gql(p.gateway, '{ ledgerEvents(filter: { tenantId: "default" }) { nodes { eventType } } }', {
      token: b,
    });
    expect(theirs.body.data?.ledgerEvents ?? null).toBeNull();
    expect(theirs.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('answers malformed GraphQL with GRAPHQL_PARSE_FAILED and stays healthy', async () => {
    const { status, headers, body } = await gql(p.gateway, '{ me { username ', { token: user });
    expect(status).toBe(400);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    await healthy();
  });

  it('refuses a too-deep query with QUERY_TOO_DEEP', async () => {
    let selection = 'eventType';
    for (let i = 0; i < 7; i++) selection = `nodes { user { auditTrail { ${selection} } } }`;
    const { status, body } = await gql(
      p.gateway,
      `{ ledgerEvents { ${selection.replace(/^nodes \{ /, 'nodes { ').replace(/eventType/, 'nodes { eventType }')} } }`,
      { token: admin },
    );
    expect(status).toBe(400);
    expect(body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_DEEP');
    await healthy();
  });

  it('supports automatic persisted queries', async () => {
    const query = '{ me { username } }';
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    const unknown = await fetch(`${p.gateway}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user}` },
      body: JSON.stringify({ extensions }),
    });
    expect(((await unknown.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'PERSISTED_QUERY_NOT_FOUND',
    );
    const registered = await gql(p.gateway, query, { token: user, extensions });
    expect(registered.body.data.me.username).toBe('user');
    const byHash = await fetch(`${p.gateway}/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, {
      headers: { authorization: `Bearer ${user}`, 'apollo-require-preflight': 'true' },
    });
    expect(((await byHash.json()) as { data: { me: { username: string } } }).data.me.username).toBe('user');
    // A plain GET without a preflight-forcing header is refused by CSRF prevention (docs/router.md).
    const plain = await fetch(`${p.gateway}/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, {
      headers: { authorization: `Bearer ${user}` },
    });
    expect(plain.status).toBe(400);
    expect(await plain.text()).toMatch(/CSRF|preflight/i);
    const wrongHash = await gql(p.gateway, '{ me { tenantId } }', { token: user, extensions });
    expect(wrongHash.status).toBe(400);
    expect(wrongHash.body.errors?.[0]?.message).toBe('provided sha does not match query');
  });

  it('carries a subscription to the ledger and resolves identity fields per event', async () => {
    const client = createClient({
      url: `${p.gateway.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${admin}` },
      retryAttempts: 0,
    });
    try {
      const events = client.iterate({
        query:
          'subscription { ledgerEventAppended(eventType: "sub_e2e") { eventType eventData user { username isActive roles } } }',
      });
      const first = settled(events.next());
      // The subscription is live (router to ledger) once an event arrives: append until one does.
      await repeatUntil(
        async () => {
          const append = await fetch(`${p.gateway}/api/v1/ledger/append`, {
            method: 'POST',
            headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              tenant_id: 'default',
              event_type: 'sub_e2e',
              event_data: { n: 42 },
              user_id: 'user',
            }),
          });
          expect(append.status).toBe(200);
        },
        () => first.done,
        'the first subscription event',
      );
      const { value } = await first.promise;
      expect(value.errors).toBeUndefined();
      expect(value.data).toEqual({
        ledgerEventAppended: {
          eventType: 'sub_e2e',
          eventData: { n: 42 },
          user: { username: 'user', isActive: true, roles: ['user'] },
        },
      });
      await events.return?.(undefined);
    } finally {
      await client.dispose();
    }
  });

  it('delivers a tenant only its own events over a subscription', async () => {
    const b = await tenantToken('tenant-sub-b');
    const client = createClient({
      url: `${p.gateway.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${b}` },
      retryAttempts: 0,
    });
    try {
      const events = client.iterate({
        query: 'subscription { ledgerEventAppended(eventType: "iso") { tenantId eventData } }',
      });
      const append = (token: string, tenant: string, n: number) =>
        fetch(`${p.gateway}/api/v1/ledger/append`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ tenant_id: tenant, event_type: 'iso', event_data: { n } }),
        });
      // Appends of both tenants, the other tenant's first, until the subscription delivers one.
      const first = settled(events.next());
      await repeatUntil(
        async () => {
          expect((await append(admin, 'default', 1)).status).toBe(200);
          expect((await append(b, 'tenant-sub-b', 2)).status).toBe(200);
        },
        () => first.done,
        'the first subscription event',
      );
      expect((await first.promise).value.data).toEqual({
        ledgerEventAppended: { tenantId: 'tenant-sub-b', eventData: { n: 2 } },
      });
      // Now certainly live: another tenant's append, then its own. Delivery follows commit order,
      // so a leak would arrive before n: 3.
      expect((await append(admin, 'default', 1)).status).toBe(200);
      expect((await append(b, 'tenant-sub-b', 3)).status).toBe(200);
      let next = await events.next();
      while (next.value?.data?.ledgerEventAppended?.eventData?.n === 2) next = await events.next(); // later probes
      expect(next.value.data).toEqual({ ledgerEventAppended: { tenantId: 'tenant-sub-b', eventData: { n: 3 } } });
      await events.return?.(undefined);
    } finally {
      await client.dispose();
    }
  });

  it('refuses a WebSocket naming another tenant in connectionParams with 4403', async () => {
    const client = createClient({
      url: `${p.gateway.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${user}`, 'x-tenant-id': 'tenant-b' },
      retryAttempts: 0,
    });
    const closed = await new Promise<{ code: number }>((resolve) => {
      client.subscribe(
        { query: 'subscription { ledgerEventAppended { eventType } }' },
        { next: () => {}, complete: () => {}, error: (e) => resolve(e as { code: number }) },
      );
    });
    expect(closed.code).toBe(4403);
    await client.dispose();
  });

  it('closes a WebSocket without valid connectionParams with 4401, and stays healthy', async () => {
    for (const connectionParams of [{}, { authorization: 'Bearer nope' }]) {
      const client = createClient({
        url: `${p.gateway.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams,
        retryAttempts: 0,
      });
      const closed = await new Promise<{ code: number; reason: string }>((resolve) => {
        client.subscribe(
          { query: 'subscription { ledgerEventAppended { eventType } }' },
          {
            next: () => {},
            complete: () => {},
            error: (err) => resolve(err as { code: number; reason: string }),
          },
        );
      });
      expect(closed.code).toBe(4401);
      expect(closed.reason).toMatch(/Unauthorized/);
      await client.dispose();
    }
    await healthy();
  });

  it('answers an invalid subscription with an error and keeps the socket usable', async () => {
    const client = createClient({
      url: `${p.gateway.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${user}` },
      retryAttempts: 0,
    });
    try {
      const errors = await new Promise<{ message: string }[]>((resolve) => {
        client.subscribe(
          { query: 'subscription { nope }' },
          { next: () => {}, complete: () => {}, error: (e) => resolve(e as { message: string }[]) },
        );
      });
      expect(errors[0]!.message).toMatch(/nope/);
      const result = await new Promise<unknown>((resolve, reject) => {
        client.subscribe({ query: '{ me { username } }' }, { next: resolve, complete: () => {}, error: reject });
      });
      expect(result).toEqual({ data: { me: { username: 'user' } } });
    } finally {
      await client.dispose();
    }
  });
});

describe('rate limit over WebSocket', () => {
  let p: Platform;
  beforeAll(async () => {
    p = await startPlatform({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
  });
  afterAll(async () => p?.close());

  it("spends the tenant's HTTP budget on operations started over the socket", async () => {
    const token = await p.login(DEV.user.username, DEV.user.password);
    const client = createClient({
      url: `${p.gateway.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    const run = () =>
      new Promise<{ data?: unknown; errors?: { extensions?: { code?: string } }[] }>((resolve) => {
        client.subscribe(
          { query: '{ me { username } }' },
          { next: (v) => resolve(v as never), complete: () => {}, error: (e) => resolve({ errors: e as never }) },
        );
      });
    try {
      const results = [await run(), await run(), await run(), await run()];
      expect(results.slice(0, 2).map((r) => r.data)).toEqual([
        { me: { username: 'user' } },
        { me: { username: 'user' } },
      ]);
      // Burst 2 at 1/s: the next ones within the second are refused (two tries, in case one refill lands).
      expect(results.slice(2).map((r) => r.errors?.[0]?.extensions?.code)).toContain('RATE_LIMITED');
      // The same bucket as HTTP: the tenant's next HTTP call is refused too.
      const http = await gql(p.gateway, '{ me { username } }', { token });
      expect(http.status).toBe(429);
    } finally {
      await client.dispose();
    }
  });
});
