// The workflow domain without a database: WorkflowService and the real WorkflowExecutor over
// recording strict fakes of the store, the step runner, the bus and the packs registry. The store
// is faked at the level of its interface (WorkflowStore), as workflow.store.ts and
// workflow.executor.ts are not seams we may change here. A store method a case does not give, or
// one called with another tenant, fails the case.
import type { Caller } from '../../../platform/auth/caller';
import { TenantAccess } from '../../../platform/auth/tenant-access';
import type { EventBus } from '../../../platform/events/event-bus';
import type { Logger } from '../../../platform/logging/logger';
import { ForbiddenError, NotFoundError } from '../../../platform/errors/domain-errors';
import type { StepRunner } from '../../../subgraphs/workflow/step.runner';
import type { WorkflowConfig } from '../../../subgraphs/workflow/workflow.config';
import type { PendingNotice } from '../../../platform/outbox/notice.writer';
import { WorkflowEvents, type PlannedNotice } from '../../../subgraphs/workflow/workflow.events';
import type { RunWritten } from '../../../subgraphs/workflow/run-write.store';
import { COMPLIANCE_WORKFLOW_EVENT } from '../../../platform/contracts/compliance.events';
import { WORKFLOW_CHANGED } from '../../../platform/contracts/workflow.events';
import { WorkflowExecutor } from '../../../subgraphs/workflow/execution.scheduler';
import { WorkflowService } from '../../../subgraphs/workflow/workflow.service';
import type {
  NewExecution,
  RunWrite,
  TransitionInput,
  WorkflowStore,
} from '../../../subgraphs/workflow/workflow.store';
import type {
  ApprovalTask,
  Execution,
  PackStep,
  StepRecord,
  Transition,
  WorkflowPack,
} from '../../../subgraphs/workflow/workflow.types';
import { Fakes, withArgs } from '../../support/recording-fake';

const TENANT = 'tenant-a';
const WF = '11111111-1111-4111-8111-111111111111';
const TASK = '22222222-2222-4222-8222-222222222222';
const SQL = { name: 'pool' }; // store.sql: passed through, never called by the domain itself
const TX = { name: 'tx' }; // the query handle a transaction hands its work

const config: WorkflowConfig = {
  requireAuth: true,
  requireRegisteredPacks: false,
  financialApprovalThreshold: 10_000,
  leaseMs: 60_000,
  pollMs: 1_000,
  concurrency: 4,
  stepMaxAttempts: 3,
  compensationMaxAttempts: 3,
  retryBaseMs: 1_000,
  syncWaitMs: 1_000,
  approvalDeadlineMs: 3_600_000,
  httpAllowedHosts: [],
  httpTimeoutMs: 1_000,
  packsRegistryUrl: 'http://packs',
  validationUrl: 'http://validation',
  aiBrokerUrl: 'http://ai',
  dataflowUrl: 'http://dataflow',
  triggerMaxDeliveries: 5,
  triggerBackoffMs: 1_000,
  triggerRefreshMs: 30_000,
  writeTransactions: 2,
};

const alice = { username: 'alice', tenantId: TENANT, roles: ['user'], scopes: ['read', 'write'], isService: false };
const rita = { username: 'rita', tenantId: TENANT, roles: ['reviewer'], scopes: ['read', 'write'], isService: false };
const callerOf = (auth: typeof alice): Caller => ({ auth, correlationId: 'corr-1' });

const gate: PackStep = { step: 'human-approval', type: 'hil_approval' };
const pay: PackStep = { step: 'pay', type: 'action', action: 'http', compensation: 'http' };
const post: PackStep = { step: 'post', type: 'action', action: 'http' };

function execution(status: Execution['status'], steps: PackStep[]): Execution {
  return executionOf(status, steps);
}

function executionOf(status: Execution['status'], steps: PackStep[]): Execution {
  return {
    id: WF,
    tenantId: TENANT,
    packId: 'p',
    packVersion: '1.0.0',
    packSource: 'builtin',
    workflowType: 'financial',
    status,
    requiresApproval: true,
    pack: { metadata: { pack_id: 'p', version: '1.0.0', workflow_type: 'financial', name: 'p' }, steps },
    payload: { amount: 50_000 },
    metadata: {},
    context: {},
    requestedBy: 'alice',
    correlationId: 'corr-1',
    version: 3,
    error: null,
    compensation: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    completedAt: null,
  };
}

