// The workflow service in the whole platform, through the router: the gateway's POST
// /api/v1/workflows/execute and GET /api/v1/workflows/status; a legal workflow started with the executeWorkflow mutation, then
// subscribed to with workflowStatusChanged(afterVersion: 0) over graphql-ws through the router
// (so nothing is missed between the start and the subscription), approved with decideApproval,
// and watched to its end; the approvals inbox subscription; tenant isolation of queries and
// subscriptions; a registry pack with an ai step (submitted and certified through the gateway)
// run against the real AI broker's offline model.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { AccessTokens } from '../../../platform/auth/jwt';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { repeatUntil, until } from '../../support/waiting';
import { gql, startPlatform, type Platform } from '../router/platform.support';

jest.setTimeout(180_000);

let platform: Platform;
let alice: string;
let bob: string;
let eve: string;
const clients: Client[] = [];
const issue = (username: string, tenantId: string) =>
  new AccessTokens(TEST_JWT_SECRET, 3600).issue({ username, tenantId, roles: ['user'], scopes: ['read', 'write'] });

beforeAll(async () => {
  platform = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10', WORKFLOW_POLL_MS: '50' });
  alice = await issue('alice', 'wf-a');
  bob = await issue('bob', 'wf-a');
  eve = await issue('eve', 'wf-b');
});

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await platform?.close();
});

function ws(token: string): Client {
  const c = createClient({
    url: `${platform.gateway.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  clients.push(c);
  return c;
}

function collect(client: Client, query: string, variables: Record<string, unknown>) {
  const items: any[] = [];
  const errors: unknown[] = [];
  let completed = false;
  client.subscribe(
    { query, variables },
    {
      next: (v) => (v.errors ? errors.push(v.errors) : items.push(v.data)),
      error: (e) => errors.push(e),
      complete: () => (completed = true),
    },
  );
  return { items, errors, done: () => completed };
}

const EXECUTE = `mutation ($input: ExecuteWorkflowInput!) { executeWorkflow(input: $input) { status workflowId approvalTaskId requiresHumanApproval packSource message execution { id version status } } }`;
const STATUS = `subscription ($id: ID!, $after: Int) { workflowStatusChanged(workflowId: $id, afterVersion: $after) { workflowId version event status step approvalTaskId } }`;
const INBOX = `subscription ($after: String) { approvalRequested(afterCursor: $after) { cursor event task { id workflowId status workflowType } } }`;

it("the gateway's POST /api/v1/workflows/execute runs a workflow", async () => {
  const res = await fetch(`${platform.gateway}/api/v1/workflows/execute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
    body: JSON.stringify({ workflow_type: 'operational', payload: { x: 1 } }),
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ status: 'completed', pack_source: 'builtin' });
});

