// Issue 30's "Done when", through the front door of a started platform (router and gateway over
// identity, schema registry, workflow and config): a platform bundle is published, rolled out to
// 10% of tenants by consistent hashing, promoted by a second operator, and rolled back; an
// OpenFeature client using OFREP reads a tenant's flag through the gateway; the gateway's rate
// limit for a tenant changes without a restart. Beside it, the `configChanged` subscription over
// graphql-ws through the router: each tenant hears its own changes and the operator layers',
// never another tenant's.
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OpenFeature } from '@openfeature/server-sdk';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { AccessTokens } from '../../../platform/auth/jwt';
import { configService } from '../../../services/config';
import { gatewayService } from '../../../services/gateway';
import { identityService } from '../../../services/identity';
import { ledgerService } from '../../../services/ledger';
import { schemaRegistryService } from '../../../services/schema-registry';
import { workflowService } from '../../../services/workflow';
import { inRollout } from '../../../subgraphs/config/rollout.rules';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { gql, startPlatform, type Platform } from '../router/platform.support';

jest.setTimeout(300_000);

let p: Platform;
const clients: Client[] = [];
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const person = (username: string, tenantId: string, roles: string[]) =>
  tokens.issue({ username, tenantId, roles, scopes: ['read', 'write'] });
const t: Record<'root' | 'bob' | 'bravo' | 'operator' | 'operator2', string> = {} as never;

beforeAll(async () => {
  p = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10', WORKFLOW_POLL_MS: '50', CONFIG_ROLLOUT_POLL_MS: '100' }, [
    identityService,
    ledgerService,
    schemaRegistryService,
    workflowService,
    configService,
    gatewayService,
  ]);
  t.root = await person('root', 'default', ['admin', 'user']);
  t.bob = await person('bob', 'default', ['admin', 'user']);
  t.bravo = await person('bravo', 'tenant-b', ['admin', 'user']);
  t.operator = await person('operator', 'platform', ['platform-admin']);
  t.operator2 = await person('operator2', 'platform', ['platform-admin']);
});

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await OpenFeature.close();
  await p?.close();
});

