// The OTLP traces receiver and the trace queries on a real database: a trace of tenant A is 404
// for tenant B (as a missing one is) and naming A is 403; the search returns the caller's spans
// only; a span re-sent by an exporter's retry is stored once; PII in attributes is redacted before
// storage; a search over all time is 422; malformed bodies are 422.
import { randomBytes, randomUUID } from 'node:crypto';
import { AccessTokens } from '../../../platform/auth/jwt';
import { observabilityService } from '../../../services/observability';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';

jest.setTimeout(120_000);

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const tenantA = `tr-a-${randomUUID().slice(0, 8)}`;
const tenantB = `tr-b-${randomUUID().slice(0, 8)}`;
const token = (tenantId: string) =>
  tokens.issue({ username: `user-${tenantId}`, tenantId, roles: ['user'], scopes: ['read'] });

let h: Harness;
let obs: string;

async function call(method: string, path: string, tenant?: string, body?: unknown) {
  const res = await fetch(obs + path, {
    method,
    headers: {
      ...(tenant ? { authorization: `Bearer ${await token(tenant)}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

const now = BigInt(Date.now()) * 1_000_000n;
const span = (traceId: string, tenant: string, name: string, extra: Record<string, string> = {}) => ({
  traceId,
  spanId: randomBytes(8).toString('hex'),
  name,
  startTimeUnixNano: String(now),
  endTimeUnixNano: String(now + 2_000_000n),
  attributes: Object.entries({ 'platform.tenant_id': tenant, ...extra }).map(([key, v]) => ({
    key,
    value: { stringValue: v },
  })),
});
const body = (spans: unknown[]) => ({
  resourceSpans: [
    { resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] }, scopeSpans: [{ spans }] },
  ],
});

beforeAll(async () => {
  h = await startServices([observabilityService], { OBSERVABILITY_ALERT_EVAL_MS: '0', OBSERVABILITY_RECORD_MS: '0' });
  obs = h.services.observability!.url;
});
afterAll(async () => {
  await h?.close();
});

it("keeps a tenant's traces from another tenant, stores a re-sent span once, and redacts PII", async () => {
  const traceA = randomBytes(16).toString('hex');
  const traceB = randomBytes(16).toString('hex');
  const spansA = [span(traceA, tenantA, 'GET /a', { 'user.email': 'jane@example.com' }), span(traceA, tenantA, 'db')];
  const sent = body([...spansA, span(traceB, tenantB, 'GET /b')]);
  expect((await call('POST', '/v1/traces', undefined, sent)).status).toBe(200);
  expect((await call('POST', '/v1/traces', undefined, body(spansA))).status).toBe(200); // a retry

  const a = await call('GET', `/traces/${traceA}`, tenantA);
  expect(a.status).toBe(200);
  expect(a.body.spans).toHaveLength(2);
  expect(JSON.stringify(a.body)).not.toContain('jane@example.com');
  expect((await call('GET', `/traces/${traceA}`, tenantB)).status).toBe(404);
  expect((await call('GET', `/traces/${randomBytes(16).toString('hex')}`, tenantA)).status).toBe(404);
  expect((await call('GET', `/traces/${traceA}?tenant_id=${tenantA}`, tenantB)).status).toBe(403);
  expect((await call('GET', `/traces/${traceA}`)).status).toBe(401);

  const searchB = await call('GET', '/traces', tenantB);
  expect(searchB.body.spans.map((s: { name: string }) => s.name)).toEqual(['GET /b']);
  const searchA = await call('GET', '/traces?operation=db', tenantA);
  expect(searchA.body.spans.map((s: { trace_id: string }) => s.trace_id)).toEqual([traceA]);
});

it('bounds the search and answers malformed bodies with 422', async () => {
  expect((await call('GET', '/traces?from=1970-01-01T00:00:00Z', tenantA)).status).toBe(422);
  expect((await call('GET', '/traces?limit=1000', tenantA)).status).toBe(422);
  expect((await call('POST', '/v1/traces', undefined, { resourceSpans: 'x' })).status).toBe(422);
  const badId = body([{ ...span('zz', tenantA, 'x') }]);
  expect((await call('POST', '/v1/traces', undefined, badId)).status).toBe(422);
});
