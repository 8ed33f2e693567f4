// Alert rules end to end on a real database: a rate rule held `for` 30 s fires to a webhook
// receiver (a real HTTP server) through the notice outbox, the backbone and the events service's
// signed delivery; it resolves; a silence holds the next firing (no notice written) until it is
// expired, when the held notification goes out. Time is stepped: the evaluator takes `now` from
// the test (the service's own loop is off, OBSERVABILITY_ALERT_EVAL_MS=0), no sleeps assert time.
// Tenancy: another tenant sees none of it (404s, empty lists, no webhook queued), a tenant rule
// reads its own tenant's series only, platform scope is for platform operators.
import { randomUUID } from 'node:crypto';
import { Counter } from 'prom-client';
import { Webhook } from 'standardwebhooks';
import { AccessTokens } from '../../../platform/auth/jwt';
import { serviceMetrics } from '../../../platform/telemetry/metrics';
import { eventsService } from '../../../services/events';
import { observabilityService } from '../../../services/observability';
import { createObservabilityModule } from '../../../subgraphs/observability/observability.module';
import type { AlertEvaluator } from '../../../subgraphs/observability/alert.evaluator';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { startReceiver, type Receiver } from '../../integration/events/webhooks.receiver';

jest.setTimeout(120_000);

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const tenantA = `obs-a-${randomUUID().slice(0, 8)}`;
const tenantB = `obs-b-${randomUUID().slice(0, 8)}`;
const token = (tenantId: string, roles = ['user']) =>
  tokens.issue({ username: `user-${tenantId}`, tenantId, roles, scopes: ['read', 'write'] });

// A service's metric with a tenant label, in the process registries the evaluator reads.
const failures = new Counter({
  name: 'alert_test_failures_total',
  help: 'test',
  labelNames: ['tenant'],
  registers: [serviceMetrics('alert-test').registry],
});

let h: Harness;
let receiver: Receiver;
let obs: string;
let events: string;
let evaluator: AlertEvaluator;
let secretA: string;