it("the gateway's GET /api/v1/workflows/status answers the workflow service's GET /workflow-status for the caller's tenant", async () => {
  const res = await fetch(`${platform.gateway}/api/v1/workflows/status`, {
    headers: { authorization: `Bearer ${alice}` },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  expect(body).toMatchObject({ service: 'workflow', status: 'operational', tenant_id: 'wf-a' });
  expect(body.executions.completed).toBeGreaterThanOrEqual(1);
  const other = (await (
    await fetch(`${platform.gateway}/api/v1/workflows/status`, { headers: { authorization: `Bearer ${eve}` } })
  ).json()) as any;
  expect(other).toMatchObject({ tenant_id: 'wf-b' });
  expect(other.executions.completed ?? 0).toBe(0);
  // Naming another tenant is refused at the gateway; no token is a 401.
  expect(
    (
      await fetch(`${platform.gateway}/api/v1/workflows/status`, {
        headers: { authorization: `Bearer ${eve}`, 'x-tenant-id': 'wf-a' },
      })
    ).status,
  ).toBe(403);
  expect((await fetch(`${platform.gateway}/api/v1/workflows/status`)).status).toBe(401);
});

it('start, then subscribe through the router from version 0: every transition arrives, in order, to the end', async () => {
  const inbox = collect(ws(bob), INBOX, {});
  // graphql-ws never acknowledges a subscribe: a delivery is the only proof the inbox is live.
  await repeatUntil(
    () =>
      gql(platform.gateway, EXECUTE, {
        token: alice,
        variables: { input: { workflowType: 'compliance', payload: {} } },
      }),
    () => inbox.items.length > 0 || inbox.errors.length > 0,
    'the inbox to be live',
  );
  expect(inbox.errors).toEqual([]);
  const started = await gql(platform.gateway, EXECUTE, {
    token: alice,
    variables: { input: { workflowType: 'legal', payload: { property: 'P-9' } } },
  });
  expect(started.body.errors).toBeUndefined();
  const run = started.body.data.executeWorkflow;
  expect(run).toMatchObject({
    status: 'PENDING_APPROVAL',
    requiresHumanApproval: true,
    packSource: 'BUILTIN',
    approvalTaskId: expect.any(String),
  });

  const feed = collect(ws(alice), STATUS, { id: run.workflowId, after: 0 });
  // The transitions that happened before the subscription are replayed first.
  await until(
    () => feed.items.some((i) => i.workflowStatusChanged.event === 'approval.requested'),
    'the replayed approval.requested',
  );
  // The inbox (subscribed before the start) announces the task too.
  await until(
    () => inbox.items.some((i) => i.approvalRequested.task.id === run.approvalTaskId),
    'the inbox announcement',
  );
  expect(
    inbox.items.find((i) => i.approvalRequested.task.id === run.approvalTaskId).approvalRequested.task,
  ).toMatchObject({ status: 'pending', workflowType: 'legal' });

  const decided = await gql(
    platform.gateway,
    `mutation ($id: ID!) { decideApproval(taskId: $id, decision: "approve", notes: "ok") { workflowStatus task { status reviewer decision } } }`,
    { token: bob, variables: { id: run.approvalTaskId } },
  );
  expect(decided.body.errors).toBeUndefined();
  expect(decided.body.data.decideApproval).toMatchObject({
    workflowStatus: 'COMPLETED',
    task: { status: 'approved', reviewer: 'bob', decision: 'approve' },
  });

  await until(() => feed.done(), 'the status feed to end after the final transition');
  const events = feed.items.map((i) => i.workflowStatusChanged);
  expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i + 1));
  expect(events[0].event).toBe('workflow.started');
  expect(events.map((e) => e.event)).toEqual(
    expect.arrayContaining(['approval.requested', 'approval.decided', 'step.completed', 'workflow.completed']),
  );
  expect(events.at(-1)).toMatchObject({ event: 'workflow.completed', status: 'COMPLETED' });
  expect(feed.errors).toEqual([]);

  // Resuming after a version replays only what followed it.
  const resumed = collect(ws(alice), STATUS, { id: run.workflowId, after: events.length - 2 });
  await until(() => resumed.done(), 'the resumed feed to end');
  expect(resumed.items.map((i) => i.workflowStatusChanged.version)).toEqual([events.length - 1, events.length]);

  // The router joins the execution: queries see steps and the decided task.
  const q = await gql(
    platform.gateway,
    `query ($id: ID!) { workflowExecution(id: $id) { status steps { step status } approvalTasks { status reviewer } } approvalTasks(status: "approved") { nodes { id } } }`,
    { token: alice, variables: { id: run.workflowId } },
  );
  expect(q.body.data.workflowExecution.status).toBe('COMPLETED');
  expect(q.body.data.workflowExecution.steps).toHaveLength(4);
  expect(q.body.data.approvalTasks.nodes.map((n: any) => n.id)).toContain(run.approvalTaskId);

  // Another tenant: no execution, an empty inbox, and a refused subscription.
  const other = await gql(
    platform.gateway,
    `query ($id: ID!) { workflowExecution(id: $id) { id } approvalTasks { nodes { id } } }`,
    { token: eve, variables: { id: run.workflowId } },
  );
  expect(other.body.data).toEqual({ workflowExecution: null, approvalTasks: { nodes: [] } });
  const spy = collect(ws(eve), STATUS, { id: run.workflowId, after: 0 });
  await until(() => spy.errors.length > 0 || spy.done(), "the other tenant's subscription to be refused");
  expect(spy.items).toEqual([]);
  expect(JSON.stringify(spy.errors)).toContain('NOT_FOUND');
});

it('GraphQL input errors carry the field: a missing payload, an unknown decision word, the requester deciding', async () => {
  const bad = await gql(
    platform.gateway,
    `mutation { executeWorkflow(input: { workflowType: "cooking", payload: {} }) { status } }`,
    { token: alice },
  );
  expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  const run = (
    await gql(platform.gateway, EXECUTE, { token: alice, variables: { input: { workflowType: 'risk', payload: {} } } })
  ).body.data.executeWorkflow;
  const word = await gql(
    platform.gateway,
    `mutation ($id: ID!) { decideApproval(taskId: $id, decision: "perhaps") { message } }`,
    { token: bob, variables: { id: run.approvalTaskId } },
  );
  expect(word.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'decision' });
  const own = await gql(
    platform.gateway,
    `mutation ($id: ID!) { decideApproval(taskId: $id, decision: "approve") { message } }`,
    { token: alice, variables: { id: run.approvalTaskId } },
  );
  expect(own.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});

