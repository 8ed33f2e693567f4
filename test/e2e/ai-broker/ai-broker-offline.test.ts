// The AI broker with no vendor configured: the offline extractive model answers and says so;
// models report honest statuses; retrieval context when the retrieval service answers, an
// honest "no context" when it is down; explain and generate-workflow offline (the pack passes
// the registry's workflow-pack schema, or the contract file's when the registry is down);
// templates with versions and checked variables; bad input; tenant isolation; usage audited.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineAiBrokerService } from '../../../services/ai-broker';
import { freePort } from '../../support/waiting';
import { startServices, type Harness } from '../../support/service-harness';
import { tenantToken } from '../router/platform.support';
import {
  brokerEvents,
  client,
  PII,
  PII_VALUES,
  schemaRegistryStub,
  startRetrieval,
  type RetrievalStandIn,
} from './support/broker.support';

jest.setTimeout(120_000);

let h: Harness;
let call: ReturnType<typeof client>;
let rag: RetrievalStandIn;
const schemas = schemaRegistryStub();
let tokenA: string;
let tokenB: string;
let readOnly: string;

beforeAll(async () => {
  rag = await startRetrieval();
  h = await startServices([defineAiBrokerService({ schemas })], { RAG_SERVICE_URL: rag.url });
  call = client(h.services['ai-broker']!.url);
  tokenA = await tenantToken('tenant-a');
  tokenB = await tenantToken('tenant-b');
  readOnly = await tenantToken('tenant-a', ['read']);
});
afterAll(async () => {
  await h?.close();
  await rag?.close();
});

test('GET /api/ai/models: the six spec models (vendor names restored), the planned local ones and the offline model, each with an honest status', async () => {
  const r = await call('GET', '/api/ai/models', { token: tokenA });
  expect(r.status).toBe(200);
  const byId = Object.fromEntries(r.body.models.map((m: any) => [m.id, m]));
  for (const id of [
    'claude-3-5-sonnet-20241022',
    'claude-3-haiku-20240307',
    'claude-3-opus-20240229',
    'gpt-4-turbo',
    'gpt-4',
    'gpt-3.5-turbo',
  ]) {
    expect(byId[id]).toMatchObject({ status: 'unconfigured' });
    expect(typeof byId[id].cost_per_1k_tokens).toBe('number');
  }
  expect(byId['claude-3-5-sonnet-20241022'].provider).toBe('anthropic');
  expect(byId['gpt-4-turbo'].provider).toBe('openai');
  expect(byId['local-llama-70b']).toMatchObject({ provider: 'local', status: 'unconfigured' });
  expect(byId.extractive).toMatchObject({ provider: 'extractive', status: 'available', cost_per_1k_tokens: 0 });

  const status = await call('GET', '/api/ai/models/gpt-4/status', { token: tokenA });
  expect(status.body).toMatchObject({ id: 'gpt-4', status: 'unconfigured', latency_ms: null });
  const test = await call('POST', '/api/ai/models/gpt-4/test', { token: tokenA });
  expect(test.body).toMatchObject({
    model_id: 'gpt-4',
    available: false,
    status: 'unconfigured',
    error: 'unconfigured',
  });
  expect((await call('GET', '/api/ai/models/no-such-model/status', { token: tokenA })).status).toBe(404);
  expect((await call('POST', '/api/ai/models/no-such-model/test', { token: tokenA })).status).toBe(404);
});

test('inference with no vendor: the extractive model answers from retrieved context, names itself, lists sources; low-score chunks are left out', async () => {
  rag.chunks = [
    {
      content: `Wire transfers above 10,000 USD need a second approver. Contact ${PII.email} for exceptions.`,
      document_title: 'Payments policy',
      score: 0.82,
      heading: 'Approvals',
    },
    { content: 'Unrelated text about parking.', document_title: 'Facilities', score: 0.31, heading: null },
  ];
  const r = await call('POST', '/api/ai/inference', {
    token: tokenA,
    body: { prompt: 'Who approves wire transfers above 10,000 USD?', use_rag: true, context: { suite_id: 'finance' } },
  });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({
    model_used: 'extractive',
    provider: 'extractive',
    rag_chunks_used: 1,
    sources: ['Payments policy'],
    rag_unavailable: false,
    cost: 0,
  });
  expect(r.body.response).toContain('second approver');
  expect(r.body.tokens_used).toBeGreaterThan(0);
  expect(r.body.correlation_id).toBe(r.headers.get('x-correlation-id'));
  // The retrieved e-mail was redacted before anything used it; the retrieval call carried the tenant and spec 02's defaults.
  expect(r.text).not.toContain(PII.email);
  expect(rag.seen.at(-1)).toMatchObject({
    tenant: 'tenant-a',
    authorization: `Bearer ${tokenA}`,
    body: { top_k: 5, suite_id: 'finance' },
  });
});

