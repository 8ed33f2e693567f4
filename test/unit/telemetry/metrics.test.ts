// The cardinality budget and the per-service registries: 100,000 distinct tenants (or operation
// names one tenant invents) stay within the budget's series, the tenants admitted first keep
// exact counts, and another service's metrics are unaffected.
import { LabelBudget, OTHER } from '../../../platform/telemetry/label-budget';
import { metricsText, serviceMetrics, TENANT_BUDGET } from '../../../platform/telemetry/metrics';

const seriesOf = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`));

test('a label budget admits its size, then answers "other"', () => {
  const budget = new LabelBudget(3);
  expect(['a', 'b', 'a', 'c', 'd', 'e'].map((v) => budget.label(v))).toEqual(['a', 'b', 'a', 'c', OTHER, OTHER]);
  expect(budget.label('b')).toBe('b');
  expect(budget.label(undefined)).toBe('none');
  // A value named like the overflow bucket does not take a seat.
  expect(new LabelBudget(2).label(OTHER)).toBe(OTHER);
});

test('100,000 distinct tenant values: the series stay within the budget, others unaffected', async () => {
  const busy = serviceMetrics('budget-busy');
  const quiet = serviceMetrics('budget-quiet');
  quiet.tenantRequests.inc({ tenant: quiet.tenants.label('acme') });
  for (let i = 0; i < 100_000; i++) busy.tenantRequests.inc({ tenant: busy.tenants.label(`t-${i}`) });
  // A tenant admitted first keeps its own exact count.
  busy.tenantRequests.inc({ tenant: busy.tenants.label('t-0') });

  const text = (await metricsText('budget-busy')).body;
  const series = seriesOf(text, 'tenant_requests_total');
  expect(series).toHaveLength(TENANT_BUDGET + 1);
  expect(series).toContain('tenant_requests_total{tenant="t-0",service="budget-busy"} 2');
  expect(series).toContain(`tenant_requests_total{tenant="other",service="budget-busy"} ${100_000 - TENANT_BUDGET}`);

  const other = seriesOf((await metricsText('budget-quiet')).body, 'tenant_requests_total');
  expect(other).toEqual(['tenant_requests_total{tenant="acme",service="budget-quiet"} 1']);
});

test('the process metrics are served with every service', async () => {
  const { body, contentType } = await metricsText('budget-quiet');
  expect(contentType).toMatch(/^text\/plain/);
  expect(body).toContain('process_cpu_seconds_total');
  expect(body).toContain('# TYPE http_request_duration_seconds histogram');
});
