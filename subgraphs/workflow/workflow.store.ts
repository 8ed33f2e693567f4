// The only code that talks to the workflow tables (prisma/schema/workflow.prisma), assembled from
// one store per aggregate: executions (execution.store.ts), their leases
// (execution-lease.store.ts), transitions (transition.store.ts), steps (step.store.ts), approval
// tasks (approval-task.store.ts), timers (timer.store.ts) and triggers (trigger.store.ts). Raw SQL: the executor's claims use
// `FOR UPDATE SKIP LOCKED`, and every transition is fenced by the lease, which Prisma's API
// cannot say. Every function reading tenant data takes the tenant id, always as
// (q, tenantId, ...rest) or, on the pool, (tenantId, ...rest), and scopes its SQL by it; the few
// that sweep every tenant's due work (the executor's claims and timers) say so in their names.
// Methods that take `q` run on the caller's transaction.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { noticeInsert, type PendingNotice } from '../../platform/outbox/notice.writer';
import { sqlOutboxWriter, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import { approvalTaskStore } from './approval-task.store';
import { executionLeaseStore } from './execution-lease.store';
import { executionStore } from './execution.store';
import { writeRunsAcrossTenants } from './run-write.store';
import { stepStore } from './step.store';
import { timerStore } from './timer.store';
import { transitionStore } from './transition.store';
import { triggerStore } from './trigger.store';

export type { NewExecution, ListFilter } from './execution.store';
export type { TaskFilter } from './approval-task.store';
export type { RunWrite, RunPatch } from './run-write.store';
export { LeaseLostError, type ExecutionPatch, type TransitionInput } from './transition.store';

export function createWorkflowStore(sql: SqlExecutor, kind: 'pglite' | 'postgres' | 'none' = 'postgres') {
  return {
    sql,
    transaction: <T>(work: (q: SqlQuery) => Promise<T>) => sql.transaction(work),
    ...executionStore(sql),
    ...executionLeaseStore(sql, kind),
    ...transitionStore(sql),
    ...stepStore(),
    ...approvalTaskStore(sql),
    ...timerStore(),
    ...triggerStore(sql),
    writeRunsAcrossTenants,

    /** An audit event into the shared outbox (outbox_events), in the caller's transaction. */
    async appendAudit(q: SqlQuery, e: AuditEventInput): Promise<void> {
      await sqlOutboxWriter(q, 'workflow').append(e);
    },

    /** Notices into the notice outbox (notice_outbox), in the caller's transaction: the relay publishes them. */
    async appendNotices(q: SqlQuery, notices: readonly PendingNotice[]): Promise<void> {
      if (notices.length === 0) return;
      // One text for any number of notices (they travel as one JSON parameter): prepared once per
      // pooled connection, so PostgreSQL skips its parse and plan in every group commit.
      const { text, params } = noticeInsert(notices);
      await q.query(text, params, { prepareAs: 'workflow_notices' });
    },
  };
}

export type WorkflowStore = ReturnType<typeof createWorkflowStore>;
