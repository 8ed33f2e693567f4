// One run's persisted state and how it is written (docs/workflow.md, "Durable execution"): the
// execution and its step records as this run knows them, and every write, one transaction each,
// fenced by the run's lease, with the transitions' notices written in the same transaction (the
// notice outbox) and the relay woken after the commit.
//
// Batching (docs/workflow.md, "Throughput"): an action with no effect outside the saga (`noop`,
// `record`, `set`) runs without its own transactions. Its `step.started` and `step.completed`
// transitions are queued here and written in the same transaction as the saga's next write, which
// always comes before anything acts on them (the next outside call's `step.started`, an approval,
// the end, the answer). A process killed before that write runs those steps again on resume:
// harmless, as they touch nothing outside. A 3-step saga of such actions is two transactions.
//
// Group commit (run-write.group.ts): a step's start, completion or failure, and the end, go out
// with other runs' writes of the moment in one transaction of a few statements; the write
// resolves once it has committed. Writes with more to them (an approval's task and timer, the
// start of a compensation) keep a transaction of their own (`write`).
//
// A start (`POST /execute`) is written the same way: the execution's insert, its `workflow.started`
// transition and its audit event wait here, like an in-process step's transitions, for the run's
// first write, which always comes before anything acts outside (a step's call, an approval's
// task) and before the request is answered. A saga of in-process steps is then ONE write, insert
// to end. Nothing is visible before that write commits, and a process killed before it leaves no
// execution behind: the request that asked for it fails with it (no id was given out).
import type { SqlQuery } from '../../platform/db/sql';
import type { ExecutorDeps } from './execution.deps';
import { workflowAudit } from './workflow.audit';
import { idempotencyKeyOf } from './workflow.data';
import type { RunWriteGroup } from './run-write.group';
import type { AuditEventInput } from '../../platform/outbox/outbox.writer';
import type { NewExecution, RunPatch, RunWrite, TransitionInput } from './workflow.store';
import type { CompensationRecord, Execution, PackStep, StepRecord, Transition } from './workflow.types';
import { workflowExecutionEnded } from '../../platform/telemetry/domain-metrics';

/** A transition as a run states it: the execution, owner and lease are the run's. */
export type RunTransition = Omit<TransitionInput, 'workflowId' | 'owner' | 'leaseMs'>;

/** A start whose execution is not written yet: inserted by the run's first write (see the file's head). */
export interface PendingStart {
  insert: NewExecution;
  started: RunTransition;
  audit: AuditEventInput;
  /** True once the write that carried it has committed. */
  written: boolean;
  /** Told once that write has committed, or has failed (the execution then never existed). */
  committed(): void;
  failed(err: unknown): void;
}

/** A queued (not yet written) step's completion sorts after every written one until its real version is known. */
const QUEUED_SEQ_BASE = 1e12;

export class RunJournal {
  readonly records: Map<string, StepRecord>;
  /** The shortest retry delay asked for in this run: the execution is not claimed again before it. */
  retryAfterMs: number | undefined;
  /** The status this run ended the execution with, once that write has committed. */
  ended: 'completed' | 'failed' | 'rejected' | undefined;
  /** Transitions of in-process steps, written with the next transaction (see the file's head). */
  private queued: { t: RunTransition; path?: string }[] = [];
  private queuedSeq = QUEUED_SEQ_BASE;

  constructor(
    private readonly deps: ExecutorDeps,
    readonly owner: string,
    public execution: Execution,
    records: StepRecord[],
    private readonly writes: RunWriteGroup,
    /** A start not written yet: its insert goes out with the first write (its transition queued first). */
    private start?: PendingStart,
  ) {
    this.records = new Map(records.map((r) => [r.path, r]));
    if (start) this.queued.push({ t: start.started });
  }

  /** Takes the pending start (if any) for the write about to go out; it reports how that write ended. */
  private takeStart(): PendingStart | undefined {
    const start = this.start;
    this.start = undefined;
    return start;
  }

  /** The step's record with changes, kept in memory (saved by the caller). */
  record(step: PackStep, path: string, changes: Partial<StepRecord>): StepRecord {
    const e = this.execution;
    const base: StepRecord = this.records.get(path) ?? {
      workflowId: e.id,
      path,
      step: step.step,
      type: step.type,
      action: step.action ?? null,
      compensation: step.compensation ?? null,
      idempotencyKey: idempotencyKeyOf(step, { workflowId: e.id, tenantId: e.tenantId }, e.payload),
      status: 'running',
      attempts: 0,
      output: null,
      error: null,
      startedAt: null,
      finishedAt: null,
      completedSeq: null,
      compensationStatus: null,
      compensationAttempts: 0,
      compensationError: null,
      compensatedAt: null,
    };
    const rec = { ...base, ...changes };
    this.records.set(path, rec);
    return rec;
  }

  /** An in-process step that completed: its record kept in memory, its two transitions queued for the next write. */
  queueCompleted(step: PackStep, path: string, done: { attempt: number; startedAt: string; output: unknown }): void {
    const { attempt, startedAt, output } = done;
    this.record(step, path, {
      status: 'completed',
      attempts: attempt,
      error: null,
      startedAt,
      output: output ?? null,
      finishedAt: new Date().toISOString(),
      completedSeq: this.queuedSeq++,
    });
    this.queued.push({ t: { event: 'step.started', step: step.step, detail: { attempt, executor: this.owner } } });
    this.queued.push({ t: { event: 'step.completed', step: step.step, detail: { attempt } }, path });
  }

