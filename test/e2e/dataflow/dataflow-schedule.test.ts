// The schedule trigger: a certified pack with `{type: schedule, cron}` runs in its owner tenant
// once per slot, on an injected clock the test moves (the runner polls every 30 ms): nothing for
// slots before its certification, one run when the clock passes a slot however many polls see
// it, the next slot another run, nothing in another tenant; the service stops cleanly.
import { AccessTokens } from '../../../platform/auth/jwt';
import { defineDataflowService } from '../../../services/dataflow';
import { packsRegistryService } from '../../../services/packs-registry';
import { latestSlot } from '../../../subgraphs/dataflow/schedule.runner';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call } from '../workflow/workflow.support';

jest.setTimeout(120_000);

let registry: Harness;
let h: Harness;
let url: string;
let clock = new Date();
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const token = (tenantId: string, username: string, roles = ['user']) =>
  tokens.issue({ username, tenantId, roles, scopes: ['read', 'write'] });

beforeAll(async () => {
  registry = await startServices([packsRegistryService]);
  h = await startServices(
    [
      defineDataflowService({
        config: { packsRegistryUrl: registry.services['packs-registry']!.url, schedulePollMs: 30 },
        consumer: { pollMs: 1000 },
        now: () => clock,
      }),
    ],
    {},
    { db: registry.db, bus: registry.bus },
  );
  url = h.services.dataflow!.url;
});
afterAll(async () => {
  await h?.close();
  await registry?.close();
});

it('latestSlot: the newest cron time at or before now, in UTC; none for a bad cron', () => {
  const at = (iso: string) => latestSlot('*/5 * * * *', new Date(iso))?.toISOString();
  expect(at('2026-01-01T03:07:00Z')).toBe('2026-01-01T03:05:00.000Z');
  expect(at('2026-01-01T03:05:00Z')).toBe('2026-01-01T03:05:00.000Z');
  expect(at('2026-01-01T03:04:59.500Z')).toBe('2026-01-01T03:00:00.000Z');
  expect(latestSlot('not a cron', new Date())).toBeNull();
});

it('runs a certified scheduled pack once per slot, in its owner tenant only', async () => {
  const author = await token('sched-co', 'alice');
  const reviewer = await token('sched-co', 'bob', ['reviewer']);
  const stage = (dataset: string, amount: number) =>
    call(`${url}/api/dataflow/datasets/${dataset}/records`, {
      token: author,
      body: { records: [{ key: 'k1', data: { amount } }] },
    });
  expect((await stage('bank', 10)).status).toBe(200);
  expect((await stage('books', 10)).status).toBe(200);
  const pack = {
    kind: 'dataflow',
    metadata: { pack_id: 'hourly-rec', version: '1.0.0', name: 'hourly' },
    inputs: [
      { name: 'bank', source: 'dataset', dataset: 'bank' },
      { name: 'books', source: 'dataset', dataset: 'books' },
    ],
    reconciliations: [{ name: 'r', left: 'bank', right: 'books', compare: [{ left: 'amount', rule: 'exact' }] }],
    outputs: [{ name: 'none' }],
    triggers: [{ type: 'schedule', cron: '0 * * * *' }],
  };
  const registryUrl = registry.services['packs-registry']!.url;
  expect((await call(`${registryUrl}/packs`, { token: author, body: { artifact: pack, format: 'json' } })).status).toBe(
    201,
  );
  const runs = async (tok: string) =>
    (await call(`${url}/api/dataflow/runs?pack_id=hourly-rec`, { token: tok })).body.runs as any[];
  // A draft is not scheduled.
  clock = new Date(Date.now() + 3600_000);
  await new Promise((r) => setTimeout(r, 300));
  expect(await runs(author)).toHaveLength(0);
  // The clock goes back before the certification: left an hour ahead, the runner (polling every
  // 30 ms) could see the certified pack with a slot after its certification before the test moved it.
  clock = new Date();
  expect(
    (await call(`${registryUrl}/packs/hourly-rec/versions/1.0.0/certify`, { token: reviewer, body: {} })).status,
  ).toBe(200);
  // Certified now: the slot before the certification is not run; the clock moved past the next hour is.
  await new Promise((r) => setTimeout(r, 300));
  expect(await runs(author)).toHaveLength(0);
  const next = latestSlot('0 * * * *', new Date(Date.now() + 3600_000))!;
  clock = new Date(next.getTime() + 1000);
  await until(async () => (await runs(author)).length === 1, 'the first scheduled run');
  await new Promise((r) => setTimeout(r, 300));
  const [first] = await runs(author);
  expect(first).toMatchObject({
    trigger_kind: 'schedule',
    trigger_key: `schedule:0 * * * *@${next.toISOString()}`,
    status: 'passed',
  });
  // The following slot: a second run.
  clock = new Date(next.getTime() + 3600_000 + 1000);
  await until(async () => (await runs(author)).length === 2, 'the second scheduled run');
  await new Promise((r) => setTimeout(r, 300));
  expect(await runs(author)).toHaveLength(2);
  // Another tenant has none.
  expect(await runs(await token('other-co', 'eve'))).toHaveLength(0);
});
