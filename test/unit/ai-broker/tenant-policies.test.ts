// The tenants' policies in two layers (subgraphs/ai-broker/tenant-policies.ts): the catalogue
// file's entry under the config service's `ai_broker` namespace, member by member; a change is
// seen at once; an unusable config layer is dropped whole; a missing configuration is asked for
// once per retry period, not per request.
import type { EffectiveConfigView } from '../../../platform/clients/config.client';
import { TenantPolicies } from '../../../subgraphs/ai-broker/tenant-policies';

function fakeConfig() {
  const views = new Map<string, EffectiveConfigView>();
  let refreshes = 0;
  return {
    views,
    refreshes: () => refreshes,
    peek: (t: string) => views.get(t),
    refresh: async (_t: string) => {
      refreshes += 1;
      return undefined;
    },
  };
}

const view = (seq: number, aiBroker: unknown): EffectiveConfigView =>
  ({ tenant_id: 't1', seq, config: { ai_broker: aiBroker }, provenance: [] }) as unknown as EffectiveConfigView;

const FILE = { t1: { requiredTags: ['local'], requestsPerMinute: 60 } };

it('lays the config service’s members over the file’s, and sees a change at once', () => {
  const config = fakeConfig();
  const policies = new TenantPolicies(FILE, config);
  expect(policies.of('t1')).toEqual(FILE.t1);
  config.views.set('t1', view(3, { requests_per_minute: 2, redaction_mode: 'hash' }));
  expect(policies.of('t1')).toEqual({ requiredTags: ['local'], requestsPerMinute: 2, redactionMode: 'hash' });
  config.views.set('t1', view(4, { requests_per_minute: 5 }));
  expect(policies.of('t1').requestsPerMinute).toBe(5);
  expect(policies.of('t2')).toEqual({});
});

it('drops a config layer it cannot use as a whole, with a warning', () => {
  const config = fakeConfig();
  const warnings: unknown[] = [];
  const policies = new TenantPolicies(FILE, config, { warn: (o: unknown) => void warnings.push(o) });
  config.views.set('t1', view(5, { requests_per_minute: 3, redaction_mode: 'shout' }));
  expect(policies.of('t1')).toEqual(FILE.t1);
  expect(warnings).toHaveLength(1);
  expect(JSON.stringify(warnings)).not.toContain('shout');
});

it('asks for a missing configuration once per retry period, not per request', async () => {
  const config = fakeConfig();
  let now = 0;
  const policies = new TenantPolicies(FILE, config, undefined, () => now);
  await policies.load('t1');
  await policies.load('t1');
  expect(config.refreshes()).toBe(1);
  now = 6_000;
  await policies.load('t1');
  expect(config.refreshes()).toBe(2);
  config.views.set('t1', view(1, null));
  now = 20_000;
  await policies.load('t1');
  expect(config.refreshes()).toBe(2);
  expect(policies.of('t1')).toEqual(FILE.t1);
});

it('without a config service: the file’s policies only', async () => {
  const policies = new TenantPolicies(FILE);
  await policies.load('t1');
  expect(policies.of('t1')).toEqual(FILE.t1);
});
