// Feature flags over OFREP, read by a real OpenFeature client (@openfeature/server-sdk with
// @openfeature/ofrep-provider), and the in-process cached client (platform/clients/config-cache.ts):
// flagd's targeting (JSON Logic, fractional, sem_ver), a tenant layer overriding a platform flag,
// the evaluation limit, refresh on config.changed, and the last good copy while the service is down.
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OpenFeature } from '@openfeature/server-sdk';
import { ServiceIdentity } from '../../../platform/auth/service-identity';
import { CachedConfig } from '../../../platform/clients/config-cache';
import { ConfigClient } from '../../../platform/clients/config.client';
import { FlagSet } from '../../../platform/flags/flag-set';
import { MemoryRateLimiter } from '../../../router/edge/rate-limit/memory-rate-limiter';
import { TenantRateLimits } from '../../../router/edge/rate-limit/tenant-rate-limits';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call, decide, startConfigPlatform, type ConfigPlatform } from './config.support';

jest.setTimeout(180_000);

let p: ConfigPlatform;

const PLATFORM_FLAGS = {
  flags: {
    'new-ui': {
      state: 'ENABLED',
      variants: { on: true, off: false },
      defaultVariant: 'off',
      targeting: {
        fractional: [
          ['on', 50],
          ['off', 50],
        ],
      },
    },
    'rate-per-second': {
      state: 'ENABLED',
      variants: { gold: 100, standard: 10 },
      defaultVariant: 'standard',
      targeting: { if: [{ '===': [{ var: 'tier' }, 'gold'] }, 'gold', 'standard'] },
    },
    'api-version': {
      state: 'ENABLED',
      variants: { v1: 'v1', v2: 'v2' },
      defaultVariant: 'v1',
      targeting: { if: [{ sem_ver: [{ var: 'appVersion' }, '>=', '2.0.0'] }, 'v2', 'v1'] },
    },
  },
};

async function promote(bundleId: string, requester: string, approver: [string, string]) {
  const r = await call(`${p.url}/api/config/rollouts/${bundleId}/promote`, { token: requester, json: {} });
  expect(r.status).toBe(202);
  expect((await decide(p, approver[0], approver[1], r.body.approval_task_id)).status).toBe(200);
  await until(
    async () =>
      (await call(`${p.url}/api/config/rollouts/${r.body.id}`, { token: requester })).body.status === 'applied',
    'applied',
  );
}

beforeAll(async () => {
  p = await startConfigPlatform();
  const b = await call(`${p.url}/api/config/bundles`, {
    token: p.t.operator,
    json: { layer: 'platform', namespace: 'flags', content: PLATFORM_FLAGS },
  });
  expect(b.status).toBe(201);
  await promote(b.body.id, p.t.operator, [p.t.operator2, 'operator2']);
});

afterAll(async () => {
  await OpenFeature.close();
  await p?.close();
});

