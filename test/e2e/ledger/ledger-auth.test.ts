// Tenant scoping with bearer tokens, and REQUIRE_AUTH=true: a tenant never reads or writes another
// tenant's chain; platform admins and service accounts may; anonymous calls are refused.
import { AccessTokens } from '../../../platform/auth/jwt';
import { ledgerService } from '../../../services/ledger';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';

jest.setTimeout(60_000);

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
let h: Harness;
let url: string;
const auth = (t: string) => ({ authorization: `Bearer ${t}` });
let userA: string;
let userB: string;
let admin: string;
let defaultAdmin: string;
let service: string;

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers };
}

beforeAll(async () => {
  h = await startServices([ledgerService], { REQUIRE_AUTH: 'true' });
  url = h.services.ledger!.url;
  userA = await tokens.issue({ username: 'alice', tenantId: 'auth-a', roles: ['user'], scopes: ['read', 'write'] });
  userB = await tokens.issue({ username: 'bob', tenantId: 'auth-b', roles: ['user'], scopes: ['read', 'write'] });
  admin = await tokens.issue({
    username: 'operator',
    tenantId: 'platform',
    roles: ['platform-admin'],
    scopes: ['admin'],
  });
  defaultAdmin = await tokens.issue({ username: 'root', tenantId: 'default', roles: ['admin'], scopes: ['admin'] });
  service = await tokens.issue({
    username: 'svc-workflow',
    tenantId: 'default',
    roles: ['service:workflow'],
    scopes: ['write'],
  });
  const r = await call('POST', '/append', auth(userA), {
    tenant_id: 'auth-a',
    event_type: 'phi_access',
    event_data: { patient_id: 'enc:SECRET-A' },
  });
  expect(r.status).toBe(200);
});
afterAll(async () => h?.close());

it('refuses anonymous calls with 401 and WWW-Authenticate', async () => {
  for (const [m, p] of [
    ['GET', '/events?tenant_id=auth-a'],
    ['GET', '/verify'],
    ['GET', '/export?tenant_id=auth-a'],
    ['POST', '/append'],
  ] as const) {
    const r = await call(m, p, {}, m === 'POST' ? { tenant_id: 'auth-a', event_type: 'x', event_data: {} } : undefined);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
  }
  expect((await call('GET', '/healthz', {})).status).toBe(200);
});

it('lets a tenant read its own chain by default', async () => {
  const r = await call('GET', '/events', auth(userA));
  expect(r.status).toBe(200);
  expect(JSON.parse(r.text).total).toBe(1);
  expect(JSON.parse((await call('GET', '/verify', auth(userA))).text)).toEqual({
    valid: true,
    total_events: 1,
    error: null,
  });
});

it('answers 403 (never data) when tenant B asks for tenant A', async () => {
  for (const path of [
    '/events?tenant_id=auth-a',
    '/export?tenant_id=auth-a',
    '/verify?tenant_id=auth-a',
    '/v1/ledger/history?tenant_id=auth-a',
  ]) {
    const r = await call('GET', path, auth(userB));
    expect(r.status).toBe(403);
    expect(r.text).not.toContain('SECRET-A');
  }
  expect(
    (await call('POST', '/append', auth(userB), { tenant_id: 'auth-a', event_type: 'x', event_data: {} })).status,
  ).toBe(403);
  expect((await call('POST', '/v1/ledger/audit-report', auth(userB), { tenant_id: 'auth-a' })).status).toBe(403);
  // A spoofed gateway header is refused like any other naming of another tenant; their own is empty.
  const spoofed = await call('GET', '/events', { ...auth(userB), 'x-tenant-id': 'auth-a' });
  expect(spoofed.status).toBe(403);
  expect(spoofed.text).not.toContain('SECRET-A');
  expect(JSON.parse((await call('GET', '/events', auth(userB))).text).total).toBe(0);
  // Verifying "everything" as a plain user means its own tenant only.
  expect(JSON.parse((await call('GET', '/verify', auth(userB))).text)).toEqual({
    valid: true,
    total_events: 0,
    error: null,
  });
  expect(JSON.parse((await call('GET', '/verify', auth(userA))).text).total_events).toBe(1);
});

