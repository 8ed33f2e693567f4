// The benchmark's rapid loop (bench/config.ts) over HTTP: publish → promote rounds back to back,
// each approved at once by a second person (a workflow stand-in), the service's rollout poller
// every 20 ms. The loop once stopped at its 8th round, the change log's tenth change (the change
// log's order, test/integration/config/change-log-order.test.ts); twelve rounds cross it.
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