describe('OFREP with an OpenFeature client', () => {
  it('evaluates JSON Logic, fractional and sem_ver targeting as flagd does', async () => {
    await OpenFeature.setProviderAndWait(
      'config',
      new OFREPProvider({ baseUrl: p.url, headers: [['Authorization', `Bearer ${p.t.admin}`]] }),
    );
    const client = OpenFeature.getClient('config');
    expect(await client.getNumberValue('rate-per-second', 1, { tier: 'gold' })).toBe(100);
    expect(await client.getNumberValue('rate-per-second', 1, { tier: 'bronze' })).toBe(10);
    expect(await client.getStringValue('api-version', 'none', { appVersion: '2.1.0' })).toBe('v2');
    expect(await client.getStringValue('api-version', 'none', { appVersion: '1.9.9' })).toBe('v1');
    // fractional: the same answer flagd-core gives for each targeting key.
    const local = new FlagSet(PLATFORM_FLAGS);
    for (const key of ['u1', 'u2', 'u3', 'u4', 'u5', 'u6']) {
      const expected = local.evaluate('new-ui', { targetingKey: key, tenantId: 'default' });
      expect(await client.getBooleanValue('new-ui', false, { targetingKey: key })).toBe(
        (expected as { value: boolean }).value,
      );
    }
    const missing = await client.getBooleanDetails('no-such-flag', true, {});
    expect(missing).toMatchObject({ value: true, errorCode: 'FLAG_NOT_FOUND' });
  });

  it('answers OFREP bulk evaluation with an ETag, and 304 when nothing changed', async () => {
    const res = await fetch(`${p.url}/ofrep/v1/evaluate/flags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.t.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ context: { targetingKey: 'u1', tier: 'gold' } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { flags: { key: string; value: unknown }[] };
    expect(body.flags.find((f) => f.key === 'rate-per-second')?.value).toBe(100);
    const again = await fetch(`${p.url}/ofrep/v1/evaluate/flags`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${p.t.admin}`,
        'content-type': 'application/json',
        'if-none-match': res.headers.get('etag')!,
      },
      body: JSON.stringify({ context: { targetingKey: 'u1', tier: 'gold' } }),
    });
    expect(again.status).toBe(304);
    expect(
      (
        await fetch(`${p.url}/ofrep/v1/evaluate/flags/new-ui`, {
          method: 'POST',
          body: '{}',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(401);
  });

  it('refuses a targeting rule beyond the evaluation limit, naming its pointer', async () => {
    let rule: unknown = { var: 'x' };
    for (let i = 0; i < 300; i++) rule = { or: [rule, { '===': [1, 1] }] };
    const r = await call(`${p.url}/api/config/bundles`, {
      token: p.t.admin,
      json: {
        layer: 'tenant',
        namespace: 'flags',
        content: { flags: { boom: { state: 'ENABLED', variants: { a: true }, defaultVariant: 'a', targeting: rule } } },
      },
    });
    expect(r.status).toBe(422);
    // 300 levels also break the bundle's depth limit; a flat rule of the same size breaks the node limit.
    const flat = { or: Array.from({ length: 400 }, () => ({ '===': [{ var: 'x' }, 1] })) };
    const r2 = await call(`${p.url}/api/config/bundles`, {
      token: p.t.admin,
      json: {
        layer: 'tenant',
        namespace: 'flags',
        content: { flags: { boom: { state: 'ENABLED', variants: { a: true }, defaultVariant: 'a', targeting: flat } } },
      },
    });
    expect(r2.status).toBe(422);
    expect(r2.body.detail[0].loc).toEqual(['body', 'content', '/flags/boom/targeting']);
    // The platform layer's flags are complete definitions, checked with flagd's own schema.
    const bad = await call(`${p.url}/api/config/bundles`, {
      token: p.t.operator,
      json: { layer: 'platform', namespace: 'flags', content: { flags: { x: { state: 'MAYBE' } } } },
    });
    expect(bad.status).toBe(422);
  });
});

describe('a real consumer: the gateway’s per-tenant rate limits', () => {
  it('takes a tenant’s limits from config and changes them at run time, without a restart', async () => {
    // The namespace's schema is built in (platform/contracts/config.gateway.schema.json).
    const cache = new CachedConfig(new ConfigClient(p.url, new ServiceIdentity(TEST_JWT_SECRET, 'gateway')), {
      bus: p.h.bus,
      logger: { warn() {} },
      refreshMs: 0,
    });
    await cache.start();
    // A clock that never moves: buckets do not refill during the test.
    const limits = new TenantRateLimits(new MemoryRateLimiter({ perSecond: 100, burst: 200 }, () => 0), cache);
    const burst = async (key: string, n: number) => {
      let allowed = 0;
      for (let i = 0; i < n; i++) if ((await limits.take(key)).allowed) allowed += 1;
      return allowed;
    };
    await cache.effective('default');
    expect(await burst('tenant:default', 10)).toBe(10); // the default burst (200)
    const publish = async (burstSize: number) => {
      const b = await call(`${p.url}/api/config/bundles`, {
        token: p.t.admin,
        json: { layer: 'tenant', namespace: 'gateway', content: { rate_limit: { per_second: 1, burst: burstSize } } },
      });
      expect(b.status).toBe(201);
      await promote(b.body.id, p.t.admin, [p.t.bob, 'bob']);
    };
    await publish(3);
    await until(() => limits.settingsOf('default')?.burst === 3, 'limits refreshed');
    expect(await burst('tenant:fresh-key-default', 0)).toBe(0);
    // A new bucket under the tenant's limits: 3 then refused (the key is the tenant's).
    const decision = await limits.take('tenant:default');
    expect(decision.limit).toBe(3);
    await publish(7);
    await until(() => limits.settingsOf('default')?.burst === 7, 'limits changed again');
    expect((await limits.take('tenant:default')).limit).toBe(7);
    // Another tenant keeps the default.
    await cache.effective('tenant-b');
    expect((await limits.take('tenant:tenant-b')).limit).toBe(200);
    await cache.stop();
  });
});

describe('the in-process cached client', () => {
  it('evaluates in process, refreshes on config.changed, and serves its last good copy when the service is down', async () => {
    const cache = new CachedConfig(new ConfigClient(p.url, new ServiceIdentity(TEST_JWT_SECRET, 'gateway')), {
      bus: p.h.bus,
      logger: { warn() {} },
      refreshMs: 0,
    });
    await cache.start();
    await cache.effective('default');
    expect(cache.evaluate<number>('default', 'rate-per-second', 1, { tier: 'gold' })).toBe(100);
    // The tenant's admin overrides the flag's variants in its own layer; bob approves.
    const t = await call(`${p.url}/api/config/bundles`, {
      token: p.t.admin,
      json: {
        layer: 'tenant',
        namespace: 'flags',
        content: { flags: { 'rate-per-second': { variants: { gold: 500 } } } },
      },
    });
    expect(t.status).toBe(201);
    await promote(t.body.id, p.t.admin, [p.t.bob, 'bob']);
    await until(
      () => cache.evaluate<number>('default', 'rate-per-second', 1, { tier: 'gold' }) === 500,
      'cache refreshed by config.changed',
    );
    expect(cache.evaluate<number>('default', 'rate-per-second', 1, { tier: 'silver' })).toBe(10);
    // Other tenants keep the platform's.
    await cache.effective('tenant-b');
    expect(cache.evaluate<number>('tenant-b', 'rate-per-second', 1, { tier: 'gold' })).toBe(100);
    // The service goes away: refreshes fail, the last good copy stays.
    await p.h.services.config!.built.app.close();
    await cache.refresh('default');
    expect(cache.failures).toBeGreaterThan(0);
    expect(cache.evaluate<number>('default', 'rate-per-second', 1, { tier: 'gold' })).toBe(500);
    await cache.stop();
  });
});