it("entity references batch per request: the caller's executions with their own steps and tasks, the caller's tasks; another tenant's and unknown ids null", async () => {
  const start = async (token: string, workflowType: string) =>
    (await gql(platform.gateway, EXECUTE, { token, variables: { input: { workflowType, payload: {} } } })).body.data
      .executeWorkflow;
  const done = await start(alice, 'operational');
  const waiting = await start(alice, 'legal');
  const foreign = await start(eve, 'legal');
  expect([done.status, waiting.status, foreign.status]).toEqual(['COMPLETED', 'PENDING_APPROVAL', 'PENDING_APPROVAL']);
  const unknown = '00000000-0000-4000-8000-000000000000';
  const executions = await gql(
    platform.urls.workflow!,
    `query ($r: [_Any!]!) { _entities(representations: $r) { ... on WorkflowExecution { id status steps { step status } approvalTasks { id status } } } }`,
    {
      token: alice,
      variables: {
        r: [done.workflowId, foreign.workflowId, waiting.workflowId, unknown, 'not-a-uuid'].map((id) => ({
          __typename: 'WorkflowExecution',
          id,
        })),
      },
    },
  );
  expect(executions.body.errors).toBeUndefined();
  const [a, b, c, d, e] = executions.body.data._entities;
  expect(a).toMatchObject({ id: done.workflowId, status: 'COMPLETED', approvalTasks: [] });
  expect(a.steps.map((s: { status: string }) => s.status)).toEqual(['completed', 'completed', 'completed']);
  expect([b, d, e]).toEqual([null, null, null]);
  expect(c).toMatchObject({
    id: waiting.workflowId,
    status: 'PENDING_APPROVAL',
    approvalTasks: [{ id: waiting.approvalTaskId, status: 'pending' }],
  });
  expect(c.steps).toEqual([{ step: 'human-approval', status: 'waiting' }]);
  const tasks = await gql(
    platform.urls.workflow!,
    `query ($r: [_Any!]!) { _entities(representations: $r) { ... on ApprovalTask { id workflowId status } } }`,
    {
      token: alice,
      variables: {
        r: [foreign.approvalTaskId, waiting.approvalTaskId, unknown].map((id) => ({ __typename: 'ApprovalTask', id })),
      },
    },
  );
  expect(tasks.body.errors).toBeUndefined();
  expect(tasks.body.data._entities).toEqual([
    null,
    { id: waiting.approvalTaskId, workflowId: waiting.workflowId, status: 'pending' },
    null,
  ]);
});

it('a registry pack with an ai step, submitted and certified through the gateway, runs against the real AI broker through the router', async () => {
  const reviewer = await new AccessTokens(TEST_JWT_SECRET, 3600).issue({
    username: 'rita',
    tenantId: 'wf-a',
    roles: ['reviewer'],
    scopes: ['read', 'write'],
  });
  const artifact = {
    metadata: {
      pack_id: 'wf-ai-router',
      version: '1.0.0',
      workflow_type: 'operational',
      name: 'AI through the router',
    },
    steps: [
      { step: 'ticket', type: 'action', action: 'set', parameters: { value: 'T-1' }, output_field: 'ticket' },
      {
        step: 'summarise',
        type: 'ai',
        model: 'extractive',
        prompt: 'Summarise ticket {{ticket}} for {{customer}}.',
        output_field: 'summary',
      },
    ],
  };
  const post = (path: string, token: string, body?: unknown) =>
    fetch(`${platform.gateway}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const submitted = await post('/api/v1/packs', alice, { artifact, format: 'json' });
  expect(submitted.status).toBe(201);
  expect((await post('/api/v1/packs/wf-ai-router/versions/1.0.0/certify', reviewer)).status).toBe(200);

  const r = await gql(platform.gateway, EXECUTE, {
    token: alice,
    variables: {
      input: { workflowPackId: 'wf-ai-router', workflowType: 'operational', payload: { customer: 'ACME' } },
    },
  });
  expect(r.body.errors).toBeUndefined();
  expect(r.body.data.executeWorkflow).toMatchObject({ status: 'COMPLETED', packSource: 'REGISTRY' });
  const q = await gql(
    platform.gateway,
    `query ($id: ID!) { workflowExecution(id: $id) { steps { step status output } } }`,
    { token: alice, variables: { id: r.body.data.executeWorkflow.workflowId } },
  );
  const step = q.body.data.workflowExecution.steps.find((s: any) => s.step === 'summarise');
  expect(step).toMatchObject({ status: 'completed', output: { model_used: 'extractive', provider: 'extractive' } });
});
