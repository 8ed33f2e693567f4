// The request tally must leave GET /metrics exactly as prom-client wrote it when every request
// went through inc() and observe(): same names, help, labels, values and series order. The
// reference below is the registry as it was built before the tally (metrics.ts' earlier shape),
// fed the same requests one call each.
import { Counter, Histogram, Registry } from 'prom-client';
import { inProcessSource } from '../../../platform/telemetry/metric-source';
import { DURATION_BUCKETS, serviceMetrics, TENANT_BUDGET } from '../../../platform/telemetry/metrics';

interface Answered {
  method: string;
  route: string;
  status: number;
  seconds: number;
  tenant?: string;
  operation?: string;
}

function reference(service: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  const registers = [registry];
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template and status',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const errors = new Counter({
    name: 'http_request_errors_total',
    help: 'HTTP requests answered with a 5xx status',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response',
    labelNames: ['method', 'route'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const tenants = new Counter({
    name: 'tenant_requests_total',
    help: `Requests per tenant: the first ${TENANT_BUDGET} tenants seen have their own series, the rest are "other"`,
    labelNames: ['tenant'],
    registers,
  });
  const operations = new Counter({
    name: 'graphql_operations_total',
    help: 'GraphQL operations by name (first 200 names, then "other") and outcome',
    labelNames: ['operation', 'outcome'],
    registers,
  });
  const rateLimited = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 (rate limits, quotas)',
    labelNames: ['route'],
    registers,
  });
  return {
    registry,
    record(a: Answered) {
      const status = String(a.status);
      requests.inc({ method: a.method, route: a.route, status });
      if (a.status >= 500) errors.inc({ method: a.method, route: a.route, status });
      if (a.status === 429) rateLimited.inc({ route: a.route });
      duration.observe({ method: a.method, route: a.route }, a.seconds);
      if (a.tenant) tenants.inc({ tenant: a.tenant });
      if (a.operation) operations.inc({ operation: a.operation, outcome: a.status < 400 ? 'ok' : 'error' });
    },
  };
}

function tallied(service: string) {
  const m = serviceMetrics(service);
  return {
    registry: m.registry,
    record(a: Answered) {
      m.tally.request(a.method, a.route, a.status, a.seconds);
      if (a.tenant) m.tally.tenant(a.tenant);
      if (a.operation) m.tally.operation(a.operation, a.status < 400 ? 'ok' : 'error');
    },
  };
}

// Interleaved routes, methods and statuses (first-seen order matters), every bucket and beyond.
const round = (i: number): Answered[] => [
  { method: 'GET', route: '/a/:id', status: 200, seconds: 0.001 * (i % 13), tenant: 't1' },
  { method: 'POST', route: '/graphql', status: 200, seconds: 0.2, tenant: 't2', operation: 'Q' },
  { method: 'GET', route: '/b', status: 404, seconds: 12 },
  { method: 'GET', route: '/a/:id', status: 500, seconds: 0.03 * (i % 7), tenant: 't1' },
  { method: 'POST', route: '/graphql', status: 400, seconds: 1.5, operation: 'anonymous' },
  { method: 'GET', route: '/b', status: 429, seconds: 0.0049 },
  { method: 'DELETE', route: '/a/:id', status: 503, seconds: 6 },
];

test('tallied request metrics read exactly as prom-client wrote them per call, scrape after scrape', async () => {
  const ref = reference('tally-check');
  const ours = tallied('tally-check');
  for (let scrape = 0; scrape < 3; scrape++) {
    for (let i = 0; i < 40 * (scrape + 1); i++)
      for (const a of round(i + scrape)) [ref, ours].forEach((r) => r.record(a));
    if (scrape === 1) ours.record({ method: 'PATCH', route: '/c', status: 200, seconds: 0.07 });
    if (scrape === 1) ref.record({ method: 'PATCH', route: '/c', status: 200, seconds: 0.07 });
    expect(await ours.registry.metrics()).toBe(await ref.registry.metrics());
    expect(await ours.registry.getMetricsAsJSON()).toEqual(await ref.registry.getMetricsAsJSON());
  }
});

test('the alert evaluator reads the tallied samples with every label', async () => {
  const { tally } = serviceMetrics('tally-alerts');
  tally.request('GET', '/x', 503, 0.02);
  tally.request('GET', '/x', 200, 0.2);
  const samples = await inProcessSource().collect(
    new Set([
      'http_request_errors_total',
      'http_request_duration_seconds_bucket',
      'http_request_duration_seconds_count',
    ]),
  );
  const mine = samples.filter((s) => s.labels.service === 'tally-alerts');
  expect(mine).toContainEqual({
    name: 'http_request_errors_total',
    labels: { service: 'tally-alerts', method: 'GET', route: '/x', status: '503' },
    value: 1,
  });
  expect(mine).toContainEqual({
    name: 'http_request_duration_seconds_bucket',
    labels: { service: 'tally-alerts', le: '0.025', method: 'GET', route: '/x' },
    value: 1,
  });
  expect(mine).toContainEqual({
    name: 'http_request_duration_seconds_count',
    labels: { service: 'tally-alerts', method: 'GET', route: '/x' },
    value: 2,
  });
});
