// The benchmark's rapid loop (bench/config.ts) over HTTP: publish → promote rounds back to back,
// each approved at once by a second person (a workflow stand-in), the service's rollout poller
// every 20 ms. The loop once stopped at its 8th round, the change log's tenth change (the change
// log's order, test/integration/config/change-log-order.test.ts); twelve rounds cross it. And the
// pre-serialised `/effective` answers (rest-compat/config/effective-bodies.ts): an ETag per
// answer, a change gives a new body, and a tenant never gets another's.
import { AccessTokens } from '../../../platform/auth/jwt';
import type { WorkflowClient } from '../../../platform/clients/workflow.client';
import { defineConfigService } from '../../../services/config';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';

jest.setTimeout(180_000);

function approvingWorkflow(): Pick<WorkflowClient, 'execute' | 'status'> {
  let n = 0;
  return {
    execute: async () => {
      n += 1;
      return { workflow_id: `wf-${n}`, approval_task_id: `task-${n}`, status: 'pending_approval' } as never;
    },
    status: async (_c, workflowId) =>
      ({
        status: 'completed',
        approval_tasks: [
          {
            approval_task_id: `task-${workflowId.slice('wf-'.length)}`,
            status: 'approved',
            decision: 'approve',
            reviewer: 'second',
          },
        ],
      }) as never,
  };
}

let h: Harness;
let url: string;
let admin: string;
let otherAdmin: string;

beforeAll(async () => {
  h = await startServices(
    [
      defineConfigService({
        module: { schemas: { check: async () => ({ version: '1.0.0' }) }, workflow: approvingWorkflow() },
      }),
    ],
    { CONFIG_ROLLOUT_POLL_MS: '20' },
  );
  url = h.services.config!.url;
  admin = await new AccessTokens(TEST_JWT_SECRET, 3600).issue({
    username: 'first',
    tenantId: 'default',
    roles: ['admin', 'user'],
    scopes: ['read', 'write'],
  });
  otherAdmin = await new AccessTokens(TEST_JWT_SECRET, 3600).issue({
    username: 'bravo',
    tenantId: 'tenant-b',
    roles: ['admin', 'user'],
    scopes: ['read', 'write'],
  });
});
afterAll(async () => h?.close());

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as { id: string };
};
const effective = async () =>
  (await (
    await fetch(`${url}/api/config/default/effective`, { headers: { authorization: `Bearer ${admin}` } })
  ).json()) as { seq: number; config: Record<string, unknown> };

it('applies twelve approved promotions in a row, each one served by /effective', async () => {
  for (let round = 0; round < 12; round++) {
    const before = (await effective()).seq;
    const bundle = await post('/api/config/bundles', { layer: 'tenant', namespace: 'service', content: { round } });
    await post(`/api/config/rollouts/${bundle.id}/promote`, {});
    await until(async () => (await effective()).seq > before, `round ${round} applied`, { tries: 600 });
    expect((await effective()).config.service).toEqual({ round });
  }
});

it('serves /effective pre-serialised: one ETag (304) while nothing changes, a new body after a change, never another tenant’s', async () => {
  const get = (path: string, token = admin, etag?: string) =>
    fetch(`${url}${path}`, {
      headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
    });
  const first = await get('/api/config/default/effective');
  const etag = first.headers.get('etag')!;
  const body = await first.text();
  expect(first.headers.get('content-type')).toMatch(/^application\/json/);
  expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
  const again = await get('/api/config/default/effective');
  expect(again.headers.get('etag')).toBe(etag);
  expect(await again.text()).toBe(body);
  expect((await get('/api/config/default/effective', admin, etag)).status).toBe(304);
  // One namespace is its own answer (the tenant has only `service`: a namespace it lacks is empty).
  const ns = await get('/api/config/default/effective?namespace=absent');
  expect(ns.headers.get('etag')).not.toBe(etag);
  expect(((await ns.json()) as { config: object }).config).toEqual({});

  // Another tenant: refused on the default tenant's path, and its own answer holds nothing of it.
  expect((await get('/api/config/default/effective', otherAdmin)).status).toBe(403);
  const theirs = (await (await get('/api/config/tenant-b/effective', otherAdmin)).json()) as {
    tenant_id: string;
    config: Record<string, unknown>;
  };
  expect(theirs.tenant_id).toBe('tenant-b');
  expect(theirs.config.service).toBeUndefined();

  // A change: a new seq, a new body, and the old ETag no longer matches.
  const before = (JSON.parse(body) as { seq: number }).seq;
  const bundle = await post('/api/config/bundles', {
    layer: 'tenant',
    namespace: 'service',
    content: { round: 'next' },
  });
  await post(`/api/config/rollouts/${bundle.id}/promote`, {});
  await until(async () => (await effective()).seq > before, 'the change applied');
  const changed = await get('/api/config/default/effective', admin, etag);
  expect(changed.status).toBe(200);
  expect(changed.headers.get('etag')).not.toBe(etag);
  expect(((await changed.json()) as { config: Record<string, unknown> }).config.service).toEqual({ round: 'next' });
});
