// The workflow service's domain (spec 03, "Workflow"): start an execution of a workflow pack
// (registry or built-in), read its status, decide its approval tasks, list executions and the
// approvals inbox. Every method takes the Caller first and resolves the tenant through the
// platform's one rule; another tenant's workflow or task is a 404. The executor
// (execution.scheduler.ts, execution.run.ts) does the running.
import { randomUUID } from 'node:crypto';
import { assertScope, hasRole, isAdmin } from '../../platform/auth/auth-context';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { PacksRegistryClient, PackVersionView } from '../../platform/clients/packs-registry.client';
import { ServiceCallError } from '../../platform/clients/service-request';
import {
  ConflictError,
  ForbiddenError,
  InputError,
  NotFoundError,
  UnavailableError,
} from '../../platform/errors/domain-errors';
import { encodeCursor, decodeTextCursor } from '../../platform/pagination/cursor';
import { ACTIONS } from './action.catalogue';
import { parseDecision, requiresApproval } from './approval.policy';
import { builtinPack, namedBuiltinPack } from './builtin-packs';
import { checkPayload, packProblems } from './pack.check';
import type { WorkflowConfig } from './workflow.config';
import type { WorkflowEvents } from './workflow.events';
import type { WorkflowExecutor } from './execution.scheduler';
import type { AuditEventInput } from '../../platform/outbox/outbox.writer';
import { workflowAudit } from './workflow.audit';
import type { ListFilter, NewExecution, TaskFilter, WorkflowStore } from './workflow.store';
import {
  WORKFLOW_TYPES,
  type ApprovalTask,
  type Execution,
  type ExecutionStatus,
  type PackSource,
  type PackStep,
  type StepRecord,
  type Transition,
  type WorkflowPack,
  type WorkflowType,
} from './workflow.types';

export interface ExecuteInput {
  workflowPackId?: string;
  /** A registry version to run; the newest certified one when absent. */
  workflowPackVersion?: string;
  workflowType?: string;
  payload?: unknown;
  metadata?: unknown;
}

export interface ResolvedPack {
  pack: WorkflowPack;
  source: PackSource;
  packId: string;
  packVersion: string;
}

export interface ExecuteResult {
  status: ExecutionStatus;
  workflowId: string;
  approvalTaskId: string | null;
  requiresHumanApproval: boolean;
  correlationId: string;
  message: string;
  packId: string;
  packVersion: string | null;
  packSource: PackSource;
}

export interface ExecutionView {
  execution: Execution;
  steps: StepRecord[];
  tasks: ApprovalTask[];
}

export interface DecideInput {
  decision?: unknown;
  notes?: string | null;
  /** X-User-ID on REST; the caller's username on GraphQL. */
  reviewer?: string;
}

export interface DecideResult {
  task: ApprovalTask;
  /** `unknown` only if the task's execution is gone (no foreign key prevents it). */
  workflowStatus: ExecutionStatus | 'unknown';
  message: string;
}

