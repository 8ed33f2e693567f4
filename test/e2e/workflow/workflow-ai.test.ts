// ai steps against the real AI broker (its offline `extractive` model: no vendor needed): a
// prompt rendered from the workflow data, a tenant's template with variables from the payload
// and an earlier step's output, the step's idempotency key arriving at the broker as
// `Idempotency-Key`, a template the broker does not know failing the step for good, and a broker
// that is down: retried, then the completed steps compensated. A recording proxy sits between the
// workflow service and the broker, so the test sees what reaches the broker and can take it down.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccessTokens } from '../../../platform/auth/jwt';
import { defineAiBrokerService } from '../../../services/ai-broker';
import { defineWorkflowService } from '../../../services/workflow';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call, PacksStandIn, startCallee, type Callee } from './workflow.support';

jest.setTimeout(120_000);

let harness: Harness;
let url: string;
let brokerUrl: string;
let callee: Callee;
let proxy: http.Server;
let proxyUrl: string;
let brokerDown = false;
const seen: { path: string; key: string | undefined; body: any }[] = [];
const packs = new PacksStandIn();
let alice: string;
const issue = (username: string, tenantId: string) =>
  new AccessTokens(TEST_JWT_SECRET, 3600).issue({ username, tenantId, roles: ['user'], scopes: ['read', 'write'] });

beforeAll(async () => {
  callee = await startCallee();
  proxy = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', async () => {
      seen.push({
        path: req.url ?? '',
        key: req.headers['idempotency-key'] as string | undefined,
        body: text ? JSON.parse(text) : undefined,
      });
      if (brokerDown) {
        res
          .writeHead(503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ detail: { message: 'every model failed', attempts: [] } }));
        return;
      }
      const headers: Record<string, string> = {};
      for (const h of ['authorization', 'content-type', 'x-tenant-id', 'x-correlation-id', 'idempotency-key'])
        if (req.headers[h]) headers[h] = String(req.headers[h]);
      const upstream = await fetch(`${brokerUrl}${req.url}`, { method: req.method, headers, body: text || undefined });
      res
        .writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' })
        .end(await upstream.text());
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  harness = await startServices([defineAiBrokerService(), defineWorkflowService({ packs })], {
    AI_BROKER_URL: proxyUrl,
    WORKFLOW_RETRY_BASE_MS: '5',
    WORKFLOW_POLL_MS: '20',
    WORKFLOW_STEP_MAX_ATTEMPTS: '3',
  });
  url = harness.services.workflow!.url;
  brokerUrl = harness.services['ai-broker']!.url;
  alice = await issue('alice', 'ai-tenant');
});

afterAll(async () => {
  await harness?.close();
  await callee?.close();
  await new Promise((r) => proxy?.close(r));
});

const pack = (packId: string, steps: unknown[]) => ({
  metadata: { pack_id: packId, version: '1.0.0', workflow_type: 'operational', name: packId },
  steps,
});
const execute = (packId: string, payload: unknown) =>
  call(`${url}/execute`, { token: alice, body: { workflow_pack_id: packId, workflow_type: 'operational', payload } });
const status = (id: string) => call(`${url}/status/${id}`, { token: alice });

it("a prompt step asks the broker with the data rendered in and the step's idempotency key; its answer feeds later steps", async () => {
  packs.put(
    pack('ai-prompt', [
      {
        step: 'summarise',
        type: 'ai',
        model: 'extractive',
        prompt: 'Summarise the claim of {{customer.name}} for {{amount}} USD.',
        input_field: 'claim',
        output_field: 'summary',
      },
      { step: 'file', type: 'action', action: 'http', parameters: { url: `${callee.url}/file` } },
    ]),
  );
  const r = await execute('ai-prompt', {
    customer: { name: 'ACME Ltd' },
    amount: 1200,
    claim: { reason: 'water damage' },
  });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'completed', pack_source: 'registry' });
  const id = r.body.workflow_id as string;
  const asked = seen.filter((s) => s.key === `${id}:summarise`);
  expect(asked).toHaveLength(1);
  expect(asked[0]!.path).toBe('/api/ai/inference');
  expect(asked[0]!.body).toEqual({
    model: 'extractive',
    prompt: 'Summarise the claim of ACME Ltd for 1200 USD.\n\nInput:\n{"reason":"water damage"}',
  });
  const s = await status(id);
  const step = s.body.steps.find((x: any) => x.step === 'summarise');
  expect(step).toMatchObject({ status: 'completed', attempts: 1 });
  expect(step.output).toMatchObject({
    model_used: 'extractive',
    provider: 'extractive',
    response: expect.any(String),
    correlation_id: expect.any(String),
  });
});