function task(status: ApprovalTask['status'], changes: Partial<ApprovalTask> = {}): ApprovalTask {
  return {
    id: TASK,
    tenantId: TENANT,
    workflowId: WF,
    workflowType: 'financial',
    stepPath: '0',
    step: gate.step,
    payload: {},
    status,
    reviewer: status === 'pending' ? null : 'rita',
    decision: null,
    notes: null,
    history: [],
    requestedBy: 'alice',
    reviewerRole: null,
    instructions: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    decidedAt: null,
    deadlineAt: '2024-01-02T00:00:00.000Z',
    escalationLevel: 0,
    ...changes,
  };
}

/** A transition as the store would write it (status from the patch, else `running`). */
let seq = 0;
const transitionOf = (tenantId: string, t: TransitionInput): Transition => ({
  seq: ++seq,
  tenantId,
  workflowId: t.workflowId,
  version: seq,
  event: t.event,
  status: t.patch?.status ?? 'running',
  step: t.step ?? null,
  taskId: t.taskId ?? null,
  detail: t.detail ?? null,
  at: '2024-01-01T00:00:00.000Z',
});

/** The store's writes every case allows: all pinned to TENANT and to the transaction's handle. */
const writes = () => ({
  sql: SQL as unknown as WorkflowStore['sql'],
  transaction: (async (work: (q: unknown) => Promise<unknown>) => work(TX)) as unknown as WorkflowStore['transaction'],
  transition: withArgs(
    [TX, TENANT, expect.objectContaining({ workflowId: WF })],
    async (_q: unknown, tenantId: string, t: TransitionInput) => transitionOf(tenantId, t),
  ) as unknown as WorkflowStore['transition'],
  saveStep: withArgs(
    [TX, TENANT, expect.objectContaining({ workflowId: WF })],
    async () => undefined,
  ) as unknown as WorkflowStore['saveStep'],
  appendAudit: withArgs(
    [TX, expect.objectContaining({ tenantId: TENANT })],
    async () => undefined,
  ) as unknown as WorkflowStore['appendAudit'],
  // The group-committed runs' writes (run-write.store.ts): each write's transitions as `transition` would number them.
  writeRunsAcrossTenants: withArgs([SQL, expect.any(Array), expect.any(Array)], async (_q: unknown, ws: RunWrite[]) => {
    const byExecution = new Map<string, { transitions: Transition[]; steps: StepRecord[]; execution?: Execution }>();
    for (const w of ws) {
      if (w.tenantId !== TENANT || (w.audits ?? []).some((a) => a.tenantId !== TENANT))
        throw new Error(`wrote in ${w.tenantId}`);
      const transitions = w.items.map((item, i) =>
        transitionOf(w.tenantId, {
          workflowId: w.workflowId,
          owner: w.owner,
          leaseMs: w.leaseMs,
          ...item,
          ...(i === w.items.length - 1 && w.patch ? { patch: w.patch } : {}),
        }),
      );
      const steps = w.steps.map(({ record, completedAt }) =>
        completedAt === undefined ? record : { ...record, completedSeq: transitions[completedAt]!.version },
      );
      const execution = w.insert
        ? { ...executionOf('running', (w.insert.pack as WorkflowPack).steps), id: w.insert.id }
        : undefined;
      byExecution.set(w.workflowId, { transitions, steps, ...(execution ? { execution } : {}) });
    }
    return { byExecution };
  }) as unknown as WorkflowStore['writeRunsAcrossTenants'],
});

/** Every transition a case wrote, one by one or group-committed, in order. */
const eventsOf = (fakes: Fakes): string[] =>
  fakes.calls
    .filter((c) => c.fake === 'store' && (c.method === 'transition' || c.method === 'writeRunsAcrossTenants'))
    .flatMap((c) =>
      c.method === 'transition'
        ? [(c.args[2] as TransitionInput).event]
        : (c.args[1] as RunWrite[]).flatMap((w) => w.items.map((i) => i.event)),
    );