  /** Writes the queued transitions (and their steps' records) first in the caller's transaction: three statements however many. */
  private async flush(q: SqlQuery): Promise<Transition[]> {
    // Taken at once: a parallel group's members may write concurrently, and each item is written once.
    const items = this.queued;
    this.queued = [];
    if (items.length === 0) return [];
    const written = await this.deps.store.transitionBatch(q, this.execution.tenantId, {
      workflowId: this.execution.id,
      owner: this.owner,
      leaseMs: this.deps.config.leaseMs,
      status: this.execution.status,
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

  /** One transaction: the queued transitions, then `work`, then the notices of them all, in order. */
  async write<T extends Transition | undefined>(work: (q: SqlQuery) => Promise<T>): Promise<T> {
    const { store, events } = this.deps;
    // A start not written yet goes out first, group-committed (with what is queued): the work
    // below (an approval's task, a compensation's start) is rare beside the start itself.
    if (this.start) await this.send(undefined);
    const { written, result, compliance } = await store.transaction(async (q) => {
      const before = await this.flush(q);
      const result = await work(q);
      const written = result ? [...before, result] : before;
      const compliance = written.length > 0 ? await events.written(q, written, this.execution.correlationId) : [];
      return { written, result, compliance };
    });
    if (written.length > 0) events.committed(compliance);
    return result;
  }

  transition(q: SqlQuery, t: RunTransition): Promise<Transition> {
    return this.deps.store.transition(q, this.execution.tenantId, {
      ...t,
      workflowId: this.execution.id,
      owner: this.owner,
      leaseMs: this.deps.config.leaseMs,
    });
  }

  /** Saves a step record and a transition (and its notices) together. */
  async commit(rec: StepRecord, t: RunTransition): Promise<void> {
    this.records.set(rec.path, rec);
    const { context, runAfterMs, ...patch } = t.patch ?? {};
    if (context !== undefined || runAfterMs !== undefined) throw new Error('a run write cannot set context or a timer');
    await this.send({ ...t, patch }, { record: rec, completed: false });
  }

  /**
   * One group-committed write: the queued transitions, then `last` (its patch applied), the step
   * records (queued ones, and `step`, completed by `last` when `completed`), the audit event.
   * Resolves with the last transition once it has committed.
   */
  private async send(
    last: (Omit<RunTransition, 'patch'> & { patch?: RunPatch }) | undefined,
    step?: { record: StepRecord; completed: boolean },
    audit?: AuditEventInput,
  ): Promise<Transition | undefined> {
    const queued = this.queued;
    this.queued = [];
    const items: RunWrite['items'] = queued.map((i) => ({
      event: i.t.event,
      step: i.t.step ?? null,
      detail: i.t.detail ?? null,
    }));
    const steps: { record: StepRecord; completedAt?: number }[] = [];
    queued.forEach((item, k) => {
      if (item.path) steps.push({ record: this.records.get(item.path)!, completedAt: k });
    });
    if (last)
      items.push({
        event: last.event,
        step: last.step ?? null,
        taskId: last.taskId ?? null,
        detail: last.detail ?? null,
      });
    if (step) steps.push({ record: step.record, ...(step.completed ? { completedAt: items.length - 1 } : {}) });
    if (items.length === 0) return undefined;
    const e = this.execution;
    // The start (if not written yet) goes out with this write: queued first, its transition too.
    const start = this.takeStart();
    const audits = [...(start ? [start.audit] : []), ...(audit ? [audit] : [])];
    let written: Awaited<ReturnType<RunWriteGroup['write']>>;
    try {
      written = await this.writes.write(
        {
          ...(start ? { insert: start.insert } : {}),
          tenantId: e.tenantId,
          workflowId: e.id,
          owner: this.owner,
          leaseMs: this.deps.config.leaseMs,
          status: e.status,
          items,
          patch: last?.patch,
          steps,
          audits,
        },
        e.correlationId,
      );
    } catch (err) {
      start?.failed(err);
      throw err;
    }
    start?.committed();
    for (const rec of written.steps) this.records.set(rec.path, rec);
    return written.transitions.at(-1);
  }

  /** The step completed: its record takes the transition's version as its completion order. */
  async complete(step: PackStep, path: string, output: unknown, detail: Record<string, unknown>): Promise<void> {
    const rec = this.record(step, path, {
      status: 'completed',
      output: output ?? null,
      error: null,
      finishedAt: new Date().toISOString(),
    });
    await this.send({ event: 'step.completed', step: step.step, detail }, { record: rec, completed: true });
  }

  /** The final transition, the lease given up and the closing workflow_execution audit event, in one transaction. */
  async end(
    status: 'completed' | 'failed' | 'rejected',
    event: string,
    patch: { compensation?: CompensationRecord },
  ): Promise<void> {
    const executed = [...this.records.values()].filter(
      (r) => r.status === 'completed' && r.type !== 'decision' && r.type !== 'parallel',
    ).length;
    await this.send(
      { event, detail: { steps_executed: executed }, patch: { ...patch, status, completed: true, release: true } },
      undefined,
      workflowAudit(this.execution, status, executed),
    );
    this.ended = status;
    workflowExecutionEnded(status);
  }

  /** Gives the lease up; with a retry pending, the execution is not claimed again before its timer. */
  async release(): Promise<void> {
    if (this.queued.length > 0) await this.send(undefined);
    await this.deps.store.releaseLease(
      this.execution.tenantId,
      this.execution.id,
      this.owner,
      this.retryAfterMs ?? null,
    );
  }
}