it("a template step renders variables from the payload and an earlier step's output (types kept) and names the template version used", async () => {
  const created = await call(`${brokerUrl}/api/ai/prompts`, {
    token: alice,
    body: {
      template_id: 'claim-note',
      name: 'Claim note',
      template: 'Note for {{customer}}: {{amount}} USD, ticket {{ticket}}.',
      variables: ['customer', 'amount', 'ticket'],
    },
  });
  expect(created.status).toBe(201);
  packs.put(
    pack('ai-template', [
      {
        step: 'open-ticket',
        type: 'action',
        action: 'set',
        parameters: { value: { id: 'T-77' } },
        output_field: 'ticket',
      },
      {
        step: 'note',
        type: 'ai',
        template_id: 'claim-note',
        variables: { customer: 'Customer {{customer}}', amount: '{{amount}}', ticket: '{{ticket.id}}' },
        output_field: 'note',
      },
    ]),
  );
  const r = await execute('ai-template', { customer: 'ACME', amount: 99 });
  expect(r.body).toMatchObject({ status: 'completed' });
  const asked = seen.find((s) => s.key === `${r.body.workflow_id}:note`)!;
  expect(asked.body).toEqual({
    template_id: 'claim-note',
    variables: { customer: 'Customer ACME', amount: 99, ticket: 'T-77' },
  });
  const s = await status(r.body.workflow_id);
  expect(s.body.steps.find((x: any) => x.step === 'note').output).toMatchObject({
    template: { template_id: 'claim-note', version: 1 },
  });
});

it('a template the broker does not know fails the step at once (a 404 is not retried) and the saga compensates', async () => {
  packs.put(
    pack('ai-unknown-template', [
      {
        step: 'reserve',
        type: 'action',
        action: 'http',
        compensation: 'http',
        parameters: { url: `${callee.url}/ai-reserve` },
      },
      { step: 'ask', type: 'ai', template_id: 'no-such-template' },
    ]),
  );
  const r = await execute('ai-unknown-template', {});
  expect(r.body).toMatchObject({ status: 'failed' });
  const s = await status(r.body.workflow_id);
  expect(s.body.steps.find((x: any) => x.step === 'ask')).toMatchObject({
    status: 'failed',
    attempts: 1,
    error: expect.stringContaining('404'),
  });
  expect(s.body.compensation).toMatchObject({ status: 'completed', steps: ['reserve'] });
  expect(callee.calls.filter((c) => c.path === '/ai-reserve').map((c) => c.method)).toEqual(['POST', 'DELETE']);
});

it('a broker that is down: the step is retried with the same key, then the completed steps are compensated', async () => {
  packs.put(
    pack('ai-down', [
      {
        step: 'book',
        type: 'action',
        action: 'http',
        compensation: 'http',
        parameters: { url: `${callee.url}/ai-book` },
      },
      { step: 'assess', type: 'ai', model: 'extractive', prompt: 'Assess {{amount}}.' },
    ]),
  );
  brokerDown = true;
  try {
    const r = await execute('ai-down', { amount: 5 });
    expect(r.status).toBe(200);
    const id = r.body.workflow_id as string;
    await until(async () => (await status(id)).body.status === 'failed', 'the saga to fail after its retries', {
      tries: 2400,
      everyMs: 50,
    });
    const s = await status(id);
    expect(s.body.steps.find((x: any) => x.step === 'assess')).toMatchObject({
      status: 'failed',
      attempts: 3,
      error: expect.stringContaining('503'),
    });
    expect(s.body.compensation).toMatchObject({ status: 'completed', steps: ['book'] });
    // Every attempt carried the same key.
    expect(seen.filter((x) => x.key === `${id}:assess`)).toHaveLength(3);
    expect(callee.calls.filter((c) => c.path === '/ai-book').map((c) => [c.method, c.key])).toEqual([
      ['POST', `${id}:book`],
      ['DELETE', `${id}:book:compensate`],
    ]);
  } finally {
    brokerDown = false;
  }
});

it('a pack whose ai step has both a prompt and a template, or neither, cannot run (422 naming the pack)', async () => {
  packs.put(pack('ai-both', [{ step: 'x', type: 'ai', prompt: 'p', template_id: 't' }]));
  packs.put(pack('ai-neither', [{ step: 'x', type: 'ai', model: 'extractive' }]));
  for (const id of ['ai-both', 'ai-neither']) {
    const r = await execute(id, {});
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'workflow_pack_id']);
  }
});