/** Every audit event a case wrote, one by one or group-committed. */
const auditsOf = (fakes: Fakes): unknown[] => [
  ...fakes.argsOf('store', 'appendAudit').map((a) => a[1]),
  ...fakes
    .argsOf('store', 'writeRunsAcrossTenants')
    .flatMap((a) => (a[1] as RunWrite[]).flatMap((w) => w.audits ?? [])),
];

function build(store: Partial<WorkflowStore>, runner: Partial<StepRunner> = {}) {
  const fakes = new Fakes();
  const published: { topic: string; payload: unknown }[] = [];
  const bus = fakes.make<Pick<EventBus, 'publish'>>('bus', {
    publish: async (topic, payload) => void published.push({ topic, payload }),
  });
  const logger = fakes.make<Logger>('logger', {});
  const grouped = { ...writes(), ...store }.writeRunsAcrossTenants as unknown as (
    q: unknown,
    ws: RunWrite[],
    planned: PlannedNotice[],
  ) => Promise<RunWritten>;
  // A group write's notices go out in its statement (run-write.store.ts): recorded here, completed
  // from the transitions written as the statement completes them, as what the relay publishes.
  const fakeStore = fakes.make<WorkflowStore>('store', {
    ...writes(),
    ...store,
    writeRunsAcrossTenants: (async (q: unknown, ws: RunWrite[], planned: PlannedNotice[]) => {
      const written = await grouped(q, ws, planned);
      for (const p of planned) {
        const t = written.byExecution.get(p.workflowId)?.transitions[p.i];
        if (!t) continue;
        const data = p.notice.envelope.data as Record<string, unknown>;
        published.push({
          topic: p.notice.envelope.type,
          payload: p.changed
            ? { ...data, version: t.version, seq: t.seq }
            : { ...data, version: t.version, status: t.status, at: t.at },
        });
      }
      return written;
    }) as unknown as WorkflowStore['writeRunsAcrossTenants'],
  });
  // Notices are written in the transaction (the notice outbox): recorded here as what the relay publishes.
  const events = new WorkflowEvents(
    {
      appendNotices: withArgs([TX, expect.any(Array)], async (_q: unknown, notices: PendingNotice[]) => {
        for (const n of notices) published.push({ topic: n.envelope.type, payload: n.envelope.data });
      }) as unknown as WorkflowStore['appendNotices'],
    },
    bus,
    logger,
  );
  const fakeRunner = fakes.make<StepRunner>('runner', runner);
  const executor = new WorkflowExecutor({
    store: fakeStore,
    runner: fakeRunner,
    events,
    config,
    logger,
    owner: 'exec-1',
    serviceToken: fakes.make<{ serviceToken(tenantId: string): Promise<string> }>('identity', {
      serviceToken: withArgs([TENANT], async () => 'service-token'),
    }).serviceToken,
  });
  const service = new WorkflowService({
    store: fakeStore,
    executor,
    events,
    config,
    version: 'test',
    packs: fakes.make('packs', {}),
    access: new TenantAccess(async () => {
      throw new Error('no operator access expected');
    }),
  });
  return { fakes, service, executor, published, topics: () => published.map((p) => p.topic) };
}

afterEach(() => {
  seq = 0;
});