test('use_rag while the retrieval service is down: an answer without context that says so', async () => {
  const down = await freePort();
  const h2 = await startServices(
    [defineAiBrokerService({ schemas })],
    { RAG_SERVICE_URL: `http://127.0.0.1:${down}` },
    { db: h.db },
  );
  try {
    const r = await client(h2.services['ai-broker']!.url)('POST', '/api/ai/inference', {
      token: tokenA,
      body: { prompt: 'What is the approval rule?', use_rag: true },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ model_used: 'extractive', rag_unavailable: true, rag_chunks_used: 0, sources: [] });
    expect(r.body.response).toMatch(/no retrieved context/);
    const search = await client(h2.services['ai-broker']!.url)('POST', '/api/ai/rag/search', {
      token: tokenA,
      body: { query: 'approval' },
    });
    expect(search.status).toBe(503);
  } finally {
    await h2.close();
  }
});

test("POST /api/ai/rag/search returns the retrieval service's chunks above the threshold, query redacted", async () => {
  rag.chunks = [
    { content: 'Limits are set per suite.', document_title: 'Limits', score: 0.9, heading: null },
    { content: 'weak', document_title: 'Weak', score: 0.2, heading: null },
  ];
  const r = await call('POST', '/api/ai/rag/search', {
    token: tokenA,
    body: { query: `limits for ${PII.ssn}`, top_k: 3 },
  });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ total: 1, chunks: [{ document_title: 'Limits', score: 0.9 }] });
  expect(rag.seen.at(-1)!.body.query).not.toContain(PII.ssn);
  expect(r.text).not.toContain(PII.ssn);
  expect((await call('POST', '/api/ai/rag/search', { token: tokenA, body: {} })).body.detail[0].loc).toEqual([
    'body',
    'query',
  ]);
});

test('explain, offline: the failure explained from its data, with a remediation when asked, PII redacted', async () => {
  const r = await call('POST', '/api/ai/explain', {
    token: tokenA,
    body: {
      rule_id: 'R3',
      failure_data: {
        field: 'amount',
        operator: 'range',
        min: 0,
        max: 10000,
        actual: 20000,
        message: 'Amount out of range',
        customer: PII.email,
      },
      include_remediation: true,
    },
  });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ rule_id: 'R3', model_used: 'extractive' });
  expect(r.body.explanation).toContain('Rule R3 failed on field "amount"');
  expect(r.body.remediation).toMatch(/allowed range/);
  expect(r.text).not.toContain(PII.email);
  const plain = await call('POST', '/api/ai/explain', {
    token: tokenA,
    body: { rule_id: 'R1', failure_data: { field: 'customer_id', operator: 'required' } },
  });
  expect(plain.body.remediation).toBeNull();
  expect(
    (await call('POST', '/api/ai/explain', { token: tokenA, body: { failure_data: {} } })).body.detail[0].loc,
  ).toEqual(['body', 'rule_id']);
});

test("generate-workflow, offline: a deterministic pack that passes the registry's workflow-pack schema; the contract file when the registry is down", async () => {
  const body = {
    description: `Validate the KYC documents, then get approval by the compliance officer, summarise the risk findings, then notify ${PII.email}`,
    domain: 'kyc',
  };
  const before = schemas.calls;
  const r = await call('POST', '/api/ai/generate-workflow', { token: tokenA, body });
  expect(r.status).toBe(200);
  expect(schemas.calls).toBe(before + 1);
  expect(r.body).toMatchObject({ model_used: 'extractive', schema_source: 'registry@1.0.0' });
  expect(r.body.confidence).toBeGreaterThan(0);
  expect(r.body.confidence).toBeLessThanOrEqual(0.6);
  const pack = r.body.workflow_pack;
  expect(pack.metadata).toMatchObject({ version: '1.0.0', workflow_type: 'compliance' });
  expect(pack.steps.map((s: any) => s.type)).toEqual(['validation', 'hil_approval', 'ai', 'action']);
  expect(pack.steps[1].reviewer_role).toBe('compliance');
  // Spec 02's members for the original service's clients (id, name, steps[{name, type}]) beside
  // ours; `artifact` is the same pack as the workflow-pack schema wants it, which workflow_pack
  // with those extra members is not.
  expect(pack).toMatchObject({ id: pack.metadata.pack_id, name: pack.metadata.name });
  expect(pack.steps.map((s: any) => [s.name, s.type])).toEqual(pack.steps.map((s: any) => [s.step, s.type]));
  const { id: _id, name: _name, ...ours } = pack;
  expect(r.body.artifact).toEqual({ ...ours, steps: ours.steps.map(({ name: _n, ...step }: any) => step) });
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  const conforms = ajv.compile(
    JSON.parse(
      readFileSync(path.join(__dirname, '../../../platform/contracts/workflow-pack.schema.json'), 'utf8'),
    ) as object,
  );
  expect(conforms(r.body.artifact)).toBe(true);
  expect(conforms(pack)).toBe(false);
  expect(r.text).not.toContain(PII.email);
  const again = await call('POST', '/api/ai/generate-workflow', { token: tokenA, body });
  expect(again.body.workflow_pack).toEqual(pack);

  schemas.down = true;
  try {
    const fallback = await call('POST', '/api/ai/generate-workflow', {
      token: tokenA,
      body: { description: 'Check the invoice and pay it', domain: 'finance' },
    });
    expect(fallback.status).toBe(200);
    expect(fallback.body).toMatchObject({
      schema_source: 'contract-file',
      workflow_pack: { metadata: { workflow_type: 'financial' } },
    });
  } finally {
    schemas.down = false;
  }
  expect(
    (await call('POST', '/api/ai/generate-workflow', { token: tokenA, body: { domain: 'x' } })).body.detail[0].loc,
  ).toEqual(['body', 'description']);
});