export interface Forwarding {
  /** The caller's bearer token, for the steps run while the request waits. */
  token?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_PAGE = 200;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export class WorkflowService {
  constructor(
    private readonly deps: {
      store: WorkflowStore;
      executor: WorkflowExecutor;
      events: WorkflowEvents;
      packs: Pick<PacksRegistryClient, 'get'>;
      access: TenantAccess;
      config: WorkflowConfig;
      version: string;
    },
  ) {}

  private async tenant(caller: Caller, action: string, scope: 'read' | 'write'): Promise<string> {
    if (caller.auth) assertScope(caller.auth, scope);
    return this.deps.access.resolve(caller, undefined, ['header', 'x-tenant-id'], action);
  }

  async execute(caller: Caller, input: ExecuteInput, forwarding: Forwarding = {}): Promise<ExecuteResult> {
    const issues = [];
    if (input.workflowType === undefined || input.workflowType === null)
      issues.push({ loc: ['workflowType'], msg: 'Field required', type: 'missing' });
    else if (!(WORKFLOW_TYPES as readonly string[]).includes(input.workflowType)) {
      issues.push({
        loc: ['workflowType'],
        msg: `Input should be ${WORKFLOW_TYPES.map((t) => `'${t}'`).join(', ')}`,
        type: 'enum',
      });
    }
    if (input.payload === undefined || input.payload === null)
      issues.push({ loc: ['payload'], msg: 'Field required', type: 'missing' });
    else if (!isObject(input.payload))
      issues.push({ loc: ['payload'], msg: 'Input should be a valid dictionary', type: 'dict_type' });
    if (input.metadata !== undefined && input.metadata !== null && !isObject(input.metadata))
      issues.push({ loc: ['metadata'], msg: 'Input should be a valid dictionary', type: 'dict_type' });
    if (issues.length > 0) throw new InputError(issues);
    const workflowType = input.workflowType as WorkflowType;
    const payload = input.payload as Record<string, unknown>;
    const tenantId = await this.tenant(caller, 'execute a workflow', 'write');

    const resolved = await this.resolvePack(caller.correlationId, tenantId, input, workflowType, forwarding);
    const { source, packId, packVersion } = resolved;
    const start = this.startOf(tenantId, resolved, {
      workflowType,
      payload,
      metadata: input.metadata ?? {},
      requestedBy: caller.auth?.username ?? null,
      correlationId: caller.correlationId,
    });
    const { id } = start.execution;
    const { store, executor, config } = this.deps;
    // The request waits (WORKFLOW_SYNC_WAIT_MS at most) while this process drives the saga to
    // its first resting point: done, failed, or waiting for a human or a retry timer. The start
    // is written with the run's first write (execution.journal.ts): a saga of in-process steps is
    // one group-committed write, insert to end.
    const {
      drive,
      inserted,
      execution: begun,
    } = executor.startOwned(start.execution, start.started, start.audit, forwarding.token);
    void drive;
    const ended = await executor.settle(id, config.syncWaitMs);
    // Not ended yet (waiting, or still running past the wait): the answer names an execution that
    // exists, so its first write must have committed; a start that failed fails the request.
    if (ended === undefined) await inserted;
    // The answer needs the execution, and its tasks only when one can be pending (reads saved per
    // run). A drive that ended it completed has committed all the answer says (the status; no
    // error, no task): the execution as started, with that status, saves reading it back.
    const execution = ended === 'completed' ? { ...begun, status: ended } : await store.execution(tenantId, id);
    if (!execution) throw new NotFoundError(`Workflow '${id}' not found`);
    const view: ExecutionView = {
      execution,
      steps: [],
      tasks: execution.status === 'pending_approval' ? await store.tasksOf(store.sql, tenantId, id) : [],
    };
    const task = view.tasks.find((t) => t.status === 'pending') ?? null;
    return {
      status: view.execution.status,
      workflowId: id,
      approvalTaskId: task?.id ?? null,
      requiresHumanApproval: view.execution.requiresApproval,
      correlationId: caller.correlationId,
      message: messageOf(view, source, packId),
      packId,
      packVersion,
      packSource: source,
    };
  }

  /**
   * Inserts an execution of a resolved pack with its start transition and audit event, in one
   * transaction of its own, leased to this executor (a trigger's start; `POST /execute` writes its
   * start with the run's first write instead). With `triggerStart`, the (trigger, event) is
   * claimed in that same transaction: an event delivered twice starts one execution (`started:
   * false` and nothing inserted the second time).
   */
  async begin(
    tenantId: string,
    resolved: ResolvedPack,
    run: {
      workflowType: WorkflowType;
      payload: Record<string, unknown>;
      metadata: unknown;
      requestedBy: string | null;
      correlationId: string;
      triggerStart?: { triggerId: string; eventId: string };
    },
  ): Promise<{ id: string; started: boolean }> {
    const { store, executor } = this.deps;
    const { execution, started: startedEvent, audit } = this.startOf(tenantId, resolved, run);
    const { id } = execution;
    const { triggerStart } = run;
    // A trigger's start claims its (trigger, event) in the same transaction as the insert.
    const started = await store.transaction(async (q) => {
      if (triggerStart && !(await store.claimTriggerStart(q, tenantId, { ...triggerStart, workflowId: id })))
        return false;
      await store.insertExecution(q, execution);
      const t = await store.transition(q, tenantId, {
        workflowId: id,
        owner: executor.owner,
        leaseMs: execution.leaseMs,
        ...startedEvent,
      });
      await store.appendAudit(q, audit);
      await this.deps.events.written(q, [t], run.correlationId);
      return true;
    });
    if (started) this.deps.events.committed();
    return { id, started };
  }

  /** A new execution of a resolved pack, leased to this executor, with its start transition and audit event (not written). */
  private startOf(
    tenantId: string,
    resolved: ResolvedPack,
    run: {
      workflowType: WorkflowType;
      payload: Record<string, unknown>;
      metadata: unknown;
      requestedBy: string | null;
      correlationId: string;
    },
  ): {
    execution: NewExecution;
    started: { event: string; detail: Record<string, unknown> };
    audit: AuditEventInput;
  } {
    const { pack, source, packId, packVersion } = resolved;
    const { workflowType, payload, requestedBy, correlationId } = run;
    checkPayload(pack, payload);
    const approval = requiresApproval(pack, workflowType, payload, this.deps.config.financialApprovalThreshold);
    const steps =
      approval && pack.steps[0]?.type !== 'hil_approval' ? [gateStep(pack.steps), ...pack.steps] : pack.steps;
    const id = randomUUID();
    const { executor, config } = this.deps;
    const execution: NewExecution = {
      id,
      tenantId,
      packId,
      packVersion,
      packSource: source,
      workflowType,
      requiresApproval: approval || hasApprovalStep(steps),
      pack: { ...pack, steps },
      payload,
      metadata: run.metadata,
      requestedBy,
      correlationId,
      leaseOwner: executor.owner,
      leaseMs: config.leaseMs,
    };
    const started = { event: 'workflow.started', detail: { pack_id: packId, pack_source: source } };
    const audit = workflowAudit(
      { id, tenantId, packId, packVersion, packSource: source, workflowType, requestedBy, correlationId },
      approval ? 'pending_approval' : 'running',
      0,
    );
    return { execution, started, audit };
  }

  /**
   * The pack an execution runs: the registry's (with the caller's token, else this service's
   * identity for the tenant), or the built-in pack of the type for an id no registry holds.
   */
  async resolvePack(
    correlationId: string,
    tenantId: string,
    input: ExecuteInput,
    workflowType: WorkflowType,
    forwarding: Forwarding,
  ) {
    const builtin = () => {
      const pack = builtinPack(workflowType);
      return {
        pack,
        source: 'builtin' as const,
        packId: input.workflowPackId ?? pack.metadata.pack_id,
        packVersion: pack.metadata.version,
      };
    };
    if (!input.workflowPackId) return builtin();
    // A reserved built-in pack (the compliance report sign-off) runs as shipped, never a registry's.
    const named = namedBuiltinPack(input.workflowPackId);
    if (named) {
      if (named.metadata.workflow_type !== workflowType)
        throw InputError.of(
          ['workflowType'],
          `Workflow pack '${named.metadata.pack_id}' is ${named.metadata.workflow_type} work, not ${workflowType}`,
        );
      return {
        pack: named,
        source: 'builtin' as const,
        packId: named.metadata.pack_id,
        packVersion: named.metadata.version,
      };
    }
    let entry: PackVersionView;
    try {
      entry = await this.deps.packs.get(
        { token: forwarding.token, tenantId, correlationId },
        input.workflowPackId,
        input.workflowPackVersion,
      );
    } catch (err) {
      if (err instanceof ServiceCallError && err.status === 404) {
        if (this.deps.config.requireRegisteredPacks || input.workflowPackVersion) {
          throw new NotFoundError(
            `Workflow pack '${input.workflowPackId}'${input.workflowPackVersion ? ` version ${input.workflowPackVersion}` : ''} not found`,
          );
        }
        return builtin();
      }
      if (err instanceof ServiceCallError && (err.status === 401 || err.status === 403)) {
        throw new UnavailableError("The packs registry refused the workflow service's request; retry shortly");
      }
      throw new UnavailableError('The packs registry is unavailable, retry shortly');
    }
    if (entry.kind !== 'workflow' || !entry.artifact.content)
      throw InputError.of(['workflowPackId'], `'${input.workflowPackId}' is a rule pack, not a workflow pack`);
    if (entry.status === 'deprecated') {
      const r = entry.replacement;
      throw new ConflictError(
        `Workflow pack '${entry.pack_id}' version ${entry.version} is deprecated${r ? `; use '${r.pack_id}' version ${r.version} instead` : ''}`,
      );
    }
    if (entry.status !== 'certified')
      throw new ConflictError(
        `Workflow pack '${entry.pack_id}' version ${entry.version} is not certified (status '${entry.status}'); only certified packs run`,
      );
    const problems = packProblems(entry.artifact.content);
    const pack = entry.artifact.content as unknown as WorkflowPack;
    if (problems.length === 0) problems.push(...unknownActions(pack.steps));
    if (problems.length > 0)
      throw InputError.of(
        ['workflowPackId'],
        `Workflow pack '${entry.pack_id}' version ${entry.version} cannot run: ${problems.join('; ')}`,
      );
    if (pack.metadata.workflow_type !== workflowType) {
      throw InputError.of(
        ['workflowType'],
        `Workflow pack '${entry.pack_id}' is ${pack.metadata.workflow_type} work, not ${workflowType}`,
      );
    }
    return { pack, source: 'registry' as const, packId: entry.pack_id, packVersion: entry.version };
  }

  async status(caller: Caller, workflowId: string): Promise<ExecutionView> {
    const tenantId = await this.tenant(caller, 'read a workflow', 'read');
    return this.view(tenantId, workflowId);
  }

  private async view(tenantId: string, workflowId: string): Promise<ExecutionView> {
    const { store } = this.deps;
    const execution = UUID.test(workflowId) ? await store.execution(tenantId, workflowId) : undefined;
    if (!execution) throw new NotFoundError(`Workflow '${workflowId}' not found`);
    return {
      execution,
      steps: await store.steps(store.sql, tenantId, workflowId),
      tasks: await store.tasksOf(store.sql, tenantId, workflowId),
    };
  }

  /**
   * Several of the caller's tenant's executions with their steps and tasks (entity references,
   * batched per request): one read each of executions, steps and tasks however many ids.
   * Unknown or another tenant's ids are null.
   */
  async statusByIds(caller: Caller, ids: readonly string[]): Promise<(ExecutionView | null)[]> {
    const tenantId = await this.tenant(caller, 'read a workflow', 'read');
    const { store } = this.deps;
    const executions = await store.executionsByIds(
      store.sql,
      tenantId,
      ids.filter((id) => UUID.test(id)),
    );
    const found = executions.map((e) => e.id);
    const steps = found.length === 0 ? [] : await store.stepsOfExecutions(store.sql, tenantId, found);
    const tasks = found.length === 0 ? [] : await store.tasksOfExecutions(store.sql, tenantId, found);
    const views = new Map(
      executions.map((e) => [
        e.id,
        {
          execution: e,
          steps: steps.filter((s) => s.workflowId === e.id),
          tasks: tasks.filter((t) => t.workflowId === e.id),
        },
      ]),
    );
    return ids.map((id) => views.get(id.toLowerCase()) ?? null);
  }

  async decide(caller: Caller, taskId: string, input: DecideInput): Promise<DecideResult> {
    const reviewer = input.reviewer?.trim();
    if (!reviewer) throw InputError.of(['header', 'x-user-id'], 'Field required', 'missing');
    const decision = parseDecision(input.decision);
    const tenantId = await this.tenant(caller, 'decide an approval task', 'write');
    const auth = caller.auth;
    if (auth && !auth.isService && auth.username !== reviewer)
      throw new ForbiddenError('X-User-ID must name the authenticated user');
    this.deps.access.requireMfa(caller, 'decide an approval');
    if (!UUID.test(taskId)) throw new NotFoundError(`Approval task '${taskId}' not found`);
    const { store, config, executor } = this.deps;
    const notes = input.notes ?? null;
    const { task, transitions } = await store.transaction(async (q) => {
      const found = await store.taskForUpdate(q, tenantId, taskId);
      if (!found) throw new NotFoundError(`Approval task '${taskId}' not found`);
      if (found.status !== 'pending')
        throw new ConflictError(`Approval task '${taskId}' was already decided (${found.status})`);
      if (found.requestedBy !== null && found.requestedBy === reviewer)
        throw new ForbiddenError('A reviewer cannot decide their own request');
      if (found.reviewerRole && auth && !auth.isService && !hasRole(auth, found.reviewerRole) && !isAdmin(auth)) {
        throw new ForbiddenError(`Role '${found.reviewerRole}' required to decide this task`);
      }
      const history = [...found.history, { reviewer, decision, notes, at: new Date().toISOString() }];
      const status = decision === 'approve' ? 'approved' : decision === 'reject' ? 'rejected' : 'pending';
      const decided = await store.decideTask(q, tenantId, taskId, { status, reviewer, decision, notes, history });
      if (!decided) throw new NotFoundError(`Approval task '${taskId}' not found`); // locked above: cannot happen
      const base = { workflowId: found.workflowId, owner: null, leaseMs: config.leaseMs, step: found.step, taskId };
      const ts: Transition[] = [];
      if (decision === 'defer') {
        ts.push(
          await store.transition(q, tenantId, { ...base, event: 'approval.decided', detail: { decision, reviewer } }),
        );
        // Deferred: still pending, announced again to the inbox.
        ts.push(
          await store.transition(q, tenantId, {
            ...base,
            event: 'approval.requested',
            detail: { deferred: true, deferred_by: reviewer },
          }),
        );
      } else {
        await store.deleteTaskTimers(q, tenantId, taskId);
        ts.push(
          await store.transition(q, tenantId, {
            ...base,
            event: 'approval.decided',
            detail: { decision, reviewer },
            patch: { status: 'running', runAfterMs: 0 },
          }),
        );
      }
      await this.deps.events.written(q, ts, caller.correlationId);
      return { task: decided, transitions: ts };
    });
    if (transitions.length > 0) this.deps.events.committed();
    if (decision !== 'defer') {
      // Resume here and now when no other executor holds the workflow; else the poller will.
      if (await executor.kick(task.workflowId)) await executor.settle(task.workflowId, config.syncWaitMs);
    }
    const execution = await store.execution(tenantId, task.workflowId);
    const workflowStatus = execution?.status ?? 'unknown';
    const message =
      decision === 'defer'
        ? 'Decision deferred: the task stays pending and was announced again'
        : decision === 'approve'
          ? `Approved: the workflow resumed (${workflowStatus})`
          : `Rejected: the workflow compensates (${workflowStatus})`;
    return { task, workflowStatus, message };
  }

  async executions(
    caller: Caller,
    filter: ListFilter,
    first = 50,
    after?: string,
  ): Promise<{ executions: Execution[]; nextCursor: string | null }> {
    const tenantId = await this.tenant(caller, 'list workflows', 'read');
    const { limit, before } = page(first, after);
    const rows = await this.deps.store.executions(tenantId, filter, limit + 1, before);
    const items = rows.slice(0, limit);
    return { executions: items, nextCursor: rows.length > limit ? cursorOf(items.at(-1)!) : null };
  }

  async approvalTasks(
    caller: Caller,
    filter: TaskFilter,
    first = 50,
    after?: string,
  ): Promise<{ tasks: ApprovalTask[]; nextCursor: string | null }> {
    const tenantId = await this.tenant(caller, 'list approval tasks', 'read');
    const { limit, before } = page(first, after);
    const rows = await this.deps.store.tasks(tenantId, filter, limit + 1, before);
    const items = rows.slice(0, limit);
    return { tasks: items, nextCursor: rows.length > limit ? cursorOf(items.at(-1)!) : null };
  }

  async approvalTask(caller: Caller, id: string): Promise<ApprovalTask> {
    const tenantId = await this.tenant(caller, 'read an approval task', 'read');
    const task = UUID.test(id) ? await this.deps.store.task(tenantId, id) : undefined;
    if (!task) throw new NotFoundError(`Approval task '${id}' not found`);
    return task;
  }

  /** Several of the caller's tenant's approval tasks in one read (entity references); unknown or another tenant's ids are null. */
  async approvalTasksByIds(caller: Caller, ids: readonly string[]): Promise<(ApprovalTask | null)[]> {
    const tenantId = await this.tenant(caller, 'read an approval task', 'read');
    const found = await this.deps.store.tasksByIds(
      this.deps.store.sql,
      tenantId,
      ids.filter((id) => UUID.test(id)),
    );
    const byId = new Map(found.map((t) => [t.id, t]));
    return ids.map((id) => byId.get(id.toLowerCase()) ?? null);
  }

  /** GET /workflow-status: the service and the caller's tenant's executions by status. */
  async serviceStatus(caller: Caller): Promise<Record<string, unknown>> {
    const tenantId = await this.tenant(caller, 'read the workflow status', 'read');
    const res = await this.deps.store.sql.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM workflow_executions WHERE tenant_id = $1 GROUP BY status',
      [tenantId],
    );
    const pending = await this.deps.store.sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM workflow_approval_tasks WHERE tenant_id = $1 AND status = 'pending'",
      [tenantId],
    );
    return {
      service: 'workflow',
      version: this.deps.version,
      status: 'operational',
      tenant_id: tenantId,
      executions: Object.fromEntries(res.rows.map((r) => [r.status, Number(r.n)])),
      pending_approvals: Number(pending.rows[0]?.n ?? 0),
      workflow_types: WORKFLOW_TYPES,
      actions: Object.keys(ACTIONS),
    };
  }

  /** The tenant a subscription acts in (the same rule as every read). */
  subscriptionTenant(caller: Caller): Promise<string> {
    return this.tenant(caller, 'subscribe to workflows', 'read');
  }

  /** 404 unless the workflow is the tenant's. */
  async assertWorkflow(tenantId: string, workflowId: string): Promise<Execution> {
    const e = UUID.test(workflowId) ? await this.deps.store.execution(tenantId, workflowId) : undefined;
    if (!e) throw new NotFoundError(`Workflow '${workflowId}' not found`);
    return e;
  }
}

