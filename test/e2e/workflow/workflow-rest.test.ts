// The workflow service's REST door against stand-ins (an HTTP callee for action steps, a packs
// registry and a validation service in memory): built-in and registry packs, human approval with
// every decision word and refusal, saga compensation in reverse with retries and parking,
// decisions and parallel groups, deadlines, audit events in the outbox, lifecycle events on the
// bus, and tenant isolation.
import { AccessTokens } from '../../../platform/auth/jwt';
import { defineWorkflowService } from '../../../services/workflow';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { tenantToken } from '../router/platform.support';
import { call, httpPack, PacksStandIn, startCallee, ValidationStandIn, type Callee } from './workflow.support';

jest.setTimeout(120_000);

let harness: Harness;
let url: string;
let callee: Callee;
const packs = new PacksStandIn();
const validation = new ValidationStandIn();
let requester: string;
let reviewer: string;
let otherTenant: string;
const busEvents: { topic: string; payload: any }[] = [];
const issue = (username: string, tenantId: string, roles = ['user']) =>
  new AccessTokens(TEST_JWT_SECRET, 3600).issue({ username, tenantId, roles, scopes: ['read', 'write'] });

beforeAll(async () => {
  callee = await startCallee();
  harness = await startServices([defineWorkflowService({ packs, validation })], {
    WORKFLOW_RETRY_BASE_MS: '5',
    WORKFLOW_POLL_MS: '20',
    WORKFLOW_COMPENSATION_MAX_ATTEMPTS: '2',
    WORKFLOW_APPROVAL_DEADLINE_SECONDS: '1',
  });
  url = harness.services.workflow!.url;
  requester = await issue('alice', 'tenant-a');
  reviewer = await issue('bob', 'tenant-a', ['reviewer']);
  otherTenant = await tenantToken('tenant-b');
  for (const topic of [
    'workflow.started',
    'step.completed',
    'approval.requested',
    'approval.decided',
    'workflow.completed',
    'workflow.failed',
    'compliance.workflow_event',
  ]) {
    // Relayed from the notice outbox as CloudEvents envelopes: the payload is the envelope's data.
    await harness.bus.subscribe(topic, (message: any) => void busEvents.push({ topic, payload: message.data }));
  }
});

afterAll(async () => {
  await harness?.close();
  await callee?.close();
});

const execute = (body: unknown, token = requester) => call(`${url}/execute`, { token, body });
const status = (id: string, token = requester) => call(`${url}/status/${id}`, { token });
const approve = (taskId: string, body: unknown, user: string | undefined, token = reviewer) =>
  call(`${url}/approve/${taskId}`, { token, body, headers: user ? { 'x-user-id': user } : {} });

