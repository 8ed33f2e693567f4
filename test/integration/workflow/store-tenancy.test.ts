// The workflow store's reads are scoped by the tenant id they take: with another tenant's id, an
// execution, its steps and tasks are not found, and a decision, an escalation or a timer removal
// aimed at another tenant's task changes nothing. The same calls with the owner's id find them.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { createWorkflowStore, LeaseLostError, type WorkflowStore } from '../../../subgraphs/workflow/workflow.store';

jest.setTimeout(60_000);

let db: TestDatabase;
let store: WorkflowStore;
const workflowId = randomUUID();
const taskId = randomUUID();
const now = new Date().toISOString();

beforeAll(async () => {
  db = await createTestDatabase();
  store = createWorkflowStore(db.sql);
  await store.transaction(async (q) => {
    await store.insertExecution(q, {
      id: workflowId,
      tenantId: 'tenant-a',
      packId: 'p',
      packVersion: null,
      packSource: 'registry',
      workflowType: 'operational',
      requiresApproval: true,
      pack: {},
      payload: {},
      metadata: {},
      requestedBy: 'alice',
      correlationId: 'c',
      leaseOwner: 'x',
      leaseMs: 60_000,
    });
    await store.saveStep(q, 'tenant-a', {
      workflowId,
      path: '0',
      step: 'gate',
      type: 'hil_approval',
      action: null,
      compensation: null,
      idempotencyKey: 'k',
      status: 'waiting',
      attempts: 0,
      output: null,
      error: null,
      startedAt: now,
      finishedAt: null,
      completedSeq: null,
      compensationStatus: null,
      compensationAttempts: 0,
      compensationError: null,
      compensatedAt: null,
    });
    await store.insertTask(q, {
      id: taskId,
      tenantId: 'tenant-a',
      workflowId,
      workflowType: 'operational',
      stepPath: '0',
      step: 'gate',
      payload: {},
      status: 'pending',
      reviewer: null,
      decision: null,
      notes: null,
      history: [],
      requestedBy: 'alice',
      reviewerRole: null,
      instructions: null,
      createdAt: now,
      decidedAt: null,
      deadlineAt: new Date(Date.now() + 3_600_000).toISOString(),
      escalationLevel: 0,
    });
    await store.insertTimer(q, {
      id: randomUUID(),
      tenantId: 'tenant-a',
      workflowId,
      kind: 'approval_deadline',
      taskId,
      fireAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
  });
});

afterAll(async () => {
  await db?.drop();
});

it("finds nothing of tenant A's workflow with tenant B's id", async () => {
  const q = db.sql;
  expect(await store.executionById(q, 'tenant-b', workflowId)).toBeUndefined();
  expect(await store.execution('tenant-b', workflowId)).toBeUndefined();
  expect(await store.steps(q, 'tenant-b', workflowId)).toEqual([]);
  expect(await store.tasksOf(q, 'tenant-b', workflowId)).toEqual([]);
  expect(await store.task('tenant-b', taskId)).toBeUndefined();
  expect(await store.taskForUpdate(q, 'tenant-b', taskId)).toBeUndefined();
  expect(await store.transitionsAfter('tenant-b', workflowId, -1, 10)).toEqual([]);
  // The owner's id finds them: the reads above came back empty because of the tenant alone.
  expect((await store.executionById(q, 'tenant-a', workflowId))?.id).toBe(workflowId);
  expect((await store.steps(q, 'tenant-a', workflowId)).map((s) => s.step)).toEqual(['gate']);
  expect((await store.tasksOf(q, 'tenant-a', workflowId)).map((t) => t.id)).toEqual([taskId]);
});

it("the batched reads (entity references) find none of tenant A's rows with tenant B's id", async () => {
  const q = db.sql;
  const other = randomUUID();
  expect(await store.executionsByIds(q, 'tenant-b', [workflowId, other])).toEqual([]);
  expect(await store.stepsOfExecutions(q, 'tenant-b', [workflowId])).toEqual([]);
  expect(await store.tasksOfExecutions(q, 'tenant-b', [workflowId])).toEqual([]);
  expect(await store.tasksByIds(q, 'tenant-b', [taskId])).toEqual([]);
  expect((await store.executionsByIds(q, 'tenant-a', [workflowId, other])).map((e) => e.id)).toEqual([workflowId]);
  expect((await store.stepsOfExecutions(q, 'tenant-a', [workflowId, other])).map((s) => s.step)).toEqual(['gate']);
  expect((await store.tasksOfExecutions(q, 'tenant-a', [workflowId])).map((t) => t.id)).toEqual([taskId]);
  expect((await store.tasksByIds(q, 'tenant-a', [taskId, other])).map((t) => t.id)).toEqual([taskId]);
});

it('a group-committed run write moves only the execution its own tenant and lease name, and several at once', async () => {
  const started = randomUUID();
  const write = (tenantId: string, id: string, owner: string) => ({
    tenantId,
    workflowId: id,
    owner,
    leaseMs: 60_000,
    status: 'running',
    items: [{ event: 'step.started', step: 'gate' }, { event: 'workflow.failed' }],
    patch: { status: 'failed' as const, completed: true, release: true },
    steps: [],
  });
  const written = await store.transaction((q) =>
    store.writeRunsAcrossTenants(q, [
      // Tenant A's execution named with tenant B's id, and with another executor's lease: no rows.
      write('tenant-b', workflowId, 'x'),
      write('tenant-a', workflowId, 'someone-else'),
      // A start in tenant C, inserted and moved in the same statements.
      {
        ...write('tenant-c', started, 'y'),
        insert: {
          id: started,
          tenantId: 'tenant-c',
          packId: 'p',
          packVersion: null,
          packSource: 'registry',
          workflowType: 'operational',
          requiresApproval: false,
          pack: {},
          payload: { n: 1 },
          metadata: {},
          requestedBy: 'carol',
          correlationId: 'c',
          leaseOwner: 'y',
          leaseMs: 60_000,
        },
        items: [{ event: 'workflow.started' }],
        patch: undefined,
      },
    ]),
  );
  expect([...written.byExecution.keys()]).toEqual([started]);
  expect(written.byExecution.get(started)).toMatchObject({
    transitions: [{ tenantId: 'tenant-c', version: 1, event: 'workflow.started', status: 'running' }],
    execution: { id: started, tenantId: 'tenant-c', version: 1, payload: { n: 1 } },
  });
  expect(await store.execution('tenant-a', workflowId)).toMatchObject({ status: 'running', version: 0 });
  expect(await store.transitionsAfter('tenant-a', workflowId, -1, 10)).toEqual([]);
  expect(await store.execution('tenant-b', started)).toBeUndefined();
});

it("a group-committed start and its next write number queued steps and their completions from the execution's version", async () => {
  const id = randomUUID();
  const record = (path: string, step: string, completedSeq: number | null) => ({
    workflowId: id,
    path,
    step,
    type: 'action' as const,
    action: 'noop',
    compensation: null,
    idempotencyKey: `${id}:${step}`,
    status: 'completed' as const,
    attempts: 1,
    output: { ok: step },
    error: null,
    startedAt: now,
    finishedAt: now,
    completedSeq,
    compensationStatus: null,
    compensationAttempts: 0,
    compensationError: null,
    compensatedAt: null,
  });
  const base = { tenantId: 'tenant-d', workflowId: id, owner: 'z', leaseMs: 60_000, status: 'running' };
  // The start with one in-process step queued behind it (its record holds a run's placeholder order).
  const first = await store.transaction((q) =>
    store.writeRunsAcrossTenants(q, [
      {
        ...base,
        insert: {
          id,
          tenantId: 'tenant-d',
          packId: 'p',
          packVersion: null,
          packSource: 'registry',
          workflowType: 'operational',
          requiresApproval: false,
          pack: {},
          payload: { n: 2 },
          metadata: {},
          requestedBy: null,
          correlationId: 'c',
          leaseOwner: 'z',
          leaseMs: 60_000,
        },
        items: [
          { event: 'workflow.started' },
          { event: 'step.started', step: 'a' },
          { event: 'step.completed', step: 'a' },
        ],
        steps: [{ record: record('0', 'a', 1e12), completedAt: 2 }],
      },
    ]),
  );
  expect(first.byExecution.get(id)).toMatchObject({
    transitions: [{ version: 1 }, { version: 2 }, { version: 3, event: 'step.completed' }],
    steps: [{ path: '0', completedSeq: 3 }],
    execution: { id, version: 3, status: 'running', payload: { n: 2 }, context: {}, completedAt: null },
  });
  // The next write: one more step completed, then the end, its lease given up, its audit event.
  const second = await store.transaction((q) =>
    store.writeRunsAcrossTenants(q, [
      {
        ...base,
        items: [
          { event: 'step.started', step: 'b' },
          { event: 'step.completed', step: 'b' },
          { event: 'workflow.completed' },
        ],
        patch: { status: 'completed', completed: true, release: true },
        steps: [{ record: record('1', 'b', 1e12 + 1), completedAt: 1 }],
        audits: [
          {
            tenantId: 'tenant-d',
            eventType: 'workflow_execution',
            eventData: { workflow_id: id },
            userId: null,
            correlationId: 'c',
            idempotencyKey: `workflow:${id}:end`,
          },
        ],
      },
    ]),
  );
  expect(second.byExecution.get(id)!.transitions.map((t) => [t.version, t.status])).toEqual([
    [4, 'running'],
    [5, 'running'],
    [6, 'completed'],
  ]);
  expect((await store.steps(store.sql, 'tenant-d', id)).map((s) => [s.path, s.completedSeq])).toEqual([
    ['0', 3],
    ['1', 5],
  ]);
  expect(await store.execution('tenant-d', id)).toMatchObject({ status: 'completed', version: 6 });
  const audit = await db.sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM outbox_events WHERE tenant_id = 'tenant-d' AND idempotency_key = $1",
    [`workflow:${id}:end`],
  );
  expect(audit.rows[0]!.n).toBe(1);
  // A write whose lease is gone (the end gave it up) moves nothing, and its audit event, written
  // by the same statement, is not kept either.
  const lost = await store.transaction((q) =>
    store.writeRunsAcrossTenants(q, [
      {
        ...base,
        items: [{ event: 'workflow.failed' }],
        patch: { status: 'failed', completed: true, release: true },
        steps: [],
        audits: [
          {
            tenantId: 'tenant-d',
            eventType: 'workflow_execution',
            eventData: { workflow_id: id },
            userId: null,
            correlationId: 'c',
            idempotencyKey: `workflow:${id}:lost`,
          },
        ],
      },
    ]),
  );
  expect(lost.byExecution.has(id)).toBe(false);
  const none = await db.sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM outbox_events WHERE tenant_id = 'tenant-d' AND idempotency_key = $1",
    [`workflow:${id}:lost`],
  );
  expect(none.rows[0]!.n).toBe(0);
});

