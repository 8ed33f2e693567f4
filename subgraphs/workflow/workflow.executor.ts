// The durable executor (docs/workflow.md, "Durable execution"). Executions live in the platform
// database; an executor drives one only while it holds its lease (`lease_owner`, renewed by every
// transition and by a heartbeat), and every transition is written, fenced by that lease, before
// the executor acts on it:
//   step.started (persisted) → the call, with the step's idempotency key → step.completed
// A process killed anywhere resumes on restart (or in another process once the lease expires):
// completed steps are never called again; a step caught between `started` and `completed` is
// called again with the same idempotency key, so the callee acts once. Retry and escalation
// timers are rows (`next_run_at`, `workflow_timers`), so they survive restarts too. Executors in
// several processes claim work with FOR UPDATE SKIP LOCKED and never drive one execution at once.
//
// Batching (docs/workflow.md, "Throughput"): an action with no effect outside the saga (`noop`,
// `record`, `set`) runs without its own transactions. Its `step.started` and `step.completed`
// transitions are queued and written in the same transaction as the saga's next write, which
// always comes before anything acts on them (the next outside call's `step.started`, an approval,
// the end, the answer). A process killed before that write runs those steps again on resume:
// harmless, as they touch nothing outside. A 3-step saga of such actions is two transactions.
import { randomUUID } from 'node:crypto';
import type { ServiceCallContext } from '../../platform/clients/service-request';
import type { SqlQuery } from '../../platform/db/sql';
import type { Logger } from '../../platform/logging/logger';
import { StepFailure } from './action.catalogue';
import { conditionHolds } from './decision.condition';
import type { StepRunner } from './step.runner';
import type { WorkflowConfig } from './workflow.config';
import { idempotencyKeyOf, stepData } from './workflow.data';
import type { WorkflowEvents } from './workflow.events';
import { LeaseLostError, type TransitionInput, type WorkflowStore } from './workflow.store';
import type { ApprovalTask, CompensationRecord, Execution, PackStep, StepRecord, Transition } from './workflow.types';

type Outcome = 'done' | 'suspended' | 'failed' | 'rejected';

const LEAF_TYPES = new Set(['action', 'validation', 'ai']);
/** Actions with no effect outside the saga's own records: safe to run again, so batched. */
const IN_PROCESS_ACTIONS = new Set(['noop', 'record', 'set']);
/** A queued (not yet written) step's completion sorts after every written one until its real version is known. */
const QUEUED_SEQ_BASE = 1e12;

export interface ExecutorDeps {
  store: WorkflowStore;
  runner: StepRunner;
  events: WorkflowEvents;
  config: WorkflowConfig;
  logger: Logger;
  /** A token for calls made when no caller's token is at hand (resumed runs): the workflow service's own, acting in the tenant. */
  serviceToken(tenantId: string): Promise<string>;
  /** An id for this executor (tests run two in one process). */
  owner?: string;
}

/** The pack's steps by path: `0`, `1`, nested `2.b0.1` (decision branch 0), `2.o.0` (otherwise), `3.p1` (parallel member). */
export function stepsByPath(steps: PackStep[]): Map<string, PackStep> {
  const into = new Map<string, PackStep>();
  const add = (s: PackStep, path: string) => {
    into.set(path, s);
    s.branches?.forEach((b, k) => b.steps.forEach((c, j) => add(c, `${path}.b${k}.${j}`)));
    s.otherwise?.forEach((c, j) => add(c, `${path}.o.${j}`));
    if (s.type === 'parallel') s.steps?.forEach((m, i) => add(m, `${path}.p${i}`));
  };
  steps.forEach((s, j) => add(s, `${j}`));
  return into;
}

export class WorkflowExecutor {
  readonly owner: string;
  private readonly active = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private polling: Promise<void> | undefined;

  constructor(private readonly deps: ExecutorDeps) {
    this.owner = deps.owner ?? `wf-${process.pid}-${randomUUID().slice(0, 8)}`;
  }

  get config(): WorkflowConfig {
    return this.deps.config;
  }

