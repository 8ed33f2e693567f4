// One drive of one execution (docs/workflow.md, "Durable execution"): walks the pack from its
// persisted state. Every transition is written, fenced by the lease, before the run acts on it:
//   step.started (persisted) → the call, with the step's idempotency key → step.completed
// so a run resumed anywhere never calls a completed step again, and calls a step caught between
// `started` and `completed` again with the same key (the callee acts once). How the run writes is
// execution.journal.ts; how it undoes, execution.compensation.ts.
import { randomUUID } from 'node:crypto';
import type { ServiceCallContext } from '../../platform/clients/service-request';
import { StepFailure } from './action.catalogue';
import { conditionHolds } from './decision.condition';
import { compensate, startCompensation } from './execution.compensation';
import type { ExecutorDeps, Outcome, RunScope } from './execution.deps';
import { RunJournal, type PendingStart } from './execution.journal';
import type { RunWriteGroup } from './run-write.group';
import { stepData, stepsByPath } from './workflow.data';
import type { ApprovalTask, Execution, PackStep, StepRecord } from './workflow.types';

const LEAF_TYPES = new Set(['action', 'validation', 'ai', 'dataflow']);
/** Actions with no effect outside the saga's own records: safe to run again, so batched. */
const IN_PROCESS_ACTIONS = new Set(['noop', 'record', 'set']);

export class Run implements RunScope {
  readonly steps: Map<string, PackStep>;
  readonly journal: RunJournal;
  private call: ServiceCallContext | undefined;

  constructor(
    readonly deps: ExecutorDeps,
    owner: string,
    execution: Execution,
    records: StepRecord[],
    private tasks: ApprovalTask[],
    private readonly token: string | undefined,
    writes: RunWriteGroup,
    start?: PendingStart,
  ) {
    this.steps = stepsByPath(execution.pack.steps);
    this.journal = new RunJournal(deps, owner, execution, records, writes, start);
  }

  /** The status this run ended the execution with (committed), if it ended it. */
  get ended(): Execution['status'] | undefined {
    return this.journal.ended;
  }

  private get execution(): Execution {
    return this.journal.execution;
  }

  async go(): Promise<void> {
    const e = this.execution;
    if (e.status !== 'running' && e.status !== 'compensating') return this.journal.release();
    const outcome = e.status === 'compensating' ? await compensate(this) : await this.sequence(e.pack.steps, '');
    switch (outcome) {
      case 'done':
        return this.journal.end('completed', 'workflow.completed', {});
      case 'failed':
        return startCompensation(this, 'failure');
      case 'rejected':
        return startCompensation(this, 'rejection');
      case 'suspended':
        return this.journal.release();
    }
  }

  private async sequence(steps: PackStep[], prefix: string): Promise<Outcome> {
    for (let j = 0; j < steps.length; j++) {
      const outcome = await this.step(steps[j]!, `${prefix}${j}`);
      if (outcome !== 'done') return outcome;
    }
    return 'done';
  }

  private async step(step: PackStep, path: string): Promise<Outcome> {
    const rec = this.journal.records.get(path);
    if (rec?.status === 'completed' || rec?.status === 'skipped') return 'done';
    if (rec?.status === 'failed') return 'failed';
    if (step.type === 'action' && IN_PROCESS_ACTIONS.has(step.action ?? '')) return this.inProcess(step, path);
    if (LEAF_TYPES.has(step.type)) return this.leaf(step, path);
    if (step.type === 'hil_approval') return this.approval(step, path);
    if (step.type === 'decision') return this.decision(step, path);
    return this.parallel(step, path);
  }

  /** A step that calls out (an action, a validation, an ai or dataflow step): started durably, then called; retried on its timer, or failed. */
  private async leaf(step: PackStep, path: string): Promise<Outcome> {
    const { config, runner } = this.deps;
    const { journal } = this;
    const before = journal.records.get(path);
    const rec = journal.record(step, path, {
      status: 'running',
      attempts: (before?.attempts ?? 0) + 1,
      error: null,
      startedAt: before?.startedAt ?? new Date().toISOString(),
    });
    await journal.commit(rec, {
      event: 'step.started',
      step: step.step,
      detail: { attempt: rec.attempts, executor: journal.owner },
    });
    let output: unknown;
    try {
      output = await runner.run({
        tenantId: this.execution.tenantId,
        workflowId: this.execution.id,
        step,
        idempotencyKey: rec.idempotencyKey,
        data: this.data(),
        call: await this.callContext(),
      });
    } catch (err) {
      const failure = err instanceof StepFailure ? err : new StepFailure((err as Error).message, true);
      if (failure.retryable && rec.attempts < config.stepMaxAttempts) {
        const delay = config.retryBaseMs * 2 ** (rec.attempts - 1);
        journal.retryAfterMs = Math.min(journal.retryAfterMs ?? delay, delay);
        await journal.commit(journal.record(step, path, { status: 'retrying', error: failure.message }), {
          event: 'step.retrying',
          step: step.step,
          detail: { attempt: rec.attempts, retry_in_ms: delay, error: failure.message },
        });
        return 'suspended';
      }
      await journal.commit(
        journal.record(step, path, { status: 'failed', error: failure.message, finishedAt: new Date().toISOString() }),
        {
          event: 'step.failed',
          step: step.step,
          detail: { attempt: rec.attempts, error: failure.message },
          patch: { error: failure.message },
        },
      );
      return 'failed';
    }
    await journal.complete(step, path, output, { attempt: rec.attempts });
    return 'done';
  }