describe('WorkflowService.decide', () => {
  it("approves in the caller's tenant: decides the task, clears its timers, resumes the run and reports its status", async () => {
    let status: Execution['status'] = 'running';
    const { fakes, service, topics } = build(
      {
        taskForUpdate: withArgs([TX, TENANT, TASK], async () => task('pending')),
        decideTask: withArgs(
          [TX, TENANT, TASK, expect.objectContaining({ status: 'approved', reviewer: 'rita', decision: 'approve' })],
          async () => task('approved'),
        ),
        deleteTaskTimers: withArgs([TX, TENANT, TASK], async () => undefined),
        // The resumed run: claimed by this executor, then driven to its end.
        claimRunnableAcrossTenants: withArgs(['exec-1', config.leaseMs, 1, WF], async () => [
          { id: WF, tenantId: TENANT },
        ]),
        executionById: withArgs([SQL, TENANT, WF], async () => execution('running', [gate, post])),
        steps: withArgs([SQL, TENANT, WF], async () => []),
        tasksOf: withArgs([SQL, TENANT, WF], async () => [task('approved')]),
        execution: withArgs([TENANT, WF], async () => ({ ...execution(status, [gate, post]) })),
      },
      {
        run: async () => {
          status = 'completed';
          return { ok: true };
        },
      },
    );
    const result = await service.decide(callerOf(rita), TASK, {
      decision: 'approved',
      reviewer: 'rita',
      notes: 'fine',
    });
    fakes.verify();
    expect(result.workflowStatus).toBe('completed');
    expect(result.message).toBe('Approved: the workflow resumed (completed)');
    // The decision's transition puts the execution back to running, now.
    const decided = fakes.argsOf('store', 'transition')[0]![2] as TransitionInput;
    expect(decided).toMatchObject({
      event: 'approval.decided',
      owner: null,
      taskId: TASK,
      patch: { status: 'running', runAfterMs: 0 },
    });
    expect(fakes.argsOf('store', 'deleteTaskTimers')).toHaveLength(1);
    // The next step ran in the tenant, under the workflow's own token (no caller's token for a resumed run).
    expect(fakes.argsOf('runner', 'run')).toEqual([
      [
        expect.objectContaining({
          tenantId: TENANT,
          workflowId: WF,
          step: post,
          call: { token: 'service-token', tenantId: TENANT, correlationId: 'corr-1' },
        }),
      ],
    ]);
    expect(topics()).toEqual(expect.arrayContaining(['approval.decided', 'step.completed', 'workflow.completed']));
  });

  it('defers without resuming: two transitions, no timer cleared, no executor claim', async () => {
    const { fakes, service } = build({
      taskForUpdate: withArgs([TX, TENANT, TASK], async () => task('pending')),
      decideTask: withArgs(
        [TX, TENANT, TASK, expect.objectContaining({ status: 'pending', decision: 'defer' })],
        async () => task('pending'),
      ),
      execution: withArgs([TENANT, WF], async () => execution('pending_approval', [gate, post])),
    });
    const result = await service.decide(callerOf(rita), TASK, { decision: 'defer', reviewer: 'rita' });
    fakes.verify();
    expect(result.workflowStatus).toBe('pending_approval');
    expect(fakes.argsOf('store', 'transition').map((a) => (a[2] as TransitionInput).event)).toEqual([
      'approval.decided',
      'approval.requested',
    ]);
    expect(fakes.trail('store')).not.toContain('store.deleteTaskTimers');
  });

  it('refuses the requester deciding their own request, before any write or event', async () => {
    const { fakes, service, published } = build({
      taskForUpdate: withArgs([TX, TENANT, TASK], async () => task('pending')),
    });
    await expect(
      service.decide(callerOf(alice), TASK, { decision: 'approve', reviewer: 'alice' }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    fakes.verify();
    expect(fakes.trail('store')).toEqual(['store.transaction', 'store.taskForUpdate']);
    expect(published).toEqual([]);
  });

  it("looks the task up in the caller's tenant only: another tenant's task is a 404", async () => {
    const { fakes, service } = build({ taskForUpdate: withArgs([TX, 'tenant-b', TASK], async () => undefined) });
    const bob = { ...rita, username: 'bob', tenantId: 'tenant-b' };
    await expect(service.decide(callerOf(bob), TASK, { decision: 'approve', reviewer: 'bob' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    fakes.verify();
  });

  it('answers a task id that is no UUID with 404 without a transaction', async () => {
    const { fakes, service } = build({});
    await expect(
      service.decide(callerOf(rita), 'nope', { decision: 'approve', reviewer: 'rita' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    fakes.verify();
    expect(fakes.calls).toEqual([]);
  });
});

describe('WorkflowService.execute', () => {
  it("runs the built-in pack behind an approval gate above the threshold, writing everything with the caller's tenant", async () => {
    let inserted: NewExecution | undefined;
    const stepsOf = (e: NewExecution) => (e.pack as WorkflowPack).steps;
    const grouped = writes().writeRunsAcrossTenants;
    const { fakes, service, executor } = build({
      writeRunsAcrossTenants: (async (q: unknown, ws: RunWrite[]) => {
        inserted ??= ws[0]?.insert;
        return (grouped as unknown as (q: unknown, ws: RunWrite[]) => Promise<unknown>)(q, ws);
      }) as unknown as WorkflowStore['writeRunsAcrossTenants'],
      execution: async (tenantId: string, id: string) =>
        tenantId === TENANT && id === inserted?.id
          ? { ...execution('pending_approval', stepsOf(inserted)), id }
          : undefined,
      tasksOf: async (_q: unknown, tenantId: string, id: string) =>
        tenantId === TENANT && id === inserted?.id ? [task('pending', { workflowId: id })] : [],
    });
    // The drive itself is the executor's business (its own cases below): here it is held still,
    // its first write (which inserts the execution) done by hand.
    let audit: unknown;
    jest.spyOn(executor, 'startOwned').mockImplementation((e, started, startAudit) => {
      inserted = e;
      audit = startAudit;
      expect(started.event).toBe('workflow.started');
      return {
        drive: Promise.resolve(undefined),
        inserted: Promise.resolve(),
        execution: { ...execution('running', stepsOf(e)), id: e.id },
      };
    });
    const result = await service.execute(
      callerOf(alice),
      { workflowType: 'financial', payload: { amount: 50_000 } },
      { token: 'caller-token' },
    );
    fakes.verify();
    // The start: the execution leased to this executor, in the caller's tenant, driven with the caller's token.
    expect(inserted).toMatchObject({ tenantId: TENANT, leaseOwner: 'exec-1', packSource: 'builtin' });
    expect(executor.startOwned).toHaveBeenCalledWith(
      inserted,
      expect.objectContaining({ event: 'workflow.started' }),
      audit,
      'caller-token',
    );
    expect(inserted!.requiresApproval).toBe(true);
    expect(stepsOf(inserted!).map((s) => s.step)).toEqual([
      'human-approval',
      'check-funds',
      'execute-transaction',
      'post-ledger-entry',
    ]);
    expect(result).toMatchObject({
      status: 'pending_approval',
      approvalTaskId: TASK,
      requiresHumanApproval: true,
      packSource: 'builtin',
    });
    // No pack id: the built-in pack, and no registry call (packs.get is not given: a call would fail).
    expect(fakes.trail('packs')).toEqual([]);
    expect(audit).toMatchObject({
      tenantId: TENANT,
      eventType: 'workflow_execution',
      eventData: { status: 'pending_approval', steps_executed: 0 },
    });
  });
});

describe('WorkflowService.execute, a saga of in-process steps', () => {
  it('writes the start with the run: ONE group write inserts the execution, every transition and both audit events, and answers completed without a read', async () => {
    const ran: string[] = [];
    const { fakes, service, topics } = build(
      {},
      {
        run: async (input) => {
          ran.push(input.step.step);
          return { ok: true };
        },
      },
    );
    const result = await service.execute(callerOf(alice), { workflowType: 'operational', payload: { n: 1 } });
    fakes.verify();
    expect(ran).toEqual(['prepare', 'execute', 'confirm']);
    expect(result).toMatchObject({ status: 'completed', requiresHumanApproval: false });
    // One write, one transaction: nothing of the execution existed before it, all of it after.
    const groups = fakes.argsOf('store', 'writeRunsAcrossTenants');
    expect(groups).toHaveLength(1);
    const [w] = groups[0]![1] as RunWrite[];
    expect(w!.insert).toMatchObject({ id: result.workflowId, tenantId: TENANT, leaseOwner: 'exec-1' });
    expect(w!.items.map((i) => i.event)).toEqual([
      'workflow.started',
      'step.started',
      'step.completed',
      'step.started',
      'step.completed',
      'step.started',
      'step.completed',
      'workflow.completed',
    ]);
    expect(w!.patch).toMatchObject({ status: 'completed', completed: true, release: true });
    expect(w!.steps.map((st) => [st.record.step, st.completedAt])).toEqual([
      ['prepare', 2],
      ['execute', 4],
      ['confirm', 6],
    ]);
    expect(w!.audits!.map((a) => (a.eventData as { status: string }).status)).toEqual(['running', 'completed']);
    // The answer came from the run, not from reading the execution back.
    expect(fakes.calls.filter((c) => c.method === 'execution' || c.method === 'executionById')).toEqual([]);
    // One transaction's notices: one `workflow.changed` for the execution.
    expect(topics().filter((t) => t === 'workflow.changed')).toHaveLength(1);
    expect(topics()[0]).toBe('workflow.started');
  });
});

describe('WorkflowExecutor.poll', () => {
  it('idle: one read of due work, no timers transaction and no claim', async () => {
    const { fakes, executor } = build({
      dueWorkAcrossTenants: async () => ({ timers: false, runnable: false }),
    });
    await executor.poll();
    fakes.verify();
    expect(fakes.trail()).toEqual(['store.dueWorkAcrossTenants']);
  });

  it('claims only when the read says something is runnable, and fires timers only when one is due', async () => {
    const { fakes, executor } = build({
      dueWorkAcrossTenants: async () => ({ timers: false, runnable: true }),
      claimRunnableAcrossTenants: withArgs(['exec-1', config.leaseMs, config.concurrency], async () => []),
    });
    await executor.poll();
    fakes.verify();
    expect(fakes.trail()).toEqual(['store.dueWorkAcrossTenants', 'store.claimRunnableAcrossTenants']);
  });
});

describe('WorkflowExecutor', () => {
  it('suspends on a pending approval: gives the lease up and runs nothing', async () => {
    const { fakes, executor } = build({
      claimRunnableAcrossTenants: async () => [{ id: WF, tenantId: TENANT }],
      executionById: withArgs([SQL, TENANT, WF], async () => execution('running', [gate, post])),
      steps: withArgs([SQL, TENANT, WF], async () => []),
      tasksOf: withArgs([SQL, TENANT, WF], async () => [task('pending')]),
      releaseLease: withArgs([TENANT, WF, 'exec-1', null], async () => undefined),
    });
    expect(await executor.kick(WF)).toBe(true);
    await executor.settle(WF, 5_000);
    fakes.verify();
    expect(fakes.trail('runner')).toEqual([]);
    expect(fakes.argsOf('store', 'releaseLease')).toHaveLength(1);
  });

  it('compensates the completed steps after a rejection, then ends rejected with its audit event and compliance notices', async () => {
    const paid: StepRecord = {
      workflowId: WF,
      path: '0',
      step: 'pay',
      type: 'action',
      action: 'http',
      compensation: 'http',
      idempotencyKey: 'k-pay',
      status: 'completed',
      attempts: 1,
      output: { paid: 1 },
      error: null,
      startedAt: null,
      finishedAt: null,
      completedSeq: 2,
      compensationStatus: null,
      compensationAttempts: 0,
      compensationError: null,
      compensatedAt: null,
    };
    const { fakes, executor, topics } = build(
      {
        claimRunnableAcrossTenants: async () => [{ id: WF, tenantId: TENANT }],
        executionById: withArgs([SQL, TENANT, WF], async () => execution('running', [pay, { ...gate }, post])),
        steps: withArgs([SQL, TENANT, WF], async () => [paid]),
        tasksOf: withArgs([SQL, TENANT, WF], async () => [task('rejected', { stepPath: '1', notes: 'too much' })]),
      },
      {
        compensate: withArgs(
          [expect.objectContaining({ tenantId: TENANT, step: pay, idempotencyKey: 'k-pay' }), { paid: 1 }],
          async () => null,
        ),
      },
    );
    await executor.kick(WF);
    await executor.settle(WF, 5_000);
    fakes.verify();
    expect(eventsOf(fakes)).toEqual([
      'step.failed',
      'workflow.compensating',
      'step.compensating',
      'step.compensated',
      'workflow.rejected',
    ]);
    expect(auditsOf(fakes)).toEqual([
      expect.objectContaining({
        tenantId: TENANT,
        eventData: expect.objectContaining({ status: 'rejected', workflow_id: WF }),
      }),
    ]);
    expect(topics().filter((t) => t === COMPLIANCE_WORKFLOW_EVENT.topic)).toHaveLength(3); // compensating, compensated, rejected
    expect(topics()).toContain(WORKFLOW_CHANGED.topic);
    expect(fakes.trail('runner')).toEqual(['runner.compensate']); // post never ran
  });

  it('does not drive an execution another executor holds', async () => {
    const { fakes, executor } = build({
      claimRunnableAcrossTenants: withArgs(['exec-1', config.leaseMs, 1, WF], async () => []),
    });
    expect(await executor.kick(WF)).toBe(false);
    fakes.verify();
    expect(fakes.trail()).toEqual(['store.claimRunnableAcrossTenants']);
  });
});