  /** Starts polling for runnable executions and due timers. */
  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.polling = this.poll().catch((err: unknown) => this.deps.logger.warn({ err }, 'workflow executor poll failed')).finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.deps.config.pollMs);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  /** Stops polling and waits for the executions it drives to reach a persisted point. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
    await Promise.allSettled([...this.active.values()]);
  }

  /** One round: fire due timers, claim what is runnable up to the concurrency limit. */
  async poll(): Promise<void> {
    await this.fireTimers();
    const room = this.deps.config.concurrency - this.active.size;
    if (room <= 0) return;
    const claims = await this.deps.store.claimRunnableAcrossTenants(this.owner, this.deps.config.leaseMs, room);
    for (const { id, tenantId } of claims) this.track(id, tenantId, undefined);
  }

  /** Claims one execution now (after an approval) and drives it; false when another executor holds it. */
  async kick(id: string): Promise<boolean> {
    if (this.active.has(id)) return true;
    const [claimed] = await this.deps.store.claimRunnableAcrossTenants(this.owner, this.deps.config.leaseMs, 1, id);
    if (!claimed) {
      // This executor's own poller may have claimed it a moment ago (its claim was in flight):
      // once that poll has handed out its claims, the drive is ours to wait on.
      await this.polling;
      return this.active.has(id);
    }
    this.track(id, claimed.tenantId, undefined);
    return true;
  }

  /** Drives an execution this executor already holds (just inserted with its lease: no steps or tasks yet), with the caller's token. */
  driveOwned(id: string, tenantId: string, token: string | undefined): Promise<void> {
    return this.track(id, tenantId, token, true);
  }

  /** Waits (at most `ms`) for this executor's drive of `id`, if any, to finish. */
  async settle(id: string, ms: number): Promise<void> {
    const drive = this.active.get(id);
    if (!drive || ms <= 0) return;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([drive, new Promise<void>((r) => (timeout = setTimeout(r, ms)))]);
    clearTimeout(timeout);
  }

  private track(id: string, tenantId: string, token: string | undefined, fresh = false): Promise<void> {
    const existing = this.active.get(id);
    if (existing) return existing;
    const drive = this.drive(id, tenantId, token, fresh).finally(() => this.active.delete(id));
    this.active.set(id, drive);
    return drive;
  }

  private async drive(id: string, tenantId: string, token: string | undefined, fresh: boolean): Promise<void> {
    const { store, config, logger } = this.deps;
    const heartbeat = setInterval(() => {
      store.renewLease(tenantId, id, this.owner, config.leaseMs).catch((err: unknown) => logger.warn({ err, workflow_id: id }, 'renewing a workflow lease failed'));
    }, Math.max(50, Math.floor(config.leaseMs / 3)));
    try {
      const execution = await store.executionById(store.sql, tenantId, id);
      if (!execution) return;
      // A fresh execution has no step records or tasks yet: two reads saved per start.
      const steps = fresh ? [] : await store.steps(store.sql, tenantId, id);
      const tasks = fresh ? [] : await store.tasksOf(store.sql, tenantId, id);
      const run = new Run(this.deps, this.owner, execution, steps, tasks, token);
      await run.go();
    } catch (err) {
      if (err instanceof LeaseLostError) {
        logger.warn({ workflow_id: id }, 'another executor took over this workflow (lease expired); stopped driving it');
        return;
      }
      logger.error({ err, workflow_id: id }, 'driving a workflow failed; it will be retried');
      await store.releaseLease(tenantId, id, this.owner, 5_000).catch(() => {});
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Approval deadlines: each due timer escalates its task once (and sets the next deadline). */
  private async fireTimers(): Promise<void> {
    const { store, config } = this.deps;
    const fired: Transition[] = [];
    await store.transaction(async (q) => {
      for (const timer of await store.takeDueTimersAcrossTenants(q, 20)) {
        if (timer.kind !== 'approval_deadline' || !timer.task_id) continue;
        const task = await store.escalateTask(q, timer.tenant_id, timer.task_id, config.approvalDeadlineMs);
        if (!task) continue; // decided meanwhile
        await store.insertTimer(q, { id: randomUUID(), tenantId: task.tenantId, workflowId: task.workflowId, kind: 'approval_deadline', taskId: task.id, fireAt: task.deadlineAt });
        fired.push(await store.transition(q, task.tenantId, {
          workflowId: task.workflowId, owner: null, leaseMs: config.leaseMs, event: 'approval.escalated', step: task.step, taskId: task.id,
          detail: { escalation_level: task.escalationLevel, deadline_at: task.deadlineAt },
        }));
      }
    });
    for (const t of fired) this.deps.events.published(t);
  }
}

/** One drive of one execution: walks the pack from its persisted state. */
class Run {
  private readonly steps: Map<string, PackStep>;
  private readonly records: Map<string, StepRecord>;
  private retryAfterMs: number | undefined;
  private call: ServiceCallContext | undefined;
  /** Transitions of in-process steps, written with the next transaction (see the file's head). */
  private queued: { t: Omit<TransitionInput, 'workflowId' | 'owner' | 'leaseMs'>; path?: string }[] = [];
  private queuedSeq = QUEUED_SEQ_BASE;

  constructor(
    private readonly deps: ExecutorDeps,
    private readonly owner: string,
    private execution: Execution,
    records: StepRecord[],
    private tasks: ApprovalTask[],
    private readonly token: string | undefined,
  ) {
    this.steps = stepsByPath(execution.pack.steps);
    this.records = new Map(records.map((r) => [r.path, r]));
  }

  async go(): Promise<void> {
    const e = this.execution;
    if (e.status !== 'running' && e.status !== 'compensating') return this.release();
    const outcome = e.status === 'compensating' ? await this.compensate() : await this.sequence(e.pack.steps, '');
    switch (outcome) {
      case 'done':
        return this.finish();
      case 'failed':
        return this.startCompensation('failure');
      case 'rejected':
        return this.startCompensation('rejection');
      case 'suspended':
        return this.release();
    }
  }

  // --- walking the pack ---

  private async sequence(steps: PackStep[], prefix: string): Promise<Outcome> {
    for (let j = 0; j < steps.length; j++) {
      const outcome = await this.step(steps[j]!, `${prefix}${j}`);
      if (outcome !== 'done') return outcome;
    }
    return 'done';
  }

  private async step(step: PackStep, path: string): Promise<Outcome> {
    const rec = this.records.get(path);
    if (rec?.status === 'completed' || rec?.status === 'skipped') return 'done';
    if (rec?.status === 'failed') return 'failed';
    if (step.type === 'action' && IN_PROCESS_ACTIONS.has(step.action ?? '')) return this.inProcess(step, path);
    if (LEAF_TYPES.has(step.type)) return this.leaf(step, path);
    if (step.type === 'hil_approval') return this.approval(step, path);
    if (step.type === 'decision') return this.decision(step, path);
    return this.parallel(step, path);
  }

  private async leaf(step: PackStep, path: string): Promise<Outcome> {
    const { config, runner } = this.deps;
    const before = this.records.get(path);
    const rec = this.record(step, path, {
      status: 'running', attempts: (before?.attempts ?? 0) + 1, error: null, startedAt: before?.startedAt ?? new Date().toISOString(),
    });
    await this.commit(rec, { event: 'step.started', step: step.step, detail: { attempt: rec.attempts, executor: this.owner } });
    let output: unknown;
    try {
      output = await runner.run({
        tenantId: this.execution.tenantId, workflowId: this.execution.id, step, idempotencyKey: rec.idempotencyKey, data: this.data(), call: await this.callContext(),
      });
    } catch (err) {
      const failure = err instanceof StepFailure ? err : new StepFailure((err as Error).message, true);
      if (failure.retryable && rec.attempts < config.stepMaxAttempts) {
        const delay = config.retryBaseMs * 2 ** (rec.attempts - 1);
        this.retryAfterMs = Math.min(this.retryAfterMs ?? delay, delay);
        await this.commit(this.record(step, path, { status: 'retrying', error: failure.message }), {
          event: 'step.retrying', step: step.step, detail: { attempt: rec.attempts, retry_in_ms: delay, error: failure.message },
        });
        return 'suspended';
      }
      await this.commit(this.record(step, path, { status: 'failed', error: failure.message, finishedAt: new Date().toISOString() }), {
        event: 'step.failed', step: step.step, detail: { attempt: rec.attempts, error: failure.message }, patch: { error: failure.message },
      });
      return 'failed';
    }
    await this.complete(step, path, output, { attempt: rec.attempts });
    return 'done';
  }

  /** An in-process action: run at once, its transitions queued for the next write. */
  private async inProcess(step: PackStep, path: string): Promise<Outcome> {
    const before = this.records.get(path);
    const attempt = (before?.attempts ?? 0) + 1;
    const startedAt = before?.startedAt ?? new Date().toISOString();
    let output: unknown;
    try {
      output = await this.deps.runner.run({
        tenantId: this.execution.tenantId, workflowId: this.execution.id, step, idempotencyKey: this.record(step, path, {}).idempotencyKey, data: this.data(), call: await this.callContext(),
      });
    } catch {
      // Not expected of these actions; let the ordinary path record the failure durably.
      return this.leaf(step, path);
    }
    this.record(step, path, {
      status: 'completed', attempts: attempt, error: null, startedAt, output: output ?? null, finishedAt: new Date().toISOString(), completedSeq: this.queuedSeq++,
    });
    this.queued.push({ t: { event: 'step.started', step: step.step, detail: { attempt, executor: this.owner } } });
    this.queued.push({ t: { event: 'step.completed', step: step.step, detail: { attempt } }, path });
    return 'done';
  }

  /** Writes the queued transitions (and their steps' records) first in the caller's transaction: three statements however many. */
  private async flush(q: SqlQuery): Promise<Transition[]> {
    // Taken at once: a parallel group's members may write concurrently, and each item is written once.
    const items = this.queued;
    this.queued = [];
    if (items.length === 0) return [];
    const written = await this.deps.store.transitionBatch(q, this.execution.tenantId, {
      workflowId: this.execution.id, owner: this.owner, leaseMs: this.deps.config.leaseMs, status: this.execution.status,
      items: items.map((i) => ({ event: i.t.event, step: i.t.step, detail: i.t.detail })),
    });
    const records: StepRecord[] = [];
    items.forEach((item, k) => {
      if (!item.path) return;
      const rec = { ...this.records.get(item.path)!, completedSeq: written[k]!.version };
      this.records.set(item.path, rec);
      records.push(rec);
    });
    await this.deps.store.saveSteps(q, this.execution.tenantId, records);
    return written;
  }

  /** One transaction: the queued transitions, then `work`; the transitions published after the commit, in order. */
  private async write<T extends Transition | undefined>(work: (q: SqlQuery) => Promise<T>): Promise<T> {
    const { store, events } = this.deps;
    const { before, result } = await store.transaction(async (q) => ({ before: await this.flush(q), result: await work(q) }));
    events.publishedAll(result ? [...before, result] : before);
    return result;
  }

  private async approval(step: PackStep, path: string): Promise<Outcome> {
    const { store, config } = this.deps;
    const task = this.tasks.find((t) => t.stepPath === path);
    if (!task) {
      const now = Date.now();
      const created: ApprovalTask = {
        id: randomUUID(), tenantId: this.execution.tenantId, workflowId: this.execution.id, workflowType: this.execution.workflowType, stepPath: path,
        step: step.step, payload: this.execution.payload, status: 'pending', reviewer: null, decision: null, notes: null, history: [],
        requestedBy: this.execution.requestedBy, reviewerRole: step.reviewer_role ?? null, instructions: step.instructions ?? null,
        createdAt: new Date(now).toISOString(), decidedAt: null, deadlineAt: new Date(now + config.approvalDeadlineMs).toISOString(), escalationLevel: 0,
      };
      const rec = this.record(step, path, { status: 'waiting', attempts: 1, startedAt: created.createdAt });
      await this.write(async (q) => {
        await store.insertTask(q, created);
        await store.insertTimer(q, { id: randomUUID(), tenantId: created.tenantId, workflowId: created.workflowId, kind: 'approval_deadline', taskId: created.id, fireAt: created.deadlineAt });
        const tr = await this.transition(q, { event: 'approval.requested', step: step.step, taskId: created.id, patch: { status: 'pending_approval' }, detail: { reviewer_role: created.reviewerRole } });
        await store.saveStep(q, this.execution.tenantId, rec);
        return tr;
      });
      this.tasks.push(created);
      return 'suspended';
    }
    if (task.status === 'pending') return 'suspended';
    if (task.status === 'approved') {
      await this.complete(step, path, { decision: 'approve', reviewer: task.reviewer, notes: task.notes, approval_task_id: task.id }, {});
      return 'done';
    }
    const message = `rejected by ${task.reviewer ?? 'a reviewer'}${task.notes ? `: ${task.notes}` : ''}`;
    await this.commit(this.record(step, path, { status: 'failed', error: message, finishedAt: new Date().toISOString() }), {
      event: 'step.failed', step: step.step, taskId: task.id, detail: { error: message }, patch: { error: message },
    });
    return 'rejected';
  }

  private async decision(step: PackStep, path: string): Promise<Outcome> {
    let rec = this.records.get(path);
    if (!rec) {
      const data = this.data();
      const index = (step.branches ?? []).findIndex((b) => conditionHolds(b.when, data));
      const branch = index >= 0 ? { tag: `b${index}`, name: step.branches![index]!.name ?? `branch ${index}` } : step.otherwise ? { tag: 'o', name: 'otherwise' } : { tag: 'none', name: 'none' };
      rec = this.record(step, path, { status: 'decided', attempts: 1, startedAt: new Date().toISOString(), output: branch });
      await this.commit(rec, { event: 'step.decided', step: step.step, detail: { branch: branch.name } });
    }
    const tag = (rec.output as { tag: string }).tag;
    const children = tag === 'o' ? step.otherwise ?? [] : tag === 'none' ? [] : step.branches![Number(tag.slice(1))]!.steps;
    const outcome = await this.sequence(children, `${path}.${tag}.`);
    if (outcome !== 'done') return outcome;
    await this.complete(step, path, rec.output, {});
    return 'done';
  }

  private async parallel(step: PackStep, path: string): Promise<Outcome> {
    if (!this.records.get(path)) {
      await this.commit(this.record(step, path, { status: 'running', attempts: 1, startedAt: new Date().toISOString() }), { event: 'step.started', step: step.step });
    }
    // Every member runs to its own end (a failing one does not cut the others short: what they
    // completed is compensated like any completed step).
    const outcomes = await Promise.all((step.steps ?? []).map((m, i) => this.step(m, `${path}.p${i}`)));
    for (const worst of ['failed', 'rejected', 'suspended'] as const) if (outcomes.includes(worst)) return worst;
    await this.complete(step, path, null, {});
    return 'done';
  }

  // --- compensation ---

  private async startCompensation(reason: 'failure' | 'rejection'): Promise<void> {
    const compensation: CompensationRecord = { reason, status: 'compensating', steps: [], parked: [] };
    await this.write((q) => this.transition(q, { event: 'workflow.compensating', detail: { reason }, patch: { status: 'compensating', compensation } }));
    this.execution = { ...this.execution, status: 'compensating', compensation };
    const outcome = await this.compensate();
    if (outcome === 'suspended') await this.release();
  }

  /** Compensates completed steps in reverse completion order; each retried, then parked. */
  private async compensate(): Promise<Outcome> {
    const { config, runner } = this.deps;
    const comp: CompensationRecord = this.execution.compensation ?? { reason: 'failure', status: 'compensating', steps: [], parked: [] };
    const due = [...this.records.values()]
      .filter((r) => r.status === 'completed' && r.compensation && r.compensationStatus !== 'compensated' && r.compensationStatus !== 'parked')
      .sort((a, b) => b.completedSeq! - a.completedSeq!);
    for (const r of due) {
      const step = this.steps.get(r.path)!;
      const attempts = r.compensationAttempts + 1;
      await this.commit({ ...r, compensationStatus: 'compensating', compensationAttempts: attempts }, { event: 'step.compensating', step: r.step, detail: { attempt: attempts } });
      try {
        await runner.compensate({
          tenantId: this.execution.tenantId, workflowId: this.execution.id, step, idempotencyKey: r.idempotencyKey, data: this.data(), call: await this.callContext(),
        }, r.output);
      } catch (err) {
        const message = (err as Error).message;
        if (attempts < config.compensationMaxAttempts) {
          const delay = config.retryBaseMs * 2 ** (attempts - 1);
          this.retryAfterMs = delay;
          await this.commit({ ...this.records.get(r.path)!, compensationError: message }, { event: 'step.compensation_retrying', step: r.step, detail: { attempt: attempts, retry_in_ms: delay, error: message } });
          return 'suspended';
        }
        comp.parked.push(r.step);
        await this.commit({ ...this.records.get(r.path)!, compensationStatus: 'parked', compensationError: message }, {
          event: 'step.compensation_parked', step: r.step, detail: { attempts, error: message }, patch: { compensation: comp },
        });
        continue;
      }
      comp.steps.push(r.step);
      await this.commit({ ...this.records.get(r.path)!, compensationStatus: 'compensated', compensationError: null, compensatedAt: new Date().toISOString() }, {
        event: 'step.compensated', step: r.step, patch: { compensation: comp },
      });
    }
    const status = comp.reason === 'rejection' ? 'rejected' : 'failed';
    const final: CompensationRecord = { ...comp, status: comp.parked.length > 0 ? 'parked' : 'completed' };
    await this.end(status, `workflow.${status}`, { compensation: final });
    return 'done';
  }

  // --- persistence ---

  private async finish(): Promise<void> {
    await this.end('completed', 'workflow.completed', {});
  }

  /** The final transition, the lease given up and the closing workflow_execution audit event, in one transaction. */
  private async end(status: 'completed' | 'failed' | 'rejected', event: string, patch: { compensation?: CompensationRecord }): Promise<void> {
    const { store } = this.deps;
    const executed = [...this.records.values()].filter((r) => r.status === 'completed' && r.type !== 'decision' && r.type !== 'parallel').length;
    await this.write(async (q) => {
      const tr = await this.transition(q, { event, detail: { steps_executed: executed }, patch: { ...patch, status, completed: true, release: true } });
      await store.appendAudit(q, workflowAudit(this.execution, status, executed));
      return tr;
    });
  }

  /** Gives the lease up; with a retry pending, the execution is not claimed again before its timer. */
  private async release(): Promise<void> {
    if (this.queued.length > 0) await this.write(async () => undefined);
    await this.deps.store.releaseLease(this.execution.tenantId, this.execution.id, this.owner, this.retryAfterMs ?? null);
  }

  private async complete(step: PackStep, path: string, output: unknown, detail: Record<string, unknown>): Promise<void> {
    const { store } = this.deps;
    await this.write(async (q) => {
      const tr = await this.transition(q, { event: 'step.completed', step: step.step, detail });
      const rec = this.record(step, path, { status: 'completed', output: output ?? null, error: null, finishedAt: new Date().toISOString(), completedSeq: tr.version });
      await store.saveStep(q, this.execution.tenantId, rec);
      return tr;
    });
  }

  /** Saves a step record and a transition together, then publishes the transition. */
  private async commit(rec: StepRecord, t: Omit<TransitionInput, 'workflowId' | 'owner' | 'leaseMs'>): Promise<void> {
    const { store } = this.deps;
    this.records.set(rec.path, rec);
    await this.write(async (q) => {
      const tr = await this.transition(q, t);
      await store.saveStep(q, this.execution.tenantId, rec);
      return tr;
    });
  }

  private transition(q: SqlQuery, t: Omit<TransitionInput, 'workflowId' | 'owner' | 'leaseMs'>): Promise<Transition> {
    return this.deps.store.transition(q, this.execution.tenantId, { ...t, workflowId: this.execution.id, owner: this.owner, leaseMs: this.deps.config.leaseMs });
  }

  /** The step's record with changes, kept in memory (saved by the caller). */
  private record(step: PackStep, path: string, changes: Partial<StepRecord>): StepRecord {
    const base: StepRecord = this.records.get(path) ?? {
      workflowId: this.execution.id, path, step: step.step, type: step.type, action: step.action ?? null, compensation: step.compensation ?? null,
      idempotencyKey: idempotencyKeyOf(step, { workflowId: this.execution.id, tenantId: this.execution.tenantId }, this.execution.payload),
      status: 'running', attempts: 0, output: null, error: null, startedAt: null, finishedAt: null, completedSeq: null,
      compensationStatus: null, compensationAttempts: 0, compensationError: null, compensatedAt: null,
    };
    const rec = { ...base, ...changes };
    this.records.set(path, rec);
    return rec;
  }

  private data(): Record<string, unknown> {
    return stepData(this.execution.payload, this.steps, this.records.values());
  }

  private async callContext(): Promise<ServiceCallContext> {
    this.call ??= {
      token: this.token ?? (await this.deps.serviceToken(this.execution.tenantId)),
      tenantId: this.execution.tenantId,
      correlationId: this.execution.correlationId,
    };
    return this.call;
  }
}

/** The spec's `workflow_execution` ledger event (spec 03): workflow_id, pack_id (as requested), status, steps_executed. */
export function workflowAudit(e: Pick<Execution, 'id' | 'tenantId' | 'packId' | 'packVersion' | 'packSource' | 'workflowType' | 'requestedBy' | 'correlationId'>, status: string, stepsExecuted: number) {
  return {
    tenantId: e.tenantId,
    eventType: 'workflow_execution',
    eventData: {
      workflow_id: e.id, pack_id: e.packId, status, steps_executed: stepsExecuted,
      pack_version: e.packVersion, pack_source: e.packSource, workflow_type: e.workflowType,
    },
    userId: e.requestedBy,
    correlationId: e.correlationId,
    idempotencyKey: `workflow_execution:${e.id}:${status}`,
  };
}
