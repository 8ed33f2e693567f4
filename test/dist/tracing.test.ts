// Tracing as users run it: `node dist/launcher/start-all.js` under Node's own module loader (the
// instrumentations patch libraries through require hooks, which jest's module registry bypasses),
// with OTEL_EXPORTER_OTLP_ENDPOINT at an OTLP/HTTP receiver this test runs. One GraphQL mutation
// through the router registers a schema; its audit event goes through the outbox to the ledger.
// The spans of that one trace must cover the router, the subgraph, the outbox relay's delivery
// and the ledger append (with the ledger position), and the ledger entry must carry the trace id.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, until } from '../support/waiting';
import { buildDist, createDistDatabase, startDist, type DistProcess } from './dist.support';
import { SERVICES } from '../../launcher/registry';
import { AccessTokens } from '../../platform/auth/jwt';

jest.setTimeout(300_000);

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number; boolValue?: boolean } }[];
}

const spans: OtlpSpan[] = [];
const bodies: string[] = [];
let receiver: http.Server;
let platform: DistProcess;
let dataDir: string;
let database: { url: string; drop(): Promise<void> } | undefined;
const url: Record<string, string> = {};

const JWT_SECRET = 'dist-tracing-secret-that-is-long-enough-for-hs256-0123456789';

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.intValue ?? v?.boolValue;
};

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        bodies.push(body);
        const parsed = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const rs of parsed.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  await buildDist();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'dist-tracing-'));
  database = await createDistDatabase();
  const env: NodeJS.ProcessEnv = {
    JWT_SECRET_KEY: JWT_SECRET,
    PASSWORD_SCRYPT_LOG_N: '10',
    OCR_WORKERS: '1',
    LOG_LEVEL: 'WARNING',
    IDENTITY_MFA_REQUIRED_ROLES: 'none',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
  };
  if (database) env.DATABASE_URL = database.url;
  else env.PGLITE_DIR = path.join(dataDir, 'pglite');
  for (const s of SERVICES) {
    const port = await freePort();
    env[`${s.name.toUpperCase().replace(/-/g, '_')}_PORT`] = String(port);
    url[s.name] = `http://127.0.0.1:${port}`;
  }
  platform = startDist(['node', 'dist/launcher/start-all.js'], env);
  for (const s of SERVICES) {
    await platform.waitFor(() => fetch(`${url[s.name]}/readyz`).then((r) => r.ok, () => false), `${s.name} /readyz`);
  }
}, 900_000);