describe('POST /execute', () => {
  it('runs the built-in pack of an operational workflow_type to completed, and says the pack is built-in', async () => {
    const r = await execute({
      workflow_pack_id: 'legacy-ops-pack',
      workflow_type: 'operational',
      payload: { order: 7 },
      metadata: { source: 'test' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'completed',
      requires_human_approval: false,
      approval_task_id: null,
      pack_source: 'builtin',
      pack_id: 'legacy-ops-pack',
    });
    expect(r.body.message).toContain('built-in operational pack');
    expect(r.body.correlation_id).toEqual(expect.any(String));
    const s = await status(r.body.workflow_id);
    expect(s.status).toBe(200);
    expect(s.body.steps.map((x: any) => [x.step, x.status, x.attempts])).toEqual([
      ['prepare', 'completed', 1],
      ['execute', 'completed', 1],
      ['confirm', 'completed', 1],
    ]);
    for (const step of s.body.steps) expect(step.duration_ms).toEqual(expect.any(Number));
  });

  it("runs a registry pack's http steps with the idempotency key, the workflow id and the tenant", async () => {
    packs.put(httpPack('ops-http', callee.url, ['reserve', 'charge', 'ship']));
    const r = await execute({ workflow_pack_id: 'ops-http', workflow_type: 'operational', payload: {} });
    expect(r.body).toMatchObject({ status: 'completed', pack_source: 'registry', pack_version: '1.0.0' });
    const calls = callee.calls.filter((c) => c.key?.startsWith(r.body.workflow_id));
    expect(calls.map((c) => [c.path, c.key, c.tenant])).toEqual(
      ['reserve', 'charge', 'ship'].map((s) => [`/${s}`, `${r.body.workflow_id}:${s}`, 'tenant-a']),
    );
    // The registry was asked with the caller's token and tenant.
    expect(packs.seen.at(-1)).toMatchObject({ token: requester, tenantId: 'tenant-a' });
  });

  it("422 names a missing workflow_type or payload, a wrong workflow_type and a payload failing the pack's schema", async () => {
    const noType = await execute({ payload: {} });
    expect(noType.status).toBe(422);
    expect(noType.body.detail.map((d: any) => d.loc)).toContainEqual(['body', 'workflow_type']);
    const noPayload = await execute({ workflow_type: 'legal' });
    expect(noPayload.status).toBe(422);
    expect(noPayload.body.detail.map((d: any) => d.loc)).toContainEqual(['body', 'payload']);
    const badType = await execute({ workflow_type: 'cooking', payload: {} });
    expect(badType.status).toBe(422);
    expect(badType.body.detail[0].loc).toEqual(['body', 'workflow_type']);
    packs.put(
      httpPack('typed', callee.url, ['a'], {
        input_schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
      }),
    );
    const badPayload = await execute({
      workflow_pack_id: 'typed',
      workflow_type: 'operational',
      payload: { amount: 'ten' },
    });
    expect(badPayload.status).toBe(422);
    expect(badPayload.body.detail[0].loc).toEqual(['body', 'payload', 'amount']);
    const missing = await execute({ workflow_pack_id: 'typed', workflow_type: 'operational', payload: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc[0]).toBe('body');
    expect(missing.body.detail[0].loc[1]).toBe('payload');
  });

  it('409 for a deprecated or uncertified registry version; 422 when the pack is another type of work', async () => {
    packs.put(httpPack('old', callee.url, ['a']), 'deprecated', { pack_id: 'old', version: '2.0.0' });
    const deprecated = await execute({
      workflow_pack_id: 'old',
      workflow_pack_version: '1.0.0',
      workflow_type: 'operational',
      payload: {},
    });
    expect(deprecated.status).toBe(409);
    expect(deprecated.body.detail).toContain("use 'old' version 2.0.0");
    const wrongType = await execute({ workflow_pack_id: 'ops-http', workflow_type: 'legal', payload: {} });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail[0].loc).toEqual(['body', 'workflow_type']);
  });

  it('503 while the packs registry is unreachable (never a silent built-in run)', async () => {
    packs.down = true;
    try {
      expect((await execute({ workflow_pack_id: 'ops-http', workflow_type: 'operational', payload: {} })).status).toBe(
        503,
      );
    } finally {
      packs.down = false;
    }
  });

  it('financial work needs approval above WORKFLOW_FINANCIAL_APPROVAL_THRESHOLD only', async () => {
    expect((await execute({ workflow_type: 'financial', payload: { amount: 50 } })).body).toMatchObject({
      status: 'completed',
      requires_human_approval: false,
    });
    expect((await execute({ workflow_type: 'financial', payload: { amount: 50_000 } })).body).toMatchObject({
      status: 'pending_approval',
      requires_human_approval: true,
    });
  });

  it('without a token: 401', async () => {
    expect((await call(`${url}/execute`, { body: { workflow_type: 'legal', payload: {} } })).status).toBe(401);
  });
});

describe('human approval', () => {
  it('legal work answers pending_approval with the task; approving ("approved") resumes the saga to completed', async () => {
    const r = await execute({
      workflow_pack_id: 'title-transfer',
      workflow_type: 'legal',
      payload: { property: 'P-1' },
    });
    expect(r.body).toMatchObject({
      status: 'pending_approval',
      requires_human_approval: true,
      approval_task_id: expect.any(String),
    });
    expect(r.body.message).toContain(r.body.approval_task_id);
    const before = await status(r.body.workflow_id);
    expect(before.body.approval_tasks[0]).toMatchObject({
      approval_task_id: r.body.approval_task_id,
      status: 'pending',
      reviewer: null,
      decision: null,
      workflow_type: 'legal',
      payload: { property: 'P-1' },
    });

    const d = await approve(r.body.approval_task_id, { decision: 'approved', notes: 'deed checked' }, 'bob');
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({
      status: 'approved',
      decision: 'approve',
      reviewer: 'bob',
      notes: 'deed checked',
      workflow_status: 'completed',
    });
    const after = await status(r.body.workflow_id);
    expect(after.body.status).toBe('completed');
    expect(after.body.approval_tasks[0]).toMatchObject({ status: 'approved', reviewer: 'bob', decision: 'approve' });
    expect(after.body.steps.map((s: any) => s.step)).toEqual([
      'human-approval',
      'verify-documents',
      'record-transfer',
      'notify-parties',
    ]);

    // Decided once: a second decision is a 409.
    expect((await approve(r.body.approval_task_id, { decision: 'reject' }, 'bob')).status).toBe(409);
    const topics = () => busEvents.filter((e) => e.payload.workflow_id === r.body.workflow_id).map((e) => e.topic);
    await until(() => topics().includes('workflow.completed'), 'the completion notice');
    expect(topics()).toEqual(
      expect.arrayContaining([
        'workflow.started',
        'approval.requested',
        'approval.decided',
        'step.completed',
        'workflow.completed',
      ]),
    );
  });

  it("refuses: a decision outside the words (422), no X-User-ID (422), the requester (403), someone else's X-User-ID (403), unknown task (404)", async () => {
    const r = await execute({ workflow_type: 'compliance', payload: {} });
    const task = r.body.approval_task_id;
    const word = await approve(task, { decision: 'maybe' }, 'bob');
    expect(word.status).toBe(422);
    expect(word.body.detail[0].loc).toEqual(['body', 'decision']);
    const noUser = await approve(task, { decision: 'approve' }, undefined);
    expect(noUser.status).toBe(422);
    expect(noUser.body.detail[0].loc).toEqual(['header', 'x-user-id']);
    expect((await approve(task, { decision: 'approve' }, 'alice', requester)).status).toBe(403);
    expect((await approve(task, { decision: 'approve' }, 'carol')).status).toBe(403);
    expect((await approve('7b0c2f7e-9d1a-4c55-8d0e-000000000000', { decision: 'approve' }, 'bob')).status).toBe(404);
    expect((await approve('not-a-uuid', { decision: 'approve' }, 'bob')).status).toBe(404);
    expect((await status('7b0c2f7e-9d1a-4c55-8d0e-000000000000')).status).toBe(404);
    expect((await status('nope')).status).toBe(404);
    // Every word form is accepted (the task is still pending after the refusals).
    expect((await approve(task, { decision: 'Approve' }, 'bob')).body.workflow_status).toBe('completed');
  });

  it("another tenant's workflow and task are 404", async () => {
    const r = await execute({ workflow_type: 'risk', payload: {} });
    expect((await status(r.body.workflow_id, otherTenant)).status).toBe(404);
    expect(
      (await approve(r.body.approval_task_id, { decision: 'approve' }, 'someone-tenant-b', otherTenant)).status,
    ).toBe(404);
    expect((await status(r.body.workflow_id)).body.status).toBe('pending_approval');
  });

  it('defer keeps the task pending and announces it again; a later approve still resumes', async () => {
    const r = await execute({ workflow_type: 'legal', payload: {} });
    const announced = () =>
      busEvents.filter(
        (e) => e.topic === 'approval.requested' && e.payload.approval_task_id === r.body.approval_task_id,
      ).length;
    await until(() => announced() === 1, 'the task announced');
    const d = await approve(r.body.approval_task_id, { decision: 'deferred', notes: 'need the survey' }, 'bob');
    expect(d.body).toMatchObject({ status: 'pending', decision: 'defer', workflow_status: 'pending_approval' });
    await until(() => announced() === 2, 'the deferred task announced again');
    expect((await approve(r.body.approval_task_id, { decision: 'approve' }, 'bob')).body.workflow_status).toBe(
      'completed',
    );
    const task = (await status(r.body.workflow_id)).body.approval_tasks[0];
    expect(task.history.map((h: any) => h.decision)).toEqual(['defer', 'approve']);
  });

  it('reject compensates the completed steps in reverse order; the workflow ends rejected', async () => {
    packs.put({
      metadata: { pack_id: 'gated', version: '1.0.0', workflow_type: 'operational', name: 'gated' },
      steps: [
        { step: 'g-a', type: 'action', action: 'http', compensation: 'http', parameters: { url: `${callee.url}/g-a` } },
        { step: 'g-b', type: 'action', action: 'http', compensation: 'http', parameters: { url: `${callee.url}/g-b` } },
        { step: 'g-review', type: 'hil_approval', instructions: 'look' },
        { step: 'g-c', type: 'action', action: 'http', parameters: { url: `${callee.url}/g-c` } },
      ],
    });
    const r = await execute({ workflow_pack_id: 'gated', workflow_type: 'operational', payload: {} });
    expect(r.body).toMatchObject({ status: 'pending_approval', requires_human_approval: true });
    const d = await approve(r.body.approval_task_id, { decision: 'reject', notes: 'no' }, 'bob');
    expect(d.body).toMatchObject({ status: 'rejected', workflow_status: 'rejected' });
    const s = (await status(r.body.workflow_id)).body;
    expect(s.compensation).toEqual({ reason: 'rejection', status: 'completed', steps: ['g-b', 'g-a'], parked: [] });
    const undo = callee.calls.filter((c) => c.method === 'DELETE' && c.key?.startsWith(r.body.workflow_id));
    expect(undo.map((c) => [c.path, c.key])).toEqual([
      ['/g-b', `${r.body.workflow_id}:g-b:compensate`],
      ['/g-a', `${r.body.workflow_id}:g-a:compensate`],
    ]);
    expect(callee.calls.some((c) => c.path === '/g-c' && c.key?.startsWith(r.body.workflow_id))).toBe(false);
  });

  it('an undecided task escalates at its deadline (a durable timer), and again after', async () => {
    const r = await execute({ workflow_type: 'legal', payload: {} });
    await until(
      async () => (await status(r.body.workflow_id)).body.approval_tasks[0].escalation_level >= 1,
      'the task to escalate',
      { tries: 400, everyMs: 50 },
    );
    expect((await approve(r.body.approval_task_id, { decision: 'approve' }, 'bob')).body.workflow_status).toBe(
      'completed',
    );
  });
});

describe('saga', () => {
  it('a failing step is retried with the same key, then the completed steps are compensated in reverse; the workflow ends failed', async () => {
    packs.put(httpPack('fails', callee.url, ['f-a', 'f-b', 'f-c']));
    callee.failWith('/f-c', 503);
    const r = await execute({ workflow_pack_id: 'fails', workflow_type: 'operational', payload: {} });
    let s: any;
    await until(
      async () => (s = (await status(r.body.workflow_id)).body).status === 'failed',
      'the saga to fail and compensate',
    );
    const c = s.steps.find((x: any) => x.step === 'f-c');
    expect(c).toMatchObject({ status: 'failed', attempts: 3 });
    expect(c.error).toContain('503');
    expect(callee.calls.filter((x) => x.path === '/f-c' && x.key === `${r.body.workflow_id}:f-c`)).toHaveLength(3);
    expect(s.compensation).toEqual({ reason: 'failure', status: 'completed', steps: ['f-b', 'f-a'], parked: [] });
    expect(s.steps.find((x: any) => x.step === 'f-a')).toMatchObject({
      status: 'completed',
      compensation_status: 'compensated',
    });
    await until(
      () =>
        busEvents.some(
          (e) =>
            e.topic === 'compliance.workflow_event' &&
            e.payload.workflow_id === r.body.workflow_id &&
            e.payload.status === 'failed',
        ),
      'the compliance notice of the failure',
    );
  });

  it('a compensation that keeps failing is parked for an operator, the others still run', async () => {
    packs.put(httpPack('parks', callee.url, ['p-a', 'p-b', 'p-c']));
    callee.failWith('/p-c', 400);
    callee.failWith('DELETE /p-b', 500);
    const r = await execute({ workflow_pack_id: 'parks', workflow_type: 'operational', payload: {} });
    let s: any;
    await until(async () => (s = (await status(r.body.workflow_id)).body).status === 'failed', 'the saga to end');
    // p-c failed for good at once (400 is not retryable); undoing p-b failed twice
    // (WORKFLOW_COMPENSATION_MAX_ATTEMPTS=2) and was parked; p-a was still undone.
    expect(s.steps.find((x: any) => x.step === 'p-c').attempts).toBe(1);
    expect(s.compensation).toEqual({ reason: 'failure', status: 'parked', steps: ['p-a'], parked: ['p-b'] });
    expect(s.steps.find((x: any) => x.step === 'p-b')).toMatchObject({
      compensation_status: 'parked',
      compensation_attempts: 2,
    });
    expect(s.steps.find((x: any) => x.step === 'p-b').compensation_error).toContain('500');
  });

  it("decision branches on the data, parallel members all run, validation steps call the validation service with the caller's token", async () => {
    packs.put({
      metadata: { pack_id: 'branchy', version: '1.0.0', workflow_type: 'operational', name: 'branchy' },
      steps: [
        { step: 'check', type: 'validation', rule_pack_id: 'kyc', rule_pack_version: '1.0.0' },
        { step: 'size', type: 'action', action: 'set', parameters: { value: 'big' }, output_field: 'size' },
        {
          step: 'route',
          type: 'decision',
          branches: [
            {
              name: 'large',
              when: { field: 'amount', operator: '>', value: 100 },
              steps: [{ step: 'large-1', type: 'action', action: 'record' }],
            },
          ],
          otherwise: [{ step: 'small-1', type: 'action', action: 'record' }],
        },
        {
          step: 'fan',
          type: 'parallel',
          steps: [
            { step: 'fan-a', type: 'action', action: 'http', parameters: { url: `${callee.url}/fan-a` } },
            { step: 'fan-b', type: 'action', action: 'http', parameters: { url: `${callee.url}/fan-b` } },
          ],
        },
      ],
    });
    const big = await execute({ workflow_pack_id: 'branchy', workflow_type: 'operational', payload: { amount: 500 } });
    expect(big.body.status).toBe('completed');
    const steps = (await status(big.body.workflow_id)).body.steps;
    const names = steps.map((s: any) => s.step);
    expect(names).toEqual(expect.arrayContaining(['check', 'size', 'route', 'large-1', 'fan', 'fan-a', 'fan-b']));
    expect(names).not.toContain('small-1');
    expect(steps.find((s: any) => s.step === 'route').output).toMatchObject({ name: 'large' });
    expect(validation.seen.at(-1)).toMatchObject({
      context: { token: requester, tenantId: 'tenant-a' },
      request: { rule_pack_id: 'kyc', payload: { amount: 500 } },
    });
    const small = await execute({ workflow_pack_id: 'branchy', workflow_type: 'operational', payload: { amount: 5 } });
    expect((await status(small.body.workflow_id)).body.steps.map((s: any) => s.step)).toContain('small-1');
    const invalid = await execute({
      workflow_pack_id: 'branchy',
      workflow_type: 'operational',
      payload: { amount: 5, invalid: true },
    });
    expect(invalid.body.status).toBe('failed');
    expect(invalid.body.message).toContain('validation');
  });

  it('a callee that stays down: retries, then compensation, never an unrecorded half-finished saga', async () => {
    packs.put(httpPack('down', 'http://127.0.0.1:1', ['d-a']));
    const r = await execute({ workflow_pack_id: 'down', workflow_type: 'operational', payload: {} });
    let s: any;
    await until(async () => (s = (await status(r.body.workflow_id)).body).status === 'failed', 'the saga to fail');
    expect(s.steps[0]).toMatchObject({ status: 'failed', attempts: 3 });
    expect(s.steps[0].error).toContain('unreachable');
  });
});

it("writes workflow_execution audit events (start and end) to the outbox, in the spec's shape", async () => {
  const r = await execute({ workflow_pack_id: 'legacy-audit', workflow_type: 'operational', payload: {} });
  const rows = await harness.db.sql.query<{
    event_type: string;
    event_data: any;
    tenant_id: string;
    user_id: string;
    correlation_id: string;
  }>(
    "SELECT event_type, event_data, tenant_id, user_id, correlation_id FROM outbox_events WHERE service = 'workflow' AND event_data->>'workflow_id' = $1 ORDER BY id",
    [r.body.workflow_id],
  );
  expect(rows.rows.map((x) => x.event_data.status)).toEqual(['running', 'completed']);
  expect(rows.rows[1]).toMatchObject({
    event_type: 'workflow_execution',
    tenant_id: 'tenant-a',
    user_id: 'alice',
    correlation_id: r.body.correlation_id,
    event_data: { workflow_id: r.body.workflow_id, pack_id: 'legacy-audit', status: 'completed', steps_executed: 3 },
  });
});

it("GET /workflow-status counts the tenant's executions; GET / describes the service", async () => {
  const s = await call(`${url}/workflow-status`, { token: requester });
  expect(s.status).toBe(200);
  expect(s.body).toMatchObject({ service: 'workflow', status: 'operational', tenant_id: 'tenant-a' });
  expect(s.body.executions.completed).toBeGreaterThan(0);
  const b = await call(`${url}/workflow-status`, { token: otherTenant });
  expect(b.body.executions.completed ?? 0).toBe(0);
  expect((await call(`${url}/`)).body.service).toBe('workflow');
});