describe('templates', () => {
  const template = {
    template_id: 'loan-summary',
    name: 'Loan summary',
    template: 'Summarise the loan of {{customer}} for {{amount}} USD. Tone: {{tone}}.',
    variables: ['customer', 'amount', { name: 'tone', default: 'formal' }],
  };

  test('created, versioned, listed and rendered; variables declared and checked', async () => {
    const v1 = await call('POST', '/api/ai/prompts', { token: tokenA, body: template });
    expect(v1.status).toBe(201);
    expect(v1.body).toMatchObject({ template_id: 'loan-summary', version: 1, versions: [1] });
    const v2 = await call('POST', '/api/ai/prompts', {
      token: tokenA,
      body: { ...template, template: `${template.template} Keep it short.` },
    });
    expect(v2.body).toMatchObject({ version: 2, versions: [1, 2] });
    const list = await call('GET', '/api/ai/prompts', { token: tokenA });
    expect(list.body.templates).toEqual([
      expect.objectContaining({ template_id: 'loan-summary', version: 2, versions: [1, 2] }),
    ]);
    expect((await call('GET', '/api/ai/prompts/loan-summary?version=1', { token: tokenA })).body.template).toBe(
      template.template,
    );

    const r = await call('POST', '/api/ai/inference', {
      token: tokenA,
      body: { template_id: 'loan-summary', variables: { customer: 'ACME Ltd', amount: 5000 } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ model_used: 'extractive', template: { template_id: 'loan-summary', version: 2 } });

    const missing = await call('POST', '/api/ai/inference', {
      token: tokenA,
      body: { template_id: 'loan-summary', variables: { customer: 'ACME Ltd' } },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'variables', 'amount'], type: 'missing' }),
    ]);
    const unknown = await call('POST', '/api/ai/inference', {
      token: tokenA,
      body: { template_id: 'loan-summary', variables: { customer: 'x', amount: 1, colour: 'red' } },
    });
    expect(unknown.body.detail[0].loc).toEqual(['body', 'variables', 'colour']);
  });

  test("unknown members are ignored as FastAPI does: a client's own `version` is neither stored nor echoed", async () => {
    const r = await call('POST', '/api/ai/prompts', {
      token: tokenA,
      body: { template_id: 'greeting', template: 'Hello {{who}}', variables: ['who'], version: 7, owner: 'owner-zq81' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ template_id: 'greeting', version: 1, versions: [1] });
    expect(r.body).not.toHaveProperty('owner');
    const stored = await call('GET', '/api/ai/prompts/greeting', { token: tokenA });
    expect(stored.body).toMatchObject({ version: 1, versions: [1] });
    expect(stored.text).not.toContain('owner-zq81');
    expect((await call('GET', '/api/ai/prompts/greeting?version=7', { token: tokenA })).status).toBe(404);
  });

  test('an undeclared placeholder, an unused declaration and a bad id are refused, naming them', async () => {
    const undeclared = await call('POST', '/api/ai/prompts', {
      token: tokenA,
      body: { template_id: 't1', template: 'Hi {{name}}', variables: [] },
    });
    expect(undeclared.status).toBe(422);
    expect(undeclared.body.detail[0]).toMatchObject({
      loc: ['body', 'variables'],
      msg: expect.stringContaining('{{name}}'),
    });
    const unused = await call('POST', '/api/ai/prompts', {
      token: tokenA,
      body: { template_id: 't1', template: 'Hi', variables: ['name'] },
    });
    expect(unused.body.detail[0].loc).toEqual(['body', 'variables', 0]);
    expect(
      (await call('POST', '/api/ai/prompts', { token: tokenA, body: { template_id: 'bad id!', template: 'Hi' } })).body
        .detail[0].loc,
    ).toEqual(['body', 'template_id']);
    expect((await call('POST', '/api/ai/prompts', { token: readOnly, body: template })).status).toBe(403);
  });

  test("another tenant's template is 404, in every door", async () => {
    expect((await call('GET', '/api/ai/prompts/loan-summary', { token: tokenB })).status).toBe(404);
    expect((await call('GET', '/api/ai/prompts', { token: tokenB })).body.templates).toEqual([]);
    const r = await call('POST', '/api/ai/inference', {
      token: tokenB,
      body: { template_id: 'loan-summary', variables: { customer: 'x', amount: 1 } },
    });
    expect(r.status).toBe(404);
    // Tenant B may use the same id for its own template, independently.
    expect(
      (
        await call('POST', '/api/ai/prompts', {
          token: tokenB,
          body: { template_id: 'loan-summary', template: 'B only' },
        })
      ).body.version,
    ).toBe(1);
  });
});