  /** An in-process action: run at once, its transitions queued for the next write. */
  private async inProcess(step: PackStep, path: string): Promise<Outcome> {
    const { journal } = this;
    const before = journal.records.get(path);
    const attempt = (before?.attempts ?? 0) + 1;
    const startedAt = before?.startedAt ?? new Date().toISOString();
    let output: unknown;
    try {
      output = await this.deps.runner.run({
        tenantId: this.execution.tenantId,
        workflowId: this.execution.id,
        step,
        idempotencyKey: journal.record(step, path, {}).idempotencyKey,
        data: this.data(),
        call: await this.callContext(),
      });
    } catch {
      // Not expected of these actions; let the ordinary path record the failure durably.
      return this.leaf(step, path);
    }
    journal.queueCompleted(step, path, { attempt, startedAt, output });
    return 'done';
  }

  /** A human gate: the task and its deadline timer are created once; the saga waits until it is decided. */
  private async approval(step: PackStep, path: string): Promise<Outcome> {
    const { store, config } = this.deps;
    const { journal } = this;
    const e = this.execution;
    const task = this.tasks.find((t) => t.stepPath === path);
    if (!task) {
      const now = Date.now();
      const created: ApprovalTask = {
        id: randomUUID(),
        tenantId: e.tenantId,
        workflowId: e.id,
        workflowType: e.workflowType,
        stepPath: path,
        step: step.step,
        payload: e.payload,
        status: 'pending',
        reviewer: null,
        decision: null,
        notes: null,
        history: [],
        requestedBy: e.requestedBy,
        reviewerRole: step.reviewer_role ?? null,
        instructions: step.instructions ?? null,
        createdAt: new Date(now).toISOString(),
        decidedAt: null,
        deadlineAt: new Date(now + config.approvalDeadlineMs).toISOString(),
        escalationLevel: 0,
      };
      const rec = journal.record(step, path, { status: 'waiting', attempts: 1, startedAt: created.createdAt });
      await journal.write(async (q) => {
        await store.insertTask(q, created);
        await store.insertTimer(q, {
          id: randomUUID(),
          tenantId: created.tenantId,
          workflowId: created.workflowId,
          kind: 'approval_deadline',
          taskId: created.id,
          fireAt: created.deadlineAt,
        });
        const tr = await journal.transition(q, {
          event: 'approval.requested',
          step: step.step,
          taskId: created.id,
          patch: { status: 'pending_approval' },
          detail: { reviewer_role: created.reviewerRole },
        });
        await store.saveStep(q, e.tenantId, rec);
        return tr;
      });
      this.tasks.push(created);
      return 'suspended';
    }
    if (task.status === 'pending') return 'suspended';
    if (task.status === 'approved') {
      await journal.complete(
        step,
        path,
        { decision: 'approve', reviewer: task.reviewer, notes: task.notes, approval_task_id: task.id },
        {},
      );
      return 'done';
    }
    const message = `rejected by ${task.reviewer ?? 'a reviewer'}${task.notes ? `: ${task.notes}` : ''}`;
    await journal.commit(
      journal.record(step, path, { status: 'failed', error: message, finishedAt: new Date().toISOString() }),
      {
        event: 'step.failed',
        step: step.step,
        taskId: task.id,
        detail: { error: message },
        patch: { error: message },
      },
    );
    return 'rejected';
  }

  /** The first branch whose `when` holds, else `otherwise`; the choice is persisted, so a resume never re-decides. */
  private async decision(step: PackStep, path: string): Promise<Outcome> {
    const { journal } = this;
    let rec = journal.records.get(path);
    if (!rec) {
      const data = this.data();
      const index = (step.branches ?? []).findIndex((b) => conditionHolds(b.when, data));
      const branch =
        index >= 0
          ? { tag: `b${index}`, name: step.branches![index]!.name ?? `branch ${index}` }
          : step.otherwise
            ? { tag: 'o', name: 'otherwise' }
            : { tag: 'none', name: 'none' };
      rec = journal.record(step, path, {
        status: 'decided',
        attempts: 1,
        startedAt: new Date().toISOString(),
        output: branch,
      });
      await journal.commit(rec, { event: 'step.decided', step: step.step, detail: { branch: branch.name } });
    }
    const tag = (rec.output as { tag: string }).tag;
    const children =
      tag === 'o' ? (step.otherwise ?? []) : tag === 'none' ? [] : step.branches![Number(tag.slice(1))]!.steps;
    const outcome = await this.sequence(children, `${path}.${tag}.`);
    if (outcome !== 'done') return outcome;
    await journal.complete(step, path, rec.output, {});
    return 'done';
  }

  private async parallel(step: PackStep, path: string): Promise<Outcome> {
    const { journal } = this;
    if (!journal.records.get(path)) {
      await journal.commit(
        journal.record(step, path, { status: 'running', attempts: 1, startedAt: new Date().toISOString() }),
        { event: 'step.started', step: step.step },
      );
    }
    // Every member runs to its own end (a failing one does not cut the others short: what they
    // completed is compensated like any completed step).
    const outcomes = await Promise.all((step.steps ?? []).map((m, i) => this.step(m, `${path}.p${i}`)));
    for (const worst of ['failed', 'rejected', 'suspended'] as const) if (outcomes.includes(worst)) return worst;
    await journal.complete(step, path, null, {});
    return 'done';
  }

  data(): Record<string, unknown> {
    return stepData(this.execution.payload, this.steps, this.journal.records.values());
  }

  async callContext(): Promise<ServiceCallContext> {
    this.call ??= {
      token: this.token ?? (await this.deps.serviceToken(this.execution.tenantId)),
      tenantId: this.execution.tenantId,
      correlationId: this.execution.correlationId,
    };
    return this.call;
  }
}