const CURSOR_KIND = 'wf';

function cursorOf(row: { createdAt: string; id: string }): string {
  return encodeCursor(CURSOR_KIND, `${row.createdAt}|${row.id}`);
}

function page(
  first: number,
  after: string | undefined,
): { limit: number; before: { createdAt: string; id: string } | null } {
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE)
    throw InputError.of(['first'], `Input should be between 1 and ${MAX_PAGE}`, 'value_error');
  if (after === undefined || after === null) return { limit: first, before: null };
  const text = decodeTextCursor(after, CURSOR_KIND, 'after');
  const [createdAt, id] = text.split('|');
  if (!createdAt || !id || !UUID.test(id) || Number.isNaN(Date.parse(createdAt)))
    throw InputError.of(['after'], 'Invalid cursor', 'value_error');
  return { limit: first, before: { createdAt, id } };
}

function gateStep(steps: PackStep[]): PackStep {
  const names = new Set<string>();
  const walk = (ss: PackStep[]) =>
    ss.forEach((s) => {
      names.add(s.step);
      s.branches?.forEach((b) => walk(b.steps));
      walk(s.otherwise ?? []);
      walk(s.steps ?? []);
    });
  walk(steps);
  let name = 'human-approval';
  for (let i = 2; names.has(name); i++) name = `human-approval-${i}`;
  return {
    step: name,
    type: 'hil_approval',
    instructions: 'This work needs a human approval before it runs (spec 03)',
  };
}

