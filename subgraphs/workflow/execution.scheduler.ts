// The durable executor's scheduler (docs/workflow.md, "Durable execution"). Executions live in the
// platform database; an executor drives one only while it holds its lease (`lease_owner`, renewed
// by every transition and by a heartbeat here). It polls for runnable executions and due timers,
// claims work with FOR UPDATE SKIP LOCKED (executors in several processes never drive one
// execution at once), is woken at once by a start or an approval, and hands each claimed
// execution to a Run (execution.run.ts). A process killed anywhere resumes on restart, or in
// another process once the lease expires. Retry and escalation timers are rows (`next_run_at`,
// `workflow_timers`), so they survive restarts too.
import { randomUUID } from 'node:crypto';
import type { ExecutorDeps } from './execution.deps';
import type { PendingStart } from './execution.journal';
import { Run } from './execution.run';
import { RunWriteGroup } from './run-write.group';
import type { WorkflowConfig } from './workflow.config';
import { LeaseLostError } from './workflow.store';
import type { AuditEventInput } from '../../platform/outbox/outbox.writer';
import type { NewExecution } from './workflow.store';
import type { Execution, Transition } from './workflow.types';

export type { ExecutorDeps } from './execution.deps';

export class WorkflowExecutor {
  readonly owner: string;
  /** Each drive resolves with the status it ended its execution with (committed), if it did. */
  private readonly active = new Map<string, Promise<Execution['status'] | undefined>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private polling: Promise<void> | undefined;

  /** Every run's writes of this executor, group-committed (run-write.group.ts). */
  private readonly writes: RunWriteGroup;

