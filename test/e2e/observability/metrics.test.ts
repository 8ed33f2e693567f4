// Metric samples over OTLP/HTTP JSON, stored and queried, on a real database (PGlite, or
// PostgreSQL with DATABASE_URL): gauge, sum and histogram points; the series query over REST and
// the subgraph with matchers, a bounded window and a step; tenancy (another tenant's series are
// invisible, naming another tenant is 403, platform series are for platform operators); the
// hostile case of issue 31 (100,000 distinct label values from one tenant: its series budget holds,
// another tenant is unaffected); retention; and the alert evaluator reading stored series.
import { randomUUID } from 'node:crypto';
import { AccessTokens } from '../../../platform/auth/jwt';
import { defineObservabilityService } from '../../../services/observability';
import { createObservabilityModule } from '../../../subgraphs/observability/observability.module';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';

jest.setTimeout(180_000);

const BUDGET = 1000;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const tenantA = `met-a-${randomUUID().slice(0, 8)}`;
const tenantB = `met-b-${randomUUID().slice(0, 8)}`;
const token = (tenantId: string, roles = ['user']) =>
  tokens.issue({ username: `user-${tenantId}`, tenantId, roles, scopes: ['read', 'write'] });

let h: Harness;
let obs: string;

async function call(method: string, path: string, tenant?: string, body?: unknown, roles?: string[]) {
  const res = await fetch(obs + path, {
    method,
    headers: {
      ...(tenant ? { authorization: `Bearer ${await token(tenant, roles)}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

const attrs = (labels: Record<string, string>) =>
  Object.entries(labels).map(([key, v]) => ({ key, value: { stringValue: v } }));
const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n);

/** One ExportMetricsServiceRequest with the given metrics under a resource of service `svc`. */
const otlp = (metrics: unknown[], svc = 'shop') => ({
  resourceMetrics: [
    { resource: { attributes: attrs({ 'service.name': svc }) }, scopeMetrics: [{ scope: { name: 't' }, metrics }] },
  ],
});
const sum = (name: string, points: { labels: Record<string, string>; t: number; v: number }[]) => ({
  name,
  sum: {
    aggregationTemporality: 2,
    isMonotonic: true,
    dataPoints: points.map((p) => ({ attributes: attrs(p.labels), timeUnixNano: nanos(p.t), asDouble: p.v })),
  },
});

const seriesOf = (tenant: string, query: string, roles?: string[]) =>
  call('GET', `/metric-series?${query}`, tenant, undefined, roles);

beforeAll(async () => {
  h = await startServices([defineObservabilityService({ config: { seriesPerTenant: BUDGET } })], {
    OBSERVABILITY_ALERT_EVAL_MS: '0',
    OBSERVABILITY_RECORD_MS: '0',
  });
  obs = h.services.observability!.url;
});
afterAll(async () => {
  await h?.close();
});

const t0 = Date.now() - 10 * 60_000;

it('stores gauge, sum and histogram points and answers a series query per tenant, stepped and as a rate', async () => {
  const body = otlp([
    sum('orders_total', [
      { labels: { tenant: tenantA, route: '/a' }, t: t0, v: 10 },
      { labels: { tenant: tenantA, route: '/a' }, t: t0 + 60_000, v: 70 },
      { labels: { tenant: tenantA, route: '/a' }, t: t0 + 120_000, v: 5 }, // a reset
      { labels: { tenant: tenantA, route: '/b' }, t: t0, v: 1 },
      { labels: { tenant: tenantB, route: '/a' }, t: t0, v: 999 },
    ]),
    {
      name: 'queue.depth',
      gauge: { dataPoints: [{ attributes: attrs({ tenant: tenantA }), timeUnixNano: nanos(t0), asInt: '7' }] },
    },
    {
      name: 'latency',
      histogram: {
        aggregationTemporality: 2,
        dataPoints: [
          {
            attributes: attrs({ tenant: tenantA }),
            timeUnixNano: nanos(t0),
            count: '6',
            sum: 1.5,
            bucketCounts: ['1', '2', '3'],
            explicitBounds: [0.1, 0.5],
          },
        ],
      },
    },
  ]);
  const posted = await call('POST', '/v1/metrics', undefined, body);
  expect(posted).toEqual({ status: 200, body: {} });

  const from = new Date(t0 - 60_000).toISOString();
  const to = new Date(t0 + 180_000).toISOString();
  const window = `from=${from}&to=${to}&step_seconds=60`;
  const a = await seriesOf(tenantA, `metric=orders_total&${window}&matchers=${encodeURIComponent('{"route":"/a"}')}`);
  expect(a.status).toBe(200);
  expect(a.body.series).toHaveLength(1);
  expect(a.body.series[0].labels).toEqual({ tenant: tenantA, route: '/a', service: 'shop' });
  expect(a.body.series[0].points.map((p: { v: number }) => p.v)).toEqual([10, 70, 5]);
  const rate = await seriesOf(
    tenantA,
    `metric=orders_total&${window}&rate=true&matchers=${encodeURIComponent('{"route":"/a"}')}`,
  );
  expect(rate.body.series[0].points.map((p: { v: number }) => p.v)).toEqual([1, 5 / 60]);
  expect((await seriesOf(tenantA, `metric=orders_total&${window}`)).body.series).toHaveLength(2);
  expect((await seriesOf(tenantA, `metric=queue_depth&${window}`)).body.series[0].points[0].v).toBe(7);
  const buckets = await seriesOf(tenantA, `metric=latency_bucket&${window}`);
  expect(Object.fromEntries(buckets.body.series.map((s: any) => [s.labels.le, s.points[0].v]))).toEqual({
    '0.1': 1,
    '0.5': 3,
    '+Inf': 6,
  });
  expect((await seriesOf(tenantA, `metric=latency_count&${window}`)).body.series[0].points[0].v).toBe(6);
  expect((await seriesOf(tenantA, `metric=latency_sum&${window}`)).body.series[0].points[0].v).toBe(1.5);

  // Tenant B sees its own series only; naming A is 403; platform series are for platform operators.
  const b = await seriesOf(tenantB, `metric=orders_total&${window}`);
  expect(b.body.series.map((s: any) => s.points[0].v)).toEqual([999]);
  expect((await seriesOf(tenantB, `metric=queue_depth&${window}`)).body.series).toEqual([]);
  expect((await seriesOf(tenantB, `metric=orders_total&${window}&tenant_id=${tenantA}`)).status).toBe(403);
  expect((await seriesOf(tenantB, `metric=orders_total&${window}&scope=platform`)).status).toBe(403);
  expect((await call('GET', `/metric-series?metric=orders_total&${window}`)).status).toBe(401);

  // The subgraph answers the same, and keeps tenants apart the same way.
  const gql = async (tenant: string) =>
    call('POST', '/graphql', tenant, {
      query: `query($m: String!, $from: String, $to: String) {
        metricSeries(metric: $m, from: $from, to: $to, stepSeconds: 60, matchers: {route: "/a"}) { metric labels points { t v } } }`,
      variables: { m: 'orders_total', from, to },
    });
  const ga = await gql(tenantA);
  expect(ga.body.data.metricSeries[0].points.map((p: { v: number }) => p.v)).toEqual([10, 70, 5]);
  const gb = await gql(tenantB);
  expect(gb.body.data.metricSeries[0].points.map((p: { v: number }) => p.v)).toEqual([999]);
});

it('bounds a query: no window over 7 days, no step giving over 11,000 points, bad matchers are 422', async () => {
  const all = await seriesOf(tenantA, `metric=orders_total&from=1970-01-01T00:00:00Z`);
  expect(all.status).toBe(422);
  expect(JSON.stringify(all.body.detail)).toContain('from');
  const fine = await seriesOf(
    tenantA,
    `metric=orders_total&from=${new Date(Date.now() - 6 * 86400_000).toISOString()}&step_seconds=1`,
  );
  expect(fine.status).toBe(422);
  expect((await seriesOf(tenantA, `metric=orders_total&matchers=notjson`)).status).toBe(422);
  expect((await seriesOf(tenantA, `metric=orders_total&matchers=${encodeURIComponent('{"a":1}')}`)).status).toBe(422);
  expect((await seriesOf(tenantA, ``)).status).toBe(422);
});

it('answers malformed and oversized OTLP bodies with 422, never 500', async () => {
  expect((await call('POST', '/v1/metrics', undefined, { nope: 1 })).status).toBe(422);
  const badPoint = otlp([{ name: 'x', gauge: { dataPoints: [{ timeUnixNano: 'soon', asDouble: 1 }] } }]);
  expect((await call('POST', '/v1/metrics', undefined, badPoint)).status).toBe(422);
  const noValue = otlp([{ name: 'x', gauge: { dataPoints: [{ timeUnixNano: nanos(t0) }] } }]);
  expect((await call('POST', '/v1/metrics', undefined, noValue)).status).toBe(422);
  const badName = otlp([{ name: 'x y', gauge: { dataPoints: [] } }]);
  expect((await call('POST', '/v1/metrics', undefined, badName)).status).toBe(422);
  // Under the body limit (no attributes), over the point limit: 422; over the body limit: 413.
  const tooMany = otlp([
    {
      name: 'many_total',
      gauge: { dataPoints: Array.from({ length: 10_001 }, () => ({ timeUnixNano: '1', asDouble: 1 })) },
    },
  ]);
  const res = await call('POST', '/v1/metrics', undefined, tooMany);
  expect(res.status).toBe(422);
  expect(JSON.stringify(res.body.detail)).toContain('At most 10000 data points');
  const huge = otlp([
    { name: 'huge', gauge: { dataPoints: [{ timeUnixNano: '1', asDouble: 1, pad: 'x'.repeat(2 << 20) }] } },
  ]);
  expect((await call('POST', '/v1/metrics', undefined, huge)).status).toBe(413);
});

it('holds a tenant sending 100,000 distinct label values to its series budget; another tenant is unaffected', async () => {
  const hostile = `met-h-${randomUUID().slice(0, 8)}`;
  let rejected = 0;
  // 20 bodies of 5,000 points (10,000 with labels would pass the 1 MB body limit).
  for (let batch = 0; batch < 20; batch++) {
    const points = Array.from({ length: 5_000 }, (_, i) => ({
      labels: { tenant: hostile, user: `u${batch * 5_000 + i}` },
      t: t0,
      v: 1,
    }));
    const res = await call('POST', '/v1/metrics', undefined, otlp([sum('explosion_total', points)]));
    expect(res.status).toBe(200);
    rejected += Number(res.body.partialSuccess?.rejectedDataPoints ?? 0);
  }
  expect(rejected).toBe(100_000 - BUDGET);
  const count = async (tenant: string) =>
    Number(
      (
        await h.db.sql.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM observability_metric_series WHERE tenant_id = $1',
          [tenant],
        )
      ).rows[0]!.n,
    );
  expect(await count(hostile)).toBe(BUDGET);

  // The hostile tenant's admitted series still take samples; tenant B's new series are all admitted.
  const again = await call(
    'POST',
    '/v1/metrics',
    undefined,
    otlp([sum('explosion_total', [{ labels: { tenant: hostile, user: 'u0' }, t: t0 + 1000, v: 2 }])]),
  );
  expect(again.body).toEqual({});
  const before = await count(tenantB);
  const fresh = Array.from({ length: 50 }, (_, i) => ({ labels: { tenant: tenantB, k: `v${i}` }, t: t0, v: i }));
  const b = await call('POST', '/v1/metrics', undefined, otlp([sum('b_total', fresh)]));
  expect(b.body).toEqual({});
  expect(await count(tenantB)).toBe(before + 50);
});

it('prunes samples past retention, and the alert evaluator reads stored series, a tenant rule its own only', async () => {
  const now = Date.now();
  const points = (tenant: string, v: number) => [{ labels: { tenant }, t: now - 30_000, v }];
  await call('POST', '/v1/metrics', undefined, otlp([{ name: 'stock_level', gauge: { dataPoints: [] } }]));
  const gauge = (tenant: string, v: number) => ({
    name: 'stock_level',
    gauge: {
      dataPoints: points(tenant, v).map((p) => ({
        attributes: attrs(p.labels),
        timeUnixNano: nanos(p.t),
        asDouble: p.v,
      })),
    },
  });
  expect((await call('POST', '/v1/metrics', undefined, otlp([gauge(tenantA, 3), gauge(tenantB, 500)]))).status).toBe(
    200,
  );

  const rule = { name: 'stock low', kind: 'threshold', metric: 'stock_level', op: '<', threshold: 5 };
  expect((await call('POST', '/alert-rules', tenantA, rule)).status).toBe(201);
  const ruleB = { ...rule, name: 'stock high', op: '>', threshold: 100 };
  expect((await call('POST', '/alert-rules', tenantB, ruleB)).status).toBe(201);
  const { evaluator } = createObservabilityModule(h.db, { source: { collect: async () => [] } });
  await evaluator.evaluate(now);
  const alerts = async (tenant: string) => (await call('GET', '/alerts', tenant)).body.alerts as any[];
  expect((await alerts(tenantA))[0]).toMatchObject({ state: 'firing', value: 3 });
  expect((await alerts(tenantB))[0]).toMatchObject({ state: 'firing', value: 500 });

  // Retention: everything older than an hour goes (the first test's samples are 10 minutes old).
  const { metrics } = createObservabilityModule(h.db, { clock: () => now + 3600_000 + 60_000 });
  expect(await metrics.prune(3600_000)).toBeGreaterThan(0);
  const left = await h.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM observability_metric_samples');
  expect(Number(left.rows[0]!.n)).toBe(0);
});
