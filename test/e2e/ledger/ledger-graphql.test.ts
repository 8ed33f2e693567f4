// The ledger subgraph over real HTTP and graphql-ws: queries, the mutation, federation entity
// resolution for User.auditTrail, and the tenant-scoped subscription.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { AccessTokens } from '../../../platform/auth/jwt';
import { ledgerService } from '../../../services/ledger';
import { garbageCursors } from '../../support/garbage-cursors';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { repeatUntil, until } from '../../support/waiting';

jest.setTimeout(60_000);

let h: Harness;
let url: string;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
let tokenA: string;
let tokenB: string;

beforeAll(async () => {
  // NATS_URL (when set) makes the subscription travel through JetStream instead of NOTIFY/in-process.
  h = await startServices([ledgerService], { NATS_URL: process.env.NATS_URL, LEDGER_REQUIRE_AUTH: 'false' }); // anonymous subscribers too
  url = h.services.ledger!.url;
  tokenA = await tokens.issue({ username: 'alice', tenantId: 'gql-a', roles: ['user'], scopes: ['read', 'write'] });
  tokenB = await tokens.issue({ username: 'bob', tenantId: 'gql-b', roles: ['user'], scopes: ['read', 'write'] });
});
afterAll(async () => h?.close());

async function gql(query: string, variables: Record<string, unknown> = {}, token?: string): Promise<any> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return res.json();
}

const APPEND = `mutation($input: AppendLedgerEventInput!) { appendLedgerEvent(input: $input) { id seq tenantId eventType eventData createdAt chainHash previousHash userId user { username } } }`;