  constructor(private readonly deps: ExecutorDeps) {
    this.owner = deps.owner ?? `wf-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.writes = new RunWriteGroup(deps.store, deps.events, {
      // Runs started by requests are not counted in `concurrency`: room for them too.
      maxBatch: 64,
      maxInFlight: deps.config.writeTransactions,
    });
  }

  get config(): WorkflowConfig {
    return this.deps.config;
  }

  /** Starts polling for runnable executions and due timers. */
  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.polling = this.poll()
        .catch((err: unknown) => this.deps.logger.warn({ err }, 'workflow executor poll failed'))
        .finally(() => {
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

  /** One round: fire due timers, claim what is runnable up to the concurrency limit (each only if one read says there is some). */
  async poll(): Promise<void> {
    const due = await this.deps.store.dueWorkAcrossTenants();
    if (due.timers) await this.fireTimers();
    const room = this.deps.config.concurrency - this.active.size;
    if (room <= 0 || !due.runnable) return;
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

  /**
   * Starts a new execution leased to this executor and drives it with the caller's token. Nothing
   * is written yet: the execution's insert, its `workflow.started` transition and `audit` go out
   * with the run's first write (execution.journal.ts), group-committed with the other runs'.
   * `inserted` resolves once that write has committed (the execution exists), or rejects with
   * what failed it (the execution never existed); `drive` as `driveOwned`'s; `execution` as the
   * run starts from.
   */
  startOwned(
    e: NewExecution,
    started: { event: string; detail: Record<string, unknown> },
    audit: AuditEventInput,
    token: string | undefined,
  ): { drive: Promise<Execution['status'] | undefined>; inserted: Promise<void>; execution: Execution } {
    let resolve!: () => void;
    let failed!: (err: unknown) => void;
    const inserted = new Promise<void>((res, rej) => {
      resolve = res;
      failed = rej;
    });
    // Awaited only when the answer needs the row; a failed start is logged by the drive.
    inserted.catch(() => {});
    const start: PendingStart = {
      insert: e,
      started,
      audit,
      written: false,
      committed: () => {
        start.written = true;
        resolve();
      },
      failed,
    };
    const execution = newExecution(e);
    const drive = this.track(e.id, e.tenantId, token, true, execution, start);
    // A drive that ended without writing (an error before its first write) started nothing.
    const notStarted = () => failed(new Error(`workflow ${e.id} was not started`));
    void drive.then(notStarted, notStarted);
    return { drive, inserted, execution };
  }

  /**
   * Drives an execution this executor already holds (inserted with its lease and committed: no
   * steps or tasks yet), with the caller's token.
   */
  driveOwned(id: string, tenantId: string, token: string | undefined): Promise<Execution['status'] | undefined> {
    return this.track(id, tenantId, token, true);
  }

  /**
   * Waits (at most `ms`) for this executor's drive of `id`, if any, to finish; resolves with the
   * status the drive ended the execution with (committed), undefined if it did not end it in time.
   */
  async settle(id: string, ms: number): Promise<Execution['status'] | undefined> {
    const drive = this.active.get(id);
    if (!drive || ms <= 0) return undefined;
    let timeout: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      drive,
      new Promise<undefined>((r) => (timeout = setTimeout(() => r(undefined), ms))),
    ]);
    clearTimeout(timeout);
    return ended;
  }

  private track(
    id: string,
    tenantId: string,
    token: string | undefined,
    fresh = false,
    execution?: Execution,
    start?: PendingStart,
  ): Promise<Execution['status'] | undefined> {
    const existing = this.active.get(id);
    if (existing) return existing;
    const drive = this.drive(id, tenantId, token, fresh, execution, start).finally(() => this.active.delete(id));
    this.active.set(id, drive);
    return drive;
  }

  /** One drive under a heartbeat that renews the lease; a lost lease stops it, any other error gives the lease up for a retry. */
  private async drive(
    id: string,
    tenantId: string,
    token: string | undefined,
    fresh: boolean,
    known: Execution | undefined,
    start: PendingStart | undefined,
  ): Promise<Execution['status'] | undefined> {
    const { store, config, logger } = this.deps;
    const heartbeat = setInterval(
      () => {
        store
          .renewLease(tenantId, id, this.owner, config.leaseMs)
          .catch((err: unknown) => logger.warn({ err, workflow_id: id }, 'renewing a workflow lease failed'));
      },
      Math.max(50, Math.floor(config.leaseMs / 3)),
    );
    try {
      const execution = known ?? (await store.executionById(store.sql, tenantId, id));
      if (!execution) return;
      // A fresh execution has no step records or tasks yet: two reads saved per start.
      const steps = fresh ? [] : await store.steps(store.sql, tenantId, id);
      const tasks = fresh ? [] : await store.tasksOf(store.sql, tenantId, id);
      const run = new Run(this.deps, this.owner, execution, steps, tasks, token, this.writes, start);
      await run.go();
      return run.ended;
    } catch (err) {
      if (err instanceof LeaseLostError) {
        logger.warn(
          { workflow_id: id },
          'another executor took over this workflow (lease expired); stopped driving it',
        );
        return undefined;
      }
      if (start && !start.written) {
        logger.error({ err, workflow_id: id }, 'starting a workflow failed; nothing of it was written');
        return undefined;
      }
      logger.error({ err, workflow_id: id }, 'driving a workflow failed; it will be retried');
      await store.releaseLease(tenantId, id, this.owner, 5_000).catch(() => {});
      return undefined;
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
        await store.insertTimer(q, {
          id: randomUUID(),
          tenantId: task.tenantId,
          workflowId: task.workflowId,
          kind: 'approval_deadline',
          taskId: task.id,
          fireAt: task.deadlineAt,
        });
        fired.push(
          await store.transition(q, task.tenantId, {
            workflowId: task.workflowId,
            owner: null,
            leaseMs: config.leaseMs,
            event: 'approval.escalated',
            step: task.step,
            taskId: task.id,
            detail: { escalation_level: task.escalationLevel, deadline_at: task.deadlineAt },
          }),
        );
      }
      if (fired.length > 0) await this.deps.events.written(q, fired);
    });
    if (fired.length > 0) this.deps.events.committed();
  }
}

/** A start's execution as its run sees it before the first write: running, version 0, nothing done. */
function newExecution(e: NewExecution): Execution {
  const now = new Date().toISOString();
  return {
    id: e.id,
    tenantId: e.tenantId,
    packId: e.packId,
    packVersion: e.packVersion,
    packSource: e.packSource as Execution['packSource'],
    workflowType: e.workflowType,
    status: 'running',
    requiresApproval: e.requiresApproval,
    pack: e.pack as Execution['pack'],
    payload: e.payload as Execution['payload'],
    metadata: e.metadata as Execution['metadata'],
    context: {},
    requestedBy: e.requestedBy,
    correlationId: e.correlationId,
    version: 0,
    error: null,
    compensation: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
}
