// The AI broker in the whole platform: its subgraph through the router (models, templates,
// inference, explain, generateWorkflow against the real schema registry, usage; BAD_USER_INPUT
// with extensions.field in GraphQL names; another tenant's template is null), and its usage
// events reaching the caller's own ledger through the outbox relay, free of PII.
import { startOutboxTask } from '../../../launcher/outbox-task';
import { registryOf, SERVICES } from '../../../launcher/registry';
import { createLogger } from '../../../platform/logging/logger';
import { defineAiBrokerService } from '../../../services/ai-broker';
import { startServices, TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { DEV, gql, startPlatform, tenantToken, type Platform } from '../router/platform.support';
import { PII, PII_VALUES } from './support/broker.support';

jest.setTimeout(180_000);

let platform: Platform;
let relay: { stop(): Promise<void> }[] = [];
let gateway: string;
let admin: string;
let tokenB: string;

beforeAll(async () => {
  platform = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10' });
  gateway = platform.gateway;
  relay = startOutboxTask({
    running: SERVICES,
    registry: registryOf(),
    db: platform.db,
    env: platform.env,
    logger: createLogger('ERROR', 'relay'),
    jwtSecret: TEST_JWT_SECRET,
  });
  admin = await platform.login(DEV.admin.username, DEV.admin.password);
  tokenB = await tenantToken('tenant-b');
});
afterAll(async () => {
  for (const r of relay) await r.stop();
  await platform?.close();
});

const INFERENCE = `mutation ($input: InferenceInput!) { inference(input: $input) { response modelUsed tokensUsed ragChunksUsed sources correlationId ragUnavailable cost attempts { model outcome } redactions } }`;

test('models, templates and inference through the router, as the logged-in admin of tenant default', async () => {
  const models = await gql(gateway, '{ aiModels { id provider status costPer1kTokens contextWindow } }', {
    token: admin,
  });
  expect(models.body.errors).toBeUndefined();
  expect(models.body.data.aiModels.find((m: any) => m.id === 'extractive')).toMatchObject({ status: 'available' });
  expect(models.body.data.aiModels.find((m: any) => m.id === 'gpt-4-turbo')).toMatchObject({
    provider: 'openai',
    status: 'unconfigured',
  });

  const created = await gql(
    gateway,
    `mutation ($input: PromptTemplateInput!) { createPromptTemplate(input: $input) { templateId version variables { name required } } }`,
    {
      token: admin,
      variables: { input: { templateId: 'greet', template: 'Greet {{name}} politely.', variables: ['name'] } },
    },
  );
  expect(created.body.data.createPromptTemplate).toEqual({
    templateId: 'greet',
    version: 1,
    variables: [{ name: 'name', required: true }],
  });

  const r = await gql(gateway, INFERENCE, {
    token: admin,
    variables: { input: { templateId: 'greet', variables: { name: 'Ann' }, prompt: `Her SSN is ${PII.ssn}` } },
  });
  expect(r.body.errors).toBeUndefined();
  expect(r.body.data.inference).toMatchObject({
    modelUsed: 'extractive',
    ragChunksUsed: 0,
    redactions: { input: { ssn: 1 } },
  });
  expect(JSON.stringify(r.body)).not.toContain(PII.ssn);

  const other = await gql(
    gateway,
    '{ promptTemplate(templateId: "greet") { templateId } promptTemplates { templateId } }',
    { token: tokenB },
  );
  expect(other.body.data).toEqual({ promptTemplate: null, promptTemplates: [] });

  // The event reaches tenant default's ledger (not tenant-b's), without the SSN.
  const correlation = r.body.data.inference.correlationId;
  let events: any[] = [];
  await until(async () => {
    const res = await fetch(`${gateway}/api/v1/ledger/events?event_type=ai_inference`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    events = ((await res.json()) as { events: any[] }).events;
    return events.some((e) => e.correlation_id === correlation);
  }, 'the ai_inference event in the ledger');
  expect(events.find((e) => e.correlation_id === correlation)).toMatchObject({
    tenant_id: 'default',
    event_data: { model: 'extractive', status: 'ok' },
  });
  // The redaction event is a row of its own in the outbox: it may reach the ledger in a later
  // batch than the inference event, so wait for it too.
  let text = '';
  await until(async () => {
    const redaction = await fetch(`${gateway}/api/v1/ledger/events?event_type=ai_redaction`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    text = await redaction.text();
    return text.includes(correlation);
  }, 'the ai_redaction event in the ledger');
  for (const v of PII_VALUES) expect(text + JSON.stringify(events)).not.toContain(v);
  const theirs = await fetch(`${gateway}/api/v1/ledger/events?event_type=ai_inference`, {
    headers: { authorization: `Bearer ${tokenB}` },
  });
  expect(await theirs.text()).not.toContain(correlation);
});

test('bad input is BAD_USER_INPUT naming the field in GraphQL names; an unknown model is NOT_FOUND', async () => {
  const missing = await gql(gateway, INFERENCE, { token: admin, variables: { input: { model: 'extractive' } } });
  expect(missing.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'prompt' });
  const tokens = await gql(gateway, INFERENCE, { token: admin, variables: { input: { prompt: 'x', maxTokens: -1 } } });
  expect(tokens.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'maxTokens' });
  const variable = await gql(gateway, INFERENCE, {
    token: admin,
    variables: { input: { templateId: 'greet', variables: {} } },
  });
  expect(variable.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'variables.name' });
  const model = await gql(gateway, INFERENCE, {
    token: admin,
    variables: { input: { prompt: 'x', model: 'vendorZ' } },
  });
  expect(model.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
});

test('explain, generateWorkflow (against the running schema registry) and usage through the router', async () => {
  const e = await gql(
    gateway,
    'mutation ($input: ExplainInput!) { explain(input: $input) { ruleId explanation remediation modelUsed } }',
    {
      token: admin,
      variables: {
        input: { ruleId: 'R1', failureData: { field: 'customer_id', operator: 'required' }, includeRemediation: true },
      },
    },
  );
  expect(e.body.data.explain).toMatchObject({
    ruleId: 'R1',
    modelUsed: 'extractive',
    remediation: expect.stringContaining('Provide a value'),
  });
  const w = await gql(
    gateway,
    'mutation ($input: GenerateWorkflowInput!) { generateWorkflow(input: $input) { workflowPack confidence modelUsed } }',
    {
      token: admin,
      variables: {
        input: {
          description: 'Verify the invoice, then approval by a manager, then pay the supplier',
          domain: 'finance',
        },
      },
    },
  );
  expect(w.body.errors).toBeUndefined();
  expect(w.body.data.generateWorkflow.workflowPack.steps.map((s: any) => s.type)).toEqual([
    'validation',
    'hil_approval',
    'action',
  ]);
  // A broker told where the running schema registry is uses its workflow-pack (the platform's
  // backends start before their ports are known, so the one above fell back to the contract file).
  const broker = await startServices(
    [defineAiBrokerService()],
    { SCHEMA_REGISTRY_URL: platform.urls['schema-registry']! },
    { db: platform.db },
  );
  try {
    const rest = await fetch(`${broker.services['ai-broker']!.url}/api/ai/generate-workflow`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'Check and file', domain: 'legal' }),
    });
    expect((await rest.json()) as any).toMatchObject({
      schema_source: 'registry@1.0.0',
      workflow_pack: { metadata: { workflow_type: 'legal' } },
    });
  } finally {
    await broker.close();
  }
  const usage = await gql(gateway, '{ aiUsage { tenantId requests totalTokens byModel { model requests } } }', {
    token: admin,
  });
  expect(usage.body.data.aiUsage.tenantId).toBe('default');
  expect(usage.body.data.aiUsage.requests).toBeGreaterThanOrEqual(3);
});