describe('queries and mutation', () => {
  it('appends through the mutation and pages through ledgerEvents with cursors', async () => {
    for (let i = 1; i <= 3; i++) {
      const r = await gql(
        APPEND,
        {
          input: { tenantId: 'gql-a', eventType: 'rag_query', eventData: { i, nested: { ü: [1.5] } }, userId: 'alice' },
        },
        tokenA,
      );
      expect(r.errors).toBeUndefined();
      expect(r.data.appendLedgerEvent).toMatchObject({
        seq: i,
        tenantId: 'gql-a',
        eventData: { i, nested: { ü: [1.5] } },
        user: { username: 'alice' },
      });
    }
    const q = `query($after: String) { ledgerEvents(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { seq eventData } } }`;
    const page1 = await gql(q, {}, tokenA);
    expect(page1.data.ledgerEvents).toMatchObject({ totalCount: 3, pageInfo: { hasNextPage: true } });
    expect(page1.data.ledgerEvents.nodes.map((n: any) => n.seq)).toEqual([1, 2]);
    const page2 = await gql(q, { after: page1.data.ledgerEvents.pageInfo.endCursor }, tokenA);
    expect(page2.data.ledgerEvents.nodes.map((n: any) => n.seq)).toEqual([3]);
    expect(page2.data.ledgerEvents.pageInfo.hasNextPage).toBe(false);

    const v = await gql('{ verifyLedger { valid totalEvents error } }', {}, tokenA);
    expect(v.data.verifyLedger).toEqual({ valid: true, totalEvents: 3, error: null });
  });

  it('takes the tenant from the token when the input names none; a missing eventType is named in GraphQL terms', async () => {
    const tokenC = await tokens.issue({
      username: 'carol',
      tenantId: 'gql-c',
      roles: ['user'],
      scopes: ['read', 'write'],
    });
    const r = await gql(APPEND, { input: { eventType: 'no_tenant_named', eventData: {} } }, tokenC);
    expect(r.errors).toBeUndefined();
    expect(r.data.appendLedgerEvent).toMatchObject({ tenantId: 'gql-c', eventType: 'no_tenant_named' });
    const bad = await gql('mutation { appendLedgerEvent(input: { eventType: "", eventData: {} }) { id } }', {}, tokenC);
    expect(bad.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'eventType' });
    // Anonymous callers (trust-the-gateway mode) still need a tenant from somewhere.
    const anon = await gql(APPEND, { input: { eventType: 'x', eventData: {} } });
    expect(anon.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'tenantId' });
  });

  it('refuses another tenant with FORBIDDEN and never returns its data', async () => {
    const append = await gql(APPEND, { input: { tenantId: 'gql-a', eventType: 'x', eventData: {} } }, tokenB);
    expect(append.errors[0].extensions.code).toBe('FORBIDDEN');
    const read = await gql('{ ledgerEvents(filter: { tenantId: "gql-a" }) { nodes { id } } }', {}, tokenB);
    expect(read.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(read.data).toBeNull();
    const verify = await gql('{ verifyLedger(tenantId: "gql-a") { valid } }', {}, tokenB);
    expect(verify.errors[0].extensions.code).toBe('FORBIDDEN');
    const own = await gql('{ ledgerEvents { totalCount } }', {}, tokenB);
    expect(own.data.ledgerEvents.totalCount).toBe(0);
  });

  it('rejects bad input with BAD_USER_INPUT and a bad token with UNAUTHENTICATED', async () => {
    const bad = await gql(APPEND, { input: { tenantId: 'gql-a', eventType: 'x', eventData: [1] } }, tokenA);
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const long = await gql(APPEND, { input: { tenantId: 'gql-a', eventType: 'x'.repeat(256), eventData: {} } }, tokenA);
    expect(long.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const unauth = await gql('{ verifyLedger { valid } }', {}, 'not-a-token');
    expect(unauth.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it("resolves User entities with their audit trail (newest first), scoped to the caller's tenant", async () => {
    await gql(APPEND, { input: { tenantId: 'gql-a', eventType: 'login', eventData: {}, userId: 'carol' } }, tokenA);
    const q = `query($reps: [_Any!]!) { _entities(representations: $reps) { ... on User { username auditTrail(first: 2) { nodes { seq userId } pageInfo { hasNextPage } } } } }`;
    const r = await gql(
      q,
      {
        reps: [
          { __typename: 'User', username: 'alice' },
          { __typename: 'User', username: 'carol' },
          { __typename: 'User', username: 'nobody' },
        ],
      },
      tokenA,
    );
    expect(r.errors).toBeUndefined();
    const [alice, carol, nobody] = r.data._entities;
    expect(alice.auditTrail.nodes.map((n: any) => n.seq)).toEqual([3, 2]);
    expect(alice.auditTrail.pageInfo.hasNextPage).toBe(true);
    expect(carol.auditTrail.nodes).toEqual([{ seq: 4, userId: 'carol' }]);
    expect(nobody.auditTrail.nodes).toEqual([]);
    // Tenant B sees none of tenant A's trail for the same usernames.
    const asB = await gql(q, { reps: [{ __typename: 'User', username: 'alice' }] }, tokenB);
    expect(asB.data._entities[0].auditTrail.nodes).toEqual([]);
  });

  it('answers every garbage cursor with BAD_USER_INPUT on `after` (ledgerEvents and User.auditTrail), never an internal error', async () => {
    const events = `query($after: String) { ledgerEvents(first: 2, after: $after) { nodes { seq } } }`;
    const trail = `query($reps: [_Any!]!, $after: String) { _entities(representations: $reps) { ... on User { auditTrail(first: 2, after: $after) { nodes { seq } } } } }`;
    for (const [label, cursor] of garbageCursors('seq')) {
      const page = await gql(events, { after: cursor }, tokenA);
      expect([label, page.data]).toEqual([label, null]);
      expect([label, page.errors?.[0]?.extensions]).toEqual([
        label,
        expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'after' }),
      ]);
      const entity = await gql(trail, { reps: [{ __typename: 'User', username: 'alice' }], after: cursor }, tokenA);
      expect([label, entity.errors?.[0]?.extensions]).toEqual([
        label,
        expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'after' }),
      ]);
      expect([label, entity.errors?.[0]?.path]).toEqual([label, ['_entities', 0, 'auditTrail']]);
    }
    // A real cursor still works on both.
    const first = await gql(`{ ledgerEvents(first: 1) { pageInfo { endCursor } } }`, {}, tokenA);
    const after = first.data.ledgerEvents.pageInfo.endCursor;
    expect((await gql(events, { after }, tokenA)).errors).toBeUndefined();
    expect(
      (await gql(trail, { reps: [{ __typename: 'User', username: 'alice' }], after }, tokenA)).errors,
    ).toBeUndefined();
  });
});