function hasApprovalStep(steps: PackStep[]): boolean {
  return steps.some(
    (s) =>
      s.type === 'hil_approval' ||
      hasApprovalStep(s.steps ?? []) ||
      hasApprovalStep(s.otherwise ?? []) ||
      (s.branches ?? []).some((b) => hasApprovalStep(b.steps)),
  );
}

function unknownActions(steps: PackStep[]): string[] {
  const problems: string[] = [];
  const walk = (ss: PackStep[]) =>
    ss.forEach((s) => {
      if (s.type === 'action' && s.action && !ACTIONS[s.action])
        problems.push(`step '${s.step}': unknown action '${s.action}'`);
      if (s.compensation && !ACTIONS[s.compensation])
        problems.push(`step '${s.step}': unknown compensation '${s.compensation}'`);
      s.branches?.forEach((b) => walk(b.steps));
      walk(s.otherwise ?? []);
      walk(s.steps ?? []);
    });
  walk(steps);
  return problems;
}

function messageOf(view: ExecutionView, source: PackSource, packId: string): string {
  const e = view.execution;
  const packNote =
    source !== 'builtin'
      ? ''
      : namedBuiltinPack(packId)
        ? ` (ran the reserved built-in pack '${packId}')`
        : ` (pack '${packId}' is not in the packs registry: ran the built-in ${e.workflowType} pack)`;
  switch (e.status) {
    case 'completed':
      return `Workflow completed${packNote}`;
    case 'pending_approval': {
      const task = view.tasks.find((t) => t.status === 'pending');
      return `Workflow requires human approval${task ? `: approval task ${task.id} is pending` : ''}${packNote}`;
    }
    case 'failed':
      return `Workflow failed: ${e.error ?? 'a step failed'}; completed steps were compensated${packNote}`;
    case 'rejected':
      return `Workflow rejected; completed steps were compensated${packNote}`;
    case 'compensating':
      return `Workflow failed: ${e.error ?? 'a step failed'}; compensating${packNote}`;
    default:
      return `Workflow is running${packNote}`;
  }
}