async function call(base: string, method: string, path: string, tenant: string, body?: unknown, roles?: string[]) {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${await token(tenant, roles)}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

const alertHooks = (path: string) =>
  receiver.received
    .filter((r) => r.path === path)
    .map((r) => JSON.parse(r.body) as { type: string; tenantid: string; data: Record<string, any> });

const observabilityNotices = async () =>
  Number(
    (
      await h.db.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM notice_outbox WHERE service = 'observability' AND tenant_id = $1`,
        [tenantA],
      )
    ).rows[0]!.n,
  );

beforeAll(async () => {
  receiver = await startReceiver();
  h = await startServices([eventsService, observabilityService], {
    EVENTS_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
    EVENTS_WEBHOOK_POLL_MS: '20',
    NOTICE_RELAY_POLL_MS: '20',
    OBSERVABILITY_ALERT_EVAL_MS: '0',
  });
  obs = h.services.observability!.url;
  events = h.services.events!.url;
  evaluator = createObservabilityModule(h.db).evaluator;
  const a = await call(events, 'POST', '/webhooks', tenantA, {
    url: receiver.url('/a'),
    topics: ['observability.*'],
  });
  expect(a.status).toBe(201);
  secretA = a.body.secret as string;
  const b = await call(events, 'POST', '/webhooks', tenantB, { url: receiver.url('/b'), topics: ['observability.*'] });
  expect(b.status).toBe(201);
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

const rule = {
  name: 'failures climbing',
  kind: 'rate',
  metric: 'alert_test_failures_total',
  op: '>',
  threshold: 0.1,
  window_seconds: 60,
  for_seconds: 30,
  severity: 'page',
  summary: 'More than one failure per 10 s',
};

it('fires to a webhook receiver after `for`, resolves, and a silence holds the next firing until it ends', async () => {
  const created = await call(obs, 'POST', '/alert-rules', tenantA, rule);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ scope: 'tenant', kind: 'rate', for_seconds: 30, created_by: `user-${tenantA}` });
  const ruleId = created.body.id as string;
  const t0 = Date.now();
  failures.inc({ tenant: tenantA }, 0); // the series exists from the first sample (a rate needs two)
  const step = async (seconds: number, add = 0) => {
    if (add) failures.inc({ tenant: tenantA }, add);
    // A series of another tenant (which the tenant's rule must not read).
    failures.inc({ tenant: tenantB }, 1000);
    return evaluator.evaluate(t0 + seconds * 1000);
  };

  expect((await step(0)).notifications).toEqual([]); // one sample: no rate yet
  expect((await step(30, 10)).notifications).toEqual([]); // 10 in 30 s: true, pending for 30 s
  let alerts = await call(obs, 'GET', '/alerts', tenantA);
  expect(alerts.body.alerts[0]).toMatchObject({ state: 'pending', notified: false });
  expect((await step(60, 10)).notifications).toEqual([{ ruleId, status: 'firing' }]);

  await until(() => alertHooks('/a').length === 1, 'the firing webhook');
  const [firing] = alertHooks('/a');
  expect(firing).toMatchObject({
    type: 'observability.alert',
    tenantid: tenantA,
    data: { rule_id: ruleId, status: 'firing', alertname: 'failures climbing', severity: 'page', threshold: 0.1 },
  });
  expect(firing!.data.value).toBeCloseTo(20 / 60, 5);
  // Signed as every webhook is (Standard Webhooks, the endpoint's secret).
  const got = receiver.received.find((r) => r.path === '/a')!;
  expect(() => new Webhook(secretA).verify(got.body, got.headers)).not.toThrow();

  // No failures for a window: the rate has no data, the alert resolves, and says so.
  expect((await step(130)).notifications).toEqual([{ ruleId, status: 'resolved' }]);
  await until(() => alertHooks('/a').length === 2, 'the resolved webhook');
  expect(alertHooks('/a')[1]!.data).toMatchObject({
    status: 'resolved',
    ends_at: new Date(t0 + 130_000).toISOString(),
  });

  // A silence on the alert's name: the next firing writes no notice at all.
  const silence = await call(obs, 'POST', '/silences', tenantA, {
    matchers: { alertname: 'failures climbing' },
    ends_at: new Date(Date.now() + 3600_000).toISOString(),
    comment: 'deploy in progress',
  });
  expect(silence.status).toBe(201);
  expect(silence.body).toMatchObject({ created_by: `user-${tenantA}`, comment: 'deploy in progress' });
  const before = await observabilityNotices();
  expect((await step(160, 10)).notifications).toEqual([]);
  expect((await step(190, 10)).notifications).toEqual([]);
  alerts = await call(obs, 'GET', '/alerts?firing=true', tenantA);
  expect(alerts.body.alerts).toHaveLength(1);
  expect(alerts.body.alerts[0]).toMatchObject({ state: 'firing', notified: false, silenced_by: silence.body.id });
  expect(await observabilityNotices()).toBe(before);

  // The silence ends: the held firing goes out at the next evaluation.
  const expired = await call(obs, 'POST', `/silences/${silence.body.id as string}/expire`, tenantA);
  expect(expired.status).toBe(200);
  expect((await step(220, 10)).notifications).toEqual([{ ruleId, status: 'firing' }]);
  await until(() => alertHooks('/a').length === 3, 'the firing webhook after the silence');
  expect(alertHooks('/a')[2]!.data).toMatchObject({ status: 'firing', rule_id: ruleId });
  expect((await call(obs, 'GET', '/silences', tenantA)).body.silences).toEqual([]);
  expect((await call(obs, 'GET', '/silences?all=true', tenantA)).body.silences).toHaveLength(1);
});

it("another tenant sees none of it, and a tenant's rule reads its own tenant's series only", async () => {
  const a = await call(obs, 'GET', '/alert-rules', tenantA);
  const ruleId = a.body.rules[0].id as string;
  expect((await call(obs, 'GET', '/alert-rules', tenantB)).body.rules).toEqual([]);
  expect((await call(obs, 'GET', '/alerts', tenantB)).body.alerts).toEqual([]);
  expect((await call(obs, 'GET', '/silences?all=true', tenantB)).body.silences).toEqual([]);
  expect((await call(obs, 'DELETE', `/alert-rules/${ruleId}`, tenantB)).status).toBe(404);
  const silenceId = (await call(obs, 'GET', '/silences?all=true', tenantA)).body.silences[0].id as string;
  expect((await call(obs, 'POST', `/silences/${silenceId}/expire`, tenantB)).status).toBe(404);
  // A user naming another tenant: 403, as everywhere.
  expect((await call(obs, 'GET', `/alerts?tenant_id=${tenantA}`, tenantB)).status).toBe(403);
  // B's endpoint never had anything queued.
  const queued = await h.db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_queue q JOIN webhook_endpoints e ON e.id = q.endpoint_id WHERE e.tenant_id = $1`,
    [tenantB],
  );
  expect(Number(queued.rows[0]!.n)).toBe(0);
  expect(alertHooks('/b')).toEqual([]);

  // B's own rule over the same metric: B's series grows by 1000 per step, A's does not count.
  const own = await call(obs, 'POST', '/alert-rules', tenantB, {
    name: 'b-threshold',
    kind: 'threshold',
    metric: 'alert_test_failures_total',
    op: '<',
    threshold: 1000,
  });
  expect(own.status).toBe(201);
  await evaluator.evaluate(Date.now() + 600_000);
  const b = (await call(obs, 'GET', '/alerts', tenantB)).body.alerts[0];
  expect(b.value).toBeGreaterThanOrEqual(1000); // B's own series only (A's alone is 60)
  expect(b.state).toBe('inactive');
});

it('validates rules and silences (422 naming the field), and keeps platform scope for operators', async () => {
  const bad = await call(obs, 'POST', '/alert-rules', tenantA, {
    ...rule,
    name: 'x',
    window_seconds: 5,
    severity: 'BAD',
  });
  expect(bad.status).toBe(422);
  const fields = (bad.body.detail as { loc: string[] }[]).map((d) => d.loc[d.loc.length - 1]);
  expect(fields).toEqual(expect.arrayContaining(['window_seconds', 'severity']));
  expect((await call(obs, 'POST', '/alert-rules', tenantA, rule)).status).toBe(409);
  expect((await call(obs, 'POST', '/alert-rules', tenantA, { ...rule, name: 'p', scope: 'platform' })).status).toBe(
    403,
  );
  const op = await call(obs, 'POST', '/alert-rules', tenantA, { ...rule, name: 'p', scope: 'platform' }, [
    'platform-admin',
  ]);
  expect(op.status).toBe(201);
  const noWhy = await call(obs, 'POST', '/silences', tenantA, {
    matchers: { alertname: 'p' },
    ends_at: new Date(Date.now() + 60_000).toISOString(),
    comment: ' ',
  });
  expect(noWhy.status).toBe(422);
  const past = await call(obs, 'POST', '/silences', tenantA, {
    matchers: {},
    ends_at: '2000-01-01T00:00:00Z',
    comment: 'why',
  });
  expect(past.status).toBe(422);
  expect((await fetch(obs + '/alerts')).status).toBe(401);
});