describe('subscription ledgerEventAppended over graphql-ws', () => {
  const clients: Client[] = [];
  afterAll(async () => {
    for (const c of clients) await c.dispose();
  });

  function subscribe(connectionParams: Record<string, unknown>, eventType?: string) {
    const client = createClient({
      url: url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
    });
    clients.push(client);
    const received: any[] = [];
    const errors: unknown[] = [];
    client.subscribe(
      {
        query: 'subscription($t: String) { ledgerEventAppended(eventType: $t) { tenantId eventType seq eventData } }',
        variables: { t: eventType ?? null },
      },
      {
        next: (v) => received.push(v.data?.ledgerEventAppended ?? v),
        error: (e) => errors.push(e),
        complete: () => {},
      },
    );
    return { received, errors };
  }

  const post = async (tenant: string, type: string, data: Record<string, unknown>) => {
    const res = await fetch(`${url}/append`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: tenant, event_type: type, event_data: data }),
    });
    expect(res.status).toBe(200);
  };

  it("delivers only the subscriber's tenant (and type), in order", async () => {
    const a = subscribe({ authorization: `Bearer ${tokenA}` });
    const aTyped = subscribe({ authorization: `Bearer ${tokenA}` }, 'special');
    const anonB = subscribe({ 'x-tenant-id': 'gql-b' });
    // graphql-ws never acknowledges a subscribe, so a delivery is the proof a subscription is
    // live: append probes (each reaches exactly one tenant's subscribers) until all three have one.
    let probe = 0;
    await repeatUntil(
      async () => {
        probe++;
        await post('gql-a', 'special', { probe });
        await post('gql-b', 'probe', { probe });
      },
      () => a.received.length > 0 && aTyped.received.length > 0 && anonB.received.length > 0,
      'all three subscriptions to be live',
    );
    const real = (s: { received: any[] }) => s.received.filter((e) => e.eventData.probe === undefined);

    await post('gql-a', 'plain', { n: 1 });
    await post('gql-b', 'plain', { n: 2 });
    await post('gql-a', 'special', { n: 3 });
    // Last ones for each subscriber: delivery is in commit order, so anything wrongly delivered
    // from the appends above would already be in the lists when these arrive.
    await post('gql-b', 'plain', { n: 4 });
    await post('gql-a', 'special', { n: 5 });
    await until(
      () =>
        real(a).some((e) => e.eventData.n === 5) &&
        real(aTyped).some((e) => e.eventData.n === 5) &&
        real(anonB).some((e) => e.eventData.n === 4),
      'the last appends to be delivered',
    );
    expect(real(a).map((e) => [e.tenantId, e.eventData.n])).toEqual([
      ['gql-a', 1],
      ['gql-a', 3],
      ['gql-a', 5],
    ]);
    expect(real(aTyped).map((e) => e.eventData.n)).toEqual([3, 5]);
    expect(real(anonB).map((e) => [e.tenantId, e.eventData.n])).toEqual([
      ['gql-b', 2],
      ['gql-b', 4],
    ]);
    // The probes, too, reached only their own tenant (and type).
    expect(a.received.every((e) => e.tenantId === 'gql-a')).toBe(true);
    expect(aTyped.received.every((e) => e.tenantId === 'gql-a' && e.eventType === 'special')).toBe(true);
    expect(anonB.received.every((e) => e.tenantId === 'gql-b')).toBe(true);
    const seqs = a.received.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect([...a.errors, ...aTyped.errors, ...anonB.errors]).toEqual([]);
  });

  it('refuses a connection with a bad token', async () => {
    const bad = subscribe({ authorization: 'Bearer nope' });
    await until(() => bad.errors.length > 0, 'the connection to be refused');
    expect(bad.errors.length).toBeGreaterThan(0);
    expect(bad.received).toEqual([]);
  });
});