afterAll(async () => {
  await platform?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await database?.drop().catch(() => undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 90_000);

test('one trace from the router through the subgraph, the outbox relay and the ledger append', async () => {
  try {
    const login = await fetch(`${url.identity}/v1/auth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: 'admin', password: 'admin-dev-password' }),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const res = await fetch(`${url.gateway}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation { registerSchema(name: "trace-check", version: "1.0.0", definition: {type: "object"}) { name version } }',
      }),
    });
    const answer = (await res.json()) as { errors?: unknown };
    expect(answer.errors).toBeUndefined();

    // The ledger entry the outbox relay wrote for the registration, with its trace id.
    let entry: { trace_id: string | null; seq: number } | undefined;
    await until(async () => {
      const page = await fetch(`${url.ledger}/events?tenant_id=default&event_type=schema_registered&limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json() as Promise<{ events: { trace_id: string | null; seq: number; event_data: { name?: string } }[] }>);
      entry = page.events.find((e) => e.event_data.name === 'trace-check');
      return entry !== undefined;
    }, 'the audit event in the ledger', { tries: 600, everyMs: 100 });
    expect(entry!.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const traceId = entry!.trace_id!;

    // Its trace, as the receiver got it: the router's server span, the subgraph's, the relay's
    // delivery, the ledger's append with the position it wrote.
    const ofTrace = () => spans.filter((s) => s.traceId === traceId);
    await until(
      // The relay's span ends after the append's, so it may come in a later export batch.
      async () =>
        ofTrace().some((s) => attr(s, 'ledger.seq') !== undefined) && ofTrace().some((s) => s.name === 'outbox.deliver'),
      'the ledger append and the relay delivery spans in the exported trace',
      { tries: 300, everyMs: 100 },
    );
    const trace = ofTrace();
    const services = new Set(trace.map((s) => attr(s, 'platform.service')).filter(Boolean));
    // The gateway may also read the tenant's rate limit from the config service on the way.
    expect([...services]).toEqual(expect.arrayContaining(['gateway', 'schema-registry', 'ledger']));
    expect([...services].every((s) => ['gateway', 'schema-registry', 'ledger', 'config'].includes(String(s)))).toBe(true);
    expect(trace.some((s) => s.name === 'outbox.deliver')).toBe(true);
    expect(trace.some((s) => /graphql/i.test(s.name))).toBe(true);
    const append = trace.find((s) => attr(s, 'ledger.seq') !== undefined)!;
    expect(Number(attr(append, 'ledger.seq'))).toBe(entry!.seq);
    // One tree: every span but the root has its parent in the trace.
    const ids = new Set(trace.map((s) => s.spanId));
    const roots = trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
    expect(roots).toHaveLength(1);
    // Telemetry requests are not traced themselves (no span for the exporter's own posts).
    expect(spans.some((s) => attr(s, 'url.path') === '/v1/traces')).toBe(false);
  } catch (err) {
    throw platform.explain(err);
  }
});

// Issue 31's "done when": a request through the router to a workflow with an AI step is one trace
// across the router, the workflow service, its call to the AI broker, the outbox relay and the
// ledger append, and the workflow's ledger entry links to it.
test('one trace from the router through a workflow with an AI step to the ledger entry that links to it', async () => {
  try {
    const tokens = new AccessTokens(JWT_SECRET, 3600);
    const alice = await tokens.issue({ username: 'alice', tenantId: 'default', roles: ['user'], scopes: ['read', 'write'] });
    const rita = await tokens.issue({ username: 'rita', tenantId: 'default', roles: ['reviewer'], scopes: ['read', 'write'] });
    const post = (path: string, token: string, body?: unknown) =>
      fetch(`${url.gateway}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const artifact = {
      metadata: { pack_id: 'trace-ai', version: '1.0.0', workflow_type: 'operational', name: 'Traced AI step' },
      steps: [
        { step: 'ticket', type: 'action', action: 'set', parameters: { value: 'T-1' }, output_field: 'ticket' },
        { step: 'summarise', type: 'ai', model: 'extractive', prompt: 'Summarise ticket {{ticket}}.', output_field: 'summary' },
      ],
    };
    expect((await post('/api/v1/packs', alice, { artifact, format: 'json' })).status).toBe(201);
    expect((await post('/api/v1/packs/trace-ai/versions/1.0.0/certify', rita)).status).toBe(200);
    const res = await post('/graphql', alice, {
      query: 'mutation ($input: ExecuteWorkflowInput!) { executeWorkflow(input: $input) { status workflowId } }',
      variables: { input: { workflowPackId: 'trace-ai', workflowType: 'operational', payload: {} } },
    });
    const answer = (await res.json()) as { errors?: unknown; data: { executeWorkflow: { status: string; workflowId: string } } };
    expect(answer.errors).toBeUndefined();
    expect(answer.data.executeWorkflow.status).toBe('COMPLETED');
    const workflowId = answer.data.executeWorkflow.workflowId;

    let entry: { trace_id: string | null; seq: number } | undefined;
    await until(async () => {
      const page = await fetch(`${url.ledger}/events?tenant_id=default&event_type=workflow_execution&limit=20`, {
        headers: { authorization: `Bearer ${alice}` },
      }).then((r) => r.json() as Promise<{ events: { trace_id: string | null; seq: number; event_data: { workflow_id?: string } }[] }>);
      entry = page.events.find((e) => e.event_data.workflow_id === workflowId);
      return entry !== undefined;
    }, 'the workflow_execution entry in the ledger', { tries: 600, everyMs: 100 });
    expect(entry!.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const traceId = entry!.trace_id!;
    const ofTrace = () => spans.filter((s) => s.traceId === traceId);
    await until(
      async () =>
        ofTrace().some((s) => Number(attr(s, 'ledger.seq')) === entry!.seq) &&
        ofTrace().some((s) => s.name === 'outbox.deliver') &&
        ofTrace().some((s) => attr(s, 'platform.service') === 'ai-broker') &&
        // The router's span ends after its response, and may leave in a batch after the ledger's.
        ofTrace().some((s) => attr(s, 'platform.service') === 'gateway'),
      'the router, AI broker, relay and ledger append spans in the exported trace',
      { tries: 300, everyMs: 100 },
    );
    const trace = ofTrace();
    const services = new Set(trace.map((s) => attr(s, 'platform.service')).filter(Boolean));
    expect([...services]).toEqual(expect.arrayContaining(['gateway', 'workflow', 'ai-broker', 'ledger']));
    const ids = new Set(trace.map((s) => s.spanId));
    expect(trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId))).toHaveLength(1);
  } catch (err) {
    throw platform.explain(err);
  }
});

test('/metrics answers on every service, in Prometheus text', async () => {
  for (const s of SERVICES) {
    const res = await fetch(`${url[s.name]}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toContain(`http_requests_total{`);
    expect(text).toContain('process_cpu_seconds_total');
  }
  const gateway = await (await fetch(`${url.gateway}/metrics`)).text();
  expect(gateway).toMatch(/graphql_operations_total\{operation="anonymous",outcome="ok",service="gateway"\} [1-9]/);
  expect(gateway).toMatch(/outbox_pending_events\{queue="audit"\} \d/);
});

test('the observability service stores OTLP spans and answers a trace of the tenant by id', async () => {
  try {
    const login = await fetch(`${url.identity}/v1/auth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'password', username: 'admin', password: 'admin-dev-password' }),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    // What the platform exported (to this test's receiver) replayed into the embedded receiver.
    // A snapshot: the platform keeps exporting while this test posts.
    const sent = bodies.slice();
    const sentSpans = sent.flatMap((b) =>
      (JSON.parse(b) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) => ss.spans),
      ),
    );
    for (const body of sent) {
      const res = await fetch(`${url.observability}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(200);
    }
    const tenantSpan = sentSpans.find((s) => attr(s, 'platform.tenant_id') === 'default')!;
    const auth = { authorization: `Bearer ${token}` };
    const found = await fetch(`${url.observability}/traces/${tenantSpan.traceId}`, { headers: auth });
    expect(found.status).toBe(200);
    const trace = (await found.json()) as { spans: { span_id: string }[] };
    // Every span of the trace the tenant may see: its own and the untenanted ones (relay, database),
    // never another tenant's (a service identity's call for another tenant, say).
    const visible = sentSpans.filter(
      (s) => s.traceId === tenantSpan.traceId && [undefined, 'default'].includes(attr(s, 'platform.tenant_id') as string | undefined),
    );
    expect(trace.spans.length).toBe(visible.length);
    // A trace of no span of this tenant is 404, as a missing one is.
    expect((await fetch(`${url.observability}/traces/${'ab'.repeat(16)}`, { headers: auth })).status).toBe(404);
    // Malformed OTLP is refused as input, never a 500.
    const bad = await fetch(`${url.observability}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz"}]}]}]}' });
    expect(bad.status).toBe(422);
    // A search is bounded: a window over all time is refused.
    const all = await fetch(`${url.observability}/traces?from=1970-01-01T00:00:00Z`, { headers: auth });
    expect(all.status).toBe(422);
    const recent = await fetch(`${url.observability}/traces?service=ledger&limit=5`, { headers: auth });
    expect(recent.status).toBe(200);
  } catch (err) {
    throw platform.explain(err);
  }
});