describe('bad input', () => {
  test('missing prompt is 422 naming it; unknown model 404; wrong types named', async () => {
    const r = await call('POST', '/api/ai/inference', { token: tokenA, body: { model: 'extractive' } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ['body', 'prompt'], msg: 'Field required', type: 'missing' }]);
    const unknown = await call('POST', '/api/ai/inference', {
      token: tokenA,
      body: { prompt: 'hi', model: 'vendorZ-9' },
    });
    expect(unknown.status).toBe(404);
    expect(
      (await call('POST', '/api/ai/inference', { token: tokenA, body: { prompt: 'hi', max_tokens: 0 } })).body.detail[0]
        .loc,
    ).toEqual(['body', 'max_tokens']);
    expect(
      (await call('POST', '/api/ai/inference', { token: tokenA, body: { prompt: '   ' } })).body.detail[0].loc,
    ).toEqual(['body', 'prompt']);
    expect((await call('POST', '/api/ai/inference', { token: null, body: { prompt: 'hi' } })).status).toBe(401);
  });

  test('PII in every field stays out of the response and the audit events', async () => {
    const r = await call('POST', '/api/ai/inference', {
      token: tokenA,
      body: {
        prompt: `Customer ${PII.ssn}, ${PII.email}, ${PII.phone}, card ${PII.card}, lives at ${PII.address}. Repeat all of it.`,
        system: `Agent for ${PII.email}`,
      },
    });
    expect(r.status).toBe(200);
    for (const v of PII_VALUES) expect(r.text).not.toContain(v);
    expect(r.body.redactions.input).toMatchObject({ ssn: 1, email: 2, phone: 1, card: 1, address: 1 });
    const events = await brokerEvents(h);
    for (const v of PII_VALUES) expect(JSON.stringify(events)).not.toContain(v);
  });
});

test("usage is audited per call (ai_inference, ai_redaction) under the caller's tenant, and summed per tenant", async () => {
  const r = await call('POST', '/api/ai/inference', { token: tokenA, body: { prompt: `ping ${PII.ssn}` } });
  const events = (await brokerEvents(h)).filter((e) => e.correlation_id === r.body.correlation_id);
  expect(events.map((e) => e.event_type).sort()).toEqual(['ai_inference', 'ai_redaction']);
  const usage = events.find((e) => e.event_type === 'ai_inference')!;
  expect(usage).toMatchObject({ tenant_id: 'tenant-a', user_id: 'someone-tenant-a' });
  expect(usage.event_data).toMatchObject({
    operation: 'inference',
    status: 'ok',
    model: 'extractive',
    tokens_used: r.body.tokens_used,
    cost: 0,
    redactions: { input: { ssn: 1 }, output: {} },
  });
  expect(typeof usage.event_data.latency_ms).toBe('number');
  expect(usage.event_data.attempts).toEqual([expect.objectContaining({ model: 'extractive', outcome: 'ok' })]);
  const summary = await call('GET', '/api/ai/usage', { token: tokenA });
  expect(summary.body.tenant_id).toBe('tenant-a');
  expect(summary.body.requests).toBeGreaterThan(3);
  expect(summary.body.by_model.map((m: any) => m.model)).toContain('extractive');
  const other = await call('GET', '/api/ai/usage', { token: tokenB });
  expect(other.body.requests).toBeLessThan(summary.body.requests);
});