it("changes nothing of tenant A's task with tenant B's id", async () => {
  await store.transaction(async (q) => {
    expect(
      await store.decideTask(q, 'tenant-b', taskId, {
        status: 'approved',
        reviewer: 'mallory',
        decision: 'approve',
        notes: null,
        history: [],
      }),
    ).toBeUndefined();
    expect(await store.escalateTask(q, 'tenant-b', taskId, 1_000)).toBeUndefined();
    await store.deleteTaskTimers(q, 'tenant-b', taskId);
  });
  // A transition of tenant A's execution named with tenant B's id finds no execution to move.
  await expect(
    store.transaction((q) =>
      store.transition(q, 'tenant-b', {
        workflowId,
        owner: null,
        leaseMs: 1_000,
        event: 'workflow.failed',
        patch: { status: 'failed' },
      }),
    ),
  ).rejects.toBeInstanceOf(LeaseLostError);
  expect(await store.renewLease('tenant-b', workflowId, 'x', 1_000)).toBe(false);
  await store.releaseLease('tenant-b', workflowId, 'x');
  const lease = await db.sql.query<{ owner: string | null }>(
    'SELECT lease_owner AS owner FROM workflow_executions WHERE id = $1::uuid',
    [workflowId],
  );
  expect(lease.rows[0]!.owner).toBe('x');
  expect(await store.execution('tenant-a', workflowId)).toMatchObject({ status: 'running', version: 0 });
  const task = await store.task('tenant-a', taskId);
  expect(task).toMatchObject({ status: 'pending', reviewer: null, escalationLevel: 0 });
  const timers = await db.sql.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM workflow_timers WHERE task_id = $1::uuid',
    [taskId],
  );
  expect(Number(timers.rows[0]!.n)).toBe(1);
  // With the owner's id the decision lands.
  await store.transaction(async (q) => {
    expect(
      (
        await store.decideTask(q, 'tenant-a', taskId, {
          status: 'approved',
          reviewer: 'bob',
          decision: 'approve',
          notes: null,
          history: [],
        })
      )?.status,
    ).toBe('approved');
  });
});