/** REST through the gateway (/api/v1/config/... → config's /api/config/...). */
async function rest(
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${p.gateway}/api/v1/config${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Publishes and promotes; `approver` decides the approval task through the router's GraphQL. */
async function publishAndPromote(
  requester: string,
  approver: string,
  bundle: Record<string, unknown>,
  promote: Record<string, unknown> = {},
): Promise<{ bundleId: string; rollout: any }> {
  const b = await rest(requester, 'POST', '/bundles', bundle);
  expect(b.status).toBe(201);
  const r = await rest(requester, 'POST', `/rollouts/${b.body.id}/promote`, promote);
  expect(r.status).toBe(202);
  const decided = await gql(
    p.gateway,
    `mutation ($id: ID!) { decideApproval(taskId: $id, decision: "approve") { message } }`,
    { token: approver, variables: { id: r.body.approval_task_id } },
  );
  expect(decided.body.errors).toBeUndefined();
  let rollout: any;
  await until(async () => {
    rollout = (await rest(requester, 'GET', `/rollouts/${r.body.id}`)).body;
    return rollout.status === 'applied';
  }, 'the rollout applied');
  return { bundleId: b.body.id, rollout };
}

function listen(token: string) {
  const c = createClient({
    url: `${p.gateway.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  clients.push(c);
  const items: any[] = [];
  const errors: unknown[] = [];
  c.subscribe(
    { query: 'subscription { configChanged(afterSeq: 0) { seq tenantId layer namespace version kind percentage } }' },
    {
      next: (v) => (v.errors ? errors.push(v.errors) : items.push(v.data!.configChanged)),
      error: (e) => errors.push(e),
      complete: () => {},
    },
  );
  return { items, errors };
}

const rpm = async (token: string, tenant: string) =>
  (await rest(token, 'GET', `/${tenant}/effective?namespace=ai_broker`)).body.config.ai_broker?.requests_per_minute;

it('a bundle is published, rolled out to 10% of tenants, promoted by a second person, and rolled back', async () => {
  const rootFeed = listen(t.root);
  const bravoFeed = listen(t.bravo);
  const bundle = (n: number) => ({ layer: 'platform', namespace: 'ai_broker', content: { requests_per_minute: n } });
  const v1 = await publishAndPromote(t.operator, t.operator2, bundle(1000));
  expect(await rpm(t.root, 'default')).toBe(1000);
  // v2 to 10% of tenants: which ones is flagd's fractional hash of the target and the tenant.
  const v2 = await publishAndPromote(t.operator, t.operator2, bundle(2000), { percentage: 10, hash_by: 'tenant' });
  expect(v2.rollout).toMatchObject({
    percentage: 10,
    hash_by: 'tenant',
    requested_by: 'operator',
    approved_by: 'operator2',
  });
  const key = 'platform\u0000\u0000ai_broker';
  for (const [tenant, token] of [
    ['default', t.root],
    ['tenant-b', t.bravo],
  ] as const)
    expect(await rpm(token, tenant)).toBe(inRollout(key, tenant, 10) ? 2000 : 1000);
  // The author cannot approve their own promotion.
  const own = await rest(t.operator, 'POST', `/rollouts/${v2.bundleId}/promote`, {});
  const self = await gql(
    p.gateway,
    `mutation ($id: ID!) { decideApproval(taskId: $id, decision: "approve") { message } }`,
    { token: t.operator, variables: { id: own.body.approval_task_id } },
  );
  expect(self.body.errors?.length).toBeGreaterThan(0);
  // Rolled back in one call: v1 for everyone.
  const rb = await rest(t.operator, 'POST', `/bundles/${v1.bundleId}/rollback`, {});
  expect(rb.status).toBe(200);
  expect(rb.body).toMatchObject({ kind: 'rollback', percentage: 100 });
  expect(await rpm(t.root, 'default')).toBe(1000);
  expect(await rpm(t.bravo, 'tenant-b')).toBe(1000);

  // A tenant's own change: its subscriber hears it, the other tenant's never does.
  await publishAndPromote(t.root, t.bob, {
    layer: 'tenant',
    namespace: 'ai_broker',
    content: { requests_per_minute: 5 },
  });
  await until(() => rootFeed.items.some((c) => c.tenantId === 'default'), 'default hears its own change');
  await until(() => bravoFeed.items.filter((c) => c.layer === 'platform').length >= 3, 'tenant-b hears the platform’s');
  expect(rootFeed.errors).toEqual([]);
  expect(bravoFeed.errors).toEqual([]);
  expect(bravoFeed.items.every((c) => c.tenantId === null)).toBe(true);
  expect(rootFeed.items.map((c) => c.kind)).toEqual(['promote', 'promote', 'rollback', 'promote']);
  // Another tenant named by a tenant: refused, nothing delivered.
  const nosy = createClient({
    url: `${p.gateway.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${t.bravo}` },
    retryAttempts: 0,
  });
  clients.push(nosy);
  const refused = await new Promise<unknown[]>((resolve) => {
    const got: unknown[] = [];
    nosy.subscribe(
      { query: 'subscription { configChanged(afterSeq: 0, tenantId: "default") { seq tenantId } }' },
      { next: (v) => got.push(v), error: (e) => resolve([e]), complete: () => resolve(got) },
    );
  });
  expect(JSON.stringify(refused)).not.toContain('"tenantId":"default"');
  expect(JSON.stringify(refused)).toMatch(/FORBIDDEN|errors/);
});

it('an OpenFeature client using OFREP reads a tenant’s flag through the gateway', async () => {
  await publishAndPromote(t.root, t.bob, {
    layer: 'tenant',
    namespace: 'flags',
    content: {
      flags: {
        'new-checkout': {
          state: 'ENABLED',
          variants: { on: true, off: false },
          defaultVariant: 'off',
          targeting: { if: [{ '===': [{ var: 'plan' }, 'gold'] }, 'on', 'off'] },
        },
      },
    },
  });
  await OpenFeature.setProviderAndWait(
    'router',
    new OFREPProvider({ baseUrl: `${p.gateway}/api/v1`, headers: [['Authorization', `Bearer ${t.root}`]] }),
  );
  const client = OpenFeature.getClient('router');
  expect(await client.getBooleanValue('new-checkout', false, { plan: 'gold' })).toBe(true);
  expect(await client.getBooleanValue('new-checkout', true, { plan: 'free' })).toBe(false);
});

it('the gateway’s rate limit for a tenant changes without a restart', async () => {
  const hit = () =>
    fetch(`${p.gateway}/api/v1/config/default/effective`, { headers: { authorization: `Bearer ${t.root}` } });
  for (let i = 0; i < 5; i++) expect((await hit()).status).toBe(200);
  await publishAndPromote(t.root, t.bob, {
    layer: 'tenant',
    namespace: 'gateway',
    content: { rate_limit: { per_second: 0.01, burst: 3 } },
  });
  // The gateway's copy refreshes on config.changed; the tenant's bucket shrinks to 3.
  await until(async () => (await hit()).status === 429, 'the gateway to apply the tenant’s limit');
  const other = await fetch(`${p.gateway}/api/v1/config/tenant-b/effective`, {
    headers: { authorization: `Bearer ${t.bravo}` },
  });
  expect(other.status).toBe(200);
});
