// A real consumer of config (issue 30, item 6): the AI broker's tenant policies come from the
// tenant's effective configuration (namespace `ai_broker`, schema built in as
// platform/contracts/config.ai_broker.schema.json) over the catalogue file's defaults, and a
// promoted change applies to the broker's next request without a restart; another tenant keeps
// the defaults, and a policy the schema refuses is never stored.
import { defineAiBrokerService } from '../../../services/ai-broker';
import { until } from '../../support/waiting';
import { call, decide, startConfigPlatform, type ConfigPlatform } from './config.support';

jest.setTimeout(180_000);

let p: ConfigPlatform;
let broker: string;

beforeAll(async () => {
  // No vendor keys: the offline extractive model answers every request.
  p = await startConfigPlatform({ AI_POLICY_REFRESH_SECONDS: '0' }, {}, [defineAiBrokerService()]);
  broker = p.h.services['ai-broker']!.url;
});

afterAll(async () => {
  await p?.close();
});

const infer = (token: string) =>
  call(`${broker}/api/ai/inference`, { token, json: { prompt: 'What is the refund window?', max_tokens: 20 } });

it('takes a tenant’s request rate from config, changed at run time, and leaves other tenants alone', async () => {
  for (let i = 0; i < 3; i++) expect((await infer(p.t.admin)).status).toBe(200); // the default, 600/min
  const bad = await call(`${p.url}/api/config/bundles`, {
    token: p.t.admin,
    json: { layer: 'tenant', namespace: 'ai_broker', content: { requests_per_minute: 0 } },
  });
  expect(bad.status).toBe(422);
  expect(bad.body.detail[0].loc).toEqual(['body', 'content', '/requests_per_minute']);

  const b = await call(`${p.url}/api/config/bundles`, {
    token: p.t.admin,
    json: { layer: 'tenant', namespace: 'ai_broker', content: { requests_per_minute: 2 } },
  });
  expect(b.status).toBe(201);
  const r = await call(`${p.url}/api/config/rollouts/${b.body.id}/promote`, { token: p.t.admin, json: {} });
  expect(r.status).toBe(202);
  expect((await decide(p, p.t.bob, 'bob', r.body.approval_task_id)).status).toBe(200);
  // config.changed reaches the broker's cache; its bucket shrinks to 2 a minute: at most 2 more pass.
  let refused: Awaited<ReturnType<typeof infer>> | undefined;
  await until(async () => {
    const res = await infer(p.t.admin);
    if (res.status === 429) refused = res;
    return res.status === 429;
  }, 'the broker to apply the tenant’s new rate');
  expect(String(refused!.body.detail)).toContain('2 AI requests per minute');
  // The other tenant keeps the broker's default rate.
  for (let i = 0; i < 3; i++) expect((await infer(p.t.otherAdmin)).status).toBe(200);
});