it('lets a platform operator verify every tenant and a service account append for any tenant', async () => {
  expect(
    (
      await call('POST', '/append', auth(service), {
        tenant_id: 'auth-b',
        event_type: 'workflow_execution',
        event_data: { status: 'completed' },
      })
    ).status,
  ).toBe(200);
  const all = JSON.parse((await call('GET', '/verify', auth(admin))).text);
  expect(all).toEqual({ valid: true, total_events: 2, error: null });
  // The default tenant's admin is not an operator: its "everything" is its own (empty) tenant.
  expect(JSON.parse((await call('GET', '/verify', auth(defaultAdmin))).text)).toEqual({
    valid: true,
    total_events: 0,
    error: null,
  });
  expect((await call('GET', '/events?tenant_id=auth-a', auth(defaultAdmin))).status).toBe(403);
  expect(
    (await call('POST', '/append', auth(defaultAdmin), { tenant_id: 'auth-a', event_type: 'x', event_data: {} }))
      .status,
  ).toBe(403);
  expect((await call('GET', '/events?tenant_id=auth-a', auth(admin))).status).toBe(200);
  // An operator may name the tenant in X-Tenant-ID too, by REST and GraphQL alike.
  const viaHeader = await call('GET', '/events', { ...auth(admin), 'x-tenant-id': 'auth-b' });
  expect(JSON.parse(viaHeader.text).events.map((e: { tenant_id: string }) => e.tenant_id)).toContain('auth-b');
  const gql = await call(
    'POST',
    '/graphql',
    { ...auth(admin), 'x-tenant-id': 'auth-b' },
    { query: '{ ledgerEvents(first: 5) { nodes { tenantId } } }' },
  );
  expect(JSON.parse(gql.text).data.ledgerEvents.nodes.map((n: { tenantId: string }) => n.tenantId)).toContain('auth-b');
});

it('records every action of an operator in the tenant it touched: who, what, when', async () => {
  const read = await call('GET', '/events?tenant_id=auth-a&event_type=platform_operator_access', auth(admin));
  const page = JSON.parse(read.text) as {
    events: { user_id: string; event_data: Record<string, unknown>; created_at: string }[];
  };
  // This very read is recorded before it runs, so it sees itself and the earlier read.
  expect(page.events.length).toBeGreaterThanOrEqual(2);
  expect(page.events[page.events.length - 1]).toMatchObject({
    user_id: 'operator',
    event_data: { operator: 'operator', operator_tenant: 'platform', action: 'ledger.events.list' },
  });
  expect(JSON.parse((await call('GET', '/verify?tenant_id=auth-a', auth(userA))).text).valid).toBe(true);
});

it('refuses anonymous GraphQL operations and subscriptions when REQUIRE_AUTH=true', async () => {
  const r = await call('POST', '/graphql', {}, { query: '{ verifyLedger { valid } }' });
  expect(JSON.parse(r.text).errors[0].extensions.code).toBe('UNAUTHENTICATED');
  const ok = await call('POST', '/graphql', auth(userA), { query: '{ verifyLedger { valid totalEvents } }' });
  // auth-a's chain: its own event plus the operator's recorded reads (earlier test).
  expect(JSON.parse(ok.text).data.verifyLedger).toEqual({ valid: true, totalEvents: 3 });

  const { createClient } = await import('graphql-ws');
  const WebSocket = (await import('ws')).default;
  const client = createClient({
    url: url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { 'x-tenant-id': 'auth-a' },
    retryAttempts: 0,
  });
  const outcome = await new Promise<string>((resolve) => {
    client.subscribe(
      { query: 'subscription { ledgerEventAppended { id } }' },
      { next: () => resolve('data'), error: () => resolve('error'), complete: () => resolve('complete') },
    );
  });
  await client.dispose();
  expect(outcome).toBe('error');
});
