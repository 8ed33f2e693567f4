// Approval tasks (workflow_approval_tasks, spec 03 "Approval task"): created by the executor at a
// hil_approval step, locked and decided by a reviewer, escalated by the deadline timer, listed in
// the approvals inbox. Every read and change takes the tenant id and scopes its SQL by it.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { json, TASK_COLUMNS, taskRow, type PageBefore } from './workflow.rows';
import type { ListFilter } from './execution.store';
import type { ApprovalTask, TaskStatus } from './workflow.types';

export interface TaskFilter extends ListFilter {
  reviewer?: string;
}

export interface TaskDecision {
  status: TaskStatus;
  reviewer: string;
  decision: string;
  notes: string | null;
  history: unknown;
}

export function approvalTaskStore(sql: SqlExecutor) {
  return {
    async insertTask(q: SqlQuery, t: ApprovalTask): Promise<void> {
      await q.query(
        `INSERT INTO workflow_approval_tasks (id, tenant_id, workflow_id, workflow_type, step_path, step, payload, status, history, requested_by,
           reviewer_role, instructions, created_at, deadline_at, escalation_level)
         VALUES ($1::uuid, $2, $3::uuid, $4, $5, $6, $7::jsonb, 'pending', '[]'::jsonb, $8, $9, $10, $11::timestamptz, $12::timestamptz, 0)`,
        [
          t.id,
          t.tenantId,
          t.workflowId,
          t.workflowType,
          t.stepPath,
          t.step,
          json(t.payload),
          t.requestedBy,
          t.reviewerRole,
          t.instructions,
          t.createdAt,
          t.deadlineAt,
        ],
      );
    },

    /** The task, locked for the decision (the caller's transaction). */
    async taskForUpdate(q: SqlQuery, tenantId: string, id: string): Promise<ApprovalTask | undefined> {
      const res = await q.query(
        `SELECT ${TASK_COLUMNS} FROM workflow_approval_tasks WHERE tenant_id = $1 AND id = $2::uuid FOR UPDATE`,
        [tenantId, id],
      );
      return res.rows[0] ? taskRow(res.rows[0]) : undefined;
    },

    /** Records a decision on the tenant's task; undefined when the tenant has no such task. */
    async decideTask(q: SqlQuery, tenantId: string, id: string, d: TaskDecision): Promise<ApprovalTask | undefined> {
      const res = await q.query(
        `UPDATE workflow_approval_tasks SET status = $3::text, reviewer = $4, decision = $5, notes = $6, history = $7::jsonb,
           decided_at = CASE WHEN $3::text = 'pending' THEN NULL ELSE now() END
         WHERE tenant_id = $1 AND id = $2::uuid RETURNING ${TASK_COLUMNS}`,
        [tenantId, id, d.status, d.reviewer, d.decision, d.notes, json(d.history)],
      );
      return res.rows[0] ? taskRow(res.rows[0]) : undefined;
    },

    async escalateTask(
      q: SqlQuery,
      tenantId: string,
      id: string,
      deadlineMs: number,
    ): Promise<ApprovalTask | undefined> {
      const res = await q.query(
        `UPDATE workflow_approval_tasks SET escalation_level = escalation_level + 1, deadline_at = now() + make_interval(secs => $3::float8 / 1000)
         WHERE tenant_id = $1 AND id = $2::uuid AND status = 'pending' RETURNING ${TASK_COLUMNS}`,
        [tenantId, id, deadlineMs],
      );
      return res.rows[0] ? taskRow(res.rows[0]) : undefined;
    },

    async tasksOf(q: SqlQuery, tenantId: string, workflowId: string): Promise<ApprovalTask[]> {
      const res = await q.query(
        `SELECT ${TASK_COLUMNS} FROM workflow_approval_tasks WHERE tenant_id = $1 AND workflow_id = $2::uuid ORDER BY created_at, id`,
        [tenantId, workflowId],
      );
      return res.rows.map(taskRow);
    },

    /** The tasks of several of the tenant's executions in one statement, each execution's in `tasksOf` order. */
    async tasksOfExecutions(q: SqlQuery, tenantId: string, workflowIds: readonly string[]): Promise<ApprovalTask[]> {
      if (workflowIds.length === 0) return [];
      const res = await q.query(
        `SELECT ${TASK_COLUMNS} FROM workflow_approval_tasks
         WHERE tenant_id = $1 AND workflow_id IN (SELECT x::uuid FROM jsonb_array_elements_text($2::jsonb) AS x)
         ORDER BY workflow_id, created_at, id`,
        [tenantId, JSON.stringify(workflowIds)],
      );
      return res.rows.map(taskRow);
    },

    async task(tenantId: string, id: string): Promise<ApprovalTask | undefined> {
      const res = await sql.query(
        `SELECT ${TASK_COLUMNS} FROM workflow_approval_tasks WHERE tenant_id = $1 AND id = $2::uuid`,
        [tenantId, id],
      );
      return res.rows[0] ? taskRow(res.rows[0]) : undefined;
    },

    /** The tenant's tasks among `ids` (UUIDs), in one statement; ids of another tenant or of none are simply absent. */
    async tasksByIds(q: SqlQuery, tenantId: string, ids: readonly string[]): Promise<ApprovalTask[]> {
      if (ids.length === 0) return [];
      const res = await q.query(
        `SELECT ${TASK_COLUMNS} FROM workflow_approval_tasks
         WHERE tenant_id = $1 AND id IN (SELECT x::uuid FROM jsonb_array_elements_text($2::jsonb) AS x)`,
        [tenantId, JSON.stringify(ids)],
      );
      return res.rows.map(taskRow);
    },

    async tasks(
      tenantId: string,
      filter: TaskFilter,
      first: number,
      before: PageBefore | null,
    ): Promise<ApprovalTask[]> {
      const params: unknown[] = [tenantId];
      let where = 'tenant_id = $1';
      if (filter.status) where += ` AND status = $${params.push(filter.status)}`;
      if (filter.workflowType) where += ` AND workflow_type = $${params.push(filter.workflowType)}`;
      if (filter.reviewer) where += ` AND reviewer = $${params.push(filter.reviewer)}`;
      if (before)
        where += ` AND (created_at, id) < ($${params.push(before.createdAt)}::timestamptz, $${params.push(before.id)}::uuid)`;
      const res = await sql.query(
        `SELECT ${TASK_COLUMNS} FROM workflow_approval_tasks WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.push(first)}`,
        params,
      );
      return res.rows.map(taskRow);
    },
  };
}
