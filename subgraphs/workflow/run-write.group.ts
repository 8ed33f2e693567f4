// Group commit of the executors' run writes (docs/workflow.md, "Throughput"): a run's write that
// arrives while others are committing waits for the next group and goes out with every other
// write waiting then, as ONE autocommit statement (run-write.store.ts): the runs' rows, their
// audit events and their notices (made before the write, completed by it from the transitions). A lone write is sent at once, so nothing waits for a batch to fill.
//
// Each write resolves once its own transaction has committed: "persisted before acted on" holds
// for every run in the group. An execution has at most one write in flight, so its writes commit
// in the order they were made. A write whose lease was lost is answered LeaseLostError, the others
// in its transaction commit. A transaction that fails fails every write in it: their runs stop
// and are driven again from what was committed (the executor's ordinary retry), as a run whose own
// transaction failed always was.
import type { PendingNotice } from '../../platform/outbox/notice.writer';
import type { WorkflowEvents } from './workflow.events';
import { LeaseLostError, type RunWrite, type WorkflowStore } from './workflow.store';
import type { Execution, StepRecord, Transition } from './workflow.types';

/** What one write committed (a start's execution too). */
export interface RunCommitted {
  transitions: Transition[];
  steps: StepRecord[];
  execution?: Execution;
}

interface Waiting {
  write: RunWrite;
  correlationId: string | null;
  resolve(written: RunCommitted): void;
  reject(err: unknown): void;
}

export class RunWriteGroup {
  private waiting: Waiting[] = [];
  private inFlight = 0;
  /** Executions with a write in a transaction now: their next write waits for it. */
  private readonly busy = new Set<string>();

  constructor(
    private readonly store: Pick<WorkflowStore, 'sql' | 'writeRunsAcrossTenants'>,
    private readonly events: Pick<WorkflowEvents, 'planned' | 'plannedCompliance' | 'committed'>,
    private readonly limits: { maxBatch: number; maxInFlight: number },
  ) {}

  write(write: RunWrite, correlationId: string | null): Promise<RunCommitted> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ write, correlationId, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.limits.maxInFlight && this.waiting.length > 0) {
      const batch: Waiting[] = [];
      const rest: Waiting[] = [];
      for (const w of this.waiting) {
        const id = w.write.workflowId;
        if (batch.length < this.limits.maxBatch && !this.busy.has(id)) {
          this.busy.add(id);
          batch.push(w);
        } else rest.push(w);
      }
      this.waiting = rest;
      if (batch.length === 0) return;
      this.inFlight++;
      void this.commit(batch).finally(() => {
        this.inFlight--;
        for (const w of batch) this.busy.delete(w.write.workflowId);
        this.pump();
      });
    }
  }

  private async commit(batch: Waiting[]): Promise<void> {
    let written: Awaited<ReturnType<WorkflowStore['writeRunsAcrossTenants']>>;
    let compliance: PendingNotice[];
    try {
      const planned = this.events.planned(
        batch.map((w) => ({
          tenantId: w.write.tenantId,
          workflowId: w.write.workflowId,
          correlationId: w.correlationId,
          items: w.write.items,
        })),
      );
      written = await this.store.writeRunsAcrossTenants(
        this.store.sql,
        batch.map((w) => w.write),
        planned,
      );
      compliance = this.events.plannedCompliance(planned, written.byExecution);
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    if (written.byExecution.size > 0) this.events.committed(compliance);
    for (const w of batch) {
      const mine = written.byExecution.get(w.write.workflowId);
      if (mine) w.resolve(mine);
      else w.reject(new LeaseLostError(`lease on workflow ${w.write.workflowId} lost`));
    }
  }
}
