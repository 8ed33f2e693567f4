// Durable timers (workflow_timers): approval deadlines, which escalate a task when it stays
// undecided. Fired by whichever executor takes them first (FOR UPDATE SKIP LOCKED).
import type { SqlQuery } from '../../platform/db/sql';

export interface NewTimer {
  id: string;
  tenantId: string;
  workflowId: string;
  kind: string;
  taskId: string | null;
  fireAt: string;
}

export interface DueTimer {
  id: string;
  tenant_id: string;
  workflow_id: string;
  kind: string;
  task_id: string | null;
}

export function timerStore() {
  return {
    async insertTimer(q: SqlQuery, timer: NewTimer): Promise<void> {
      await q.query(
        'INSERT INTO workflow_timers (id, tenant_id, workflow_id, kind, task_id, fire_at) VALUES ($1::uuid, $2, $3::uuid, $4, $5::uuid, $6::timestamptz)',
        [timer.id, timer.tenantId, timer.workflowId, timer.kind, timer.taskId, timer.fireAt],
      );
    },

    async deleteTaskTimers(q: SqlQuery, tenantId: string, taskId: string): Promise<void> {
      await q.query('DELETE FROM workflow_timers WHERE tenant_id = $1 AND task_id = $2::uuid', [tenantId, taskId]);
    },

    /**
     * Due timers of every tenant (the executor's sweep), taken (deleted) in the caller's
     * transaction: a crash before commit leaves them due. Each row names its tenant.
     */
    async takeDueTimersAcrossTenants(q: SqlQuery, limit: number): Promise<DueTimer[]> {
      const res = await q.query<DueTimer>(
        `DELETE FROM workflow_timers WHERE id IN (
           SELECT id FROM workflow_timers WHERE fire_at <= now() ORDER BY fire_at LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING id::text, tenant_id, workflow_id::text, kind, task_id::text`,
        [limit],
      );
      return res.rows;
    },
  };
}
