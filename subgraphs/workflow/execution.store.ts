// Executions (workflow_executions) as the service reads and starts them: insert, by id, a page of
// a tenant's, and several of a tenant's at once (the subgraph's entity references). Every read
// takes the tenant id and scopes its SQL by it. Leases live in execution-lease.store.ts and
// transitions (which also move an execution) in transition.store.ts.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { EXECUTION_COLUMNS, executionRow, json, type PageBefore } from './workflow.rows';
import type { Execution, WorkflowType } from './workflow.types';

export interface NewExecution {
  id: string;
  tenantId: string;
  packId: string;
  packVersion: string | null;
  packSource: string;
  workflowType: WorkflowType;
  requiresApproval: boolean;
  pack: unknown;
  payload: unknown;
  metadata: unknown;
  requestedBy: string | null;
  correlationId: string;
  /** The executor that drives it first (the one answering the request). */
  leaseOwner: string;
  leaseMs: number;
}

export interface ListFilter {
  status?: string;
  workflowType?: string;
}

export function executionStore(sql: SqlExecutor) {
  return {
    async insertExecution(q: SqlQuery, e: NewExecution): Promise<void> {
      await q.query(
        `INSERT INTO workflow_executions (id, tenant_id, pack_id, pack_version, pack_source, workflow_type, status, requires_approval, pack, payload, metadata,
           context, requested_by, correlation_id, version, lease_owner, lease_expires_at, next_run_at, created_at, updated_at)
         VALUES ($1::uuid, $2, $3, $4, $5, $6, 'running', $7, $8::jsonb, $9::jsonb, $10::jsonb, '{}'::jsonb, $11, $12, 0, $13,
           now() + make_interval(secs => $14::float8 / 1000), now(), now(), now())`,
        [
          e.id,
          e.tenantId,
          e.packId,
          e.packVersion,
          e.packSource,
          e.workflowType,
          e.requiresApproval,
          json(e.pack),
          json(e.payload),
          json(e.metadata),
          e.requestedBy,
          e.correlationId,
          e.leaseOwner,
          e.leaseMs,
        ],
      );
    },

    async executionById(q: SqlQuery, tenantId: string, id: string): Promise<Execution | undefined> {
      const res = await q.query(
        `SELECT ${EXECUTION_COLUMNS} FROM workflow_executions WHERE tenant_id = $1 AND id = $2::uuid`,
        [tenantId, id],
      );
      return res.rows[0] ? executionRow(res.rows[0]) : undefined;
    },

    async execution(tenantId: string, id: string): Promise<Execution | undefined> {
      const res = await sql.query(
        `SELECT ${EXECUTION_COLUMNS} FROM workflow_executions WHERE tenant_id = $1 AND id = $2::uuid`,
        [tenantId, id],
      );
      return res.rows[0] ? executionRow(res.rows[0]) : undefined;
    },

    /** The tenant's executions among `ids` (UUIDs), in one statement; ids of another tenant or of none are simply absent. */
    async executionsByIds(q: SqlQuery, tenantId: string, ids: readonly string[]): Promise<Execution[]> {
      if (ids.length === 0) return [];
      const res = await q.query(
        `SELECT ${EXECUTION_COLUMNS} FROM workflow_executions
         WHERE tenant_id = $1 AND id IN (SELECT x::uuid FROM jsonb_array_elements_text($2::jsonb) AS x)`,
        [tenantId, JSON.stringify(ids)],
      );
      return res.rows.map(executionRow);
    },

    async executions(
      tenantId: string,
      filter: ListFilter,
      first: number,
      before: PageBefore | null,
    ): Promise<Execution[]> {
      const params: unknown[] = [tenantId];
      let where = 'tenant_id = $1';
      if (filter.status) where += ` AND status = $${params.push(filter.status)}`;
      if (filter.workflowType) where += ` AND workflow_type = $${params.push(filter.workflowType)}`;
      if (before)
        where += ` AND (created_at, id) < ($${params.push(before.createdAt)}::timestamptz, $${params.push(before.id)}::uuid)`;
      const res = await sql.query(
        `SELECT ${EXECUTION_COLUMNS} FROM workflow_executions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.push(first)}`,
        params,
      );
      return res.rows.map(executionRow);
    },
  };
}

/**
 * Retention (platform/retention, record type `workflow_payload`): scrubs the payloads of at most
 * `limit` of the tenant's executions that ended before `cutoff` (not those requested by
 * `heldUsers`): the execution's payload and context become `{}`, its steps' outputs and its
 * approval tasks' payloads are cleared. The execution, its steps' statuses and its transitions stay
 * (what happened, without the data it happened to); how many executions were scrubbed.
 */
export async function purgeWorkflowPayloads(
  q: SqlQuery,
  tenantId: string,
  cutoff: Date,
  heldUsers: readonly string[],
  limit: number,
): Promise<number> {
  const res = await q.query<{ id: string }>(
    `UPDATE workflow_executions SET payload = '{}'::jsonb, context = '{}'::jsonb WHERE id IN (
       SELECT id FROM workflow_executions WHERE tenant_id = $1 AND completed_at < $2
         AND status IN ('completed', 'failed', 'rejected')
         AND (payload <> '{}'::jsonb OR context <> '{}'::jsonb)
         AND (requested_by IS NULL OR NOT (requested_by = ANY($3::text[])))
       ORDER BY completed_at LIMIT $4 FOR UPDATE SKIP LOCKED)
     RETURNING id::text`,
    [tenantId, cutoff, [...heldUsers], limit],
  );
  const ids = res.rows.map((r) => r.id);
  if (ids.length > 0) {
    await q.query(
      `UPDATE workflow_steps SET output = NULL WHERE tenant_id = $1 AND workflow_id = ANY($2::uuid[]) AND output IS NOT NULL`,
      [tenantId, ids],
    );
    await q.query(
      `UPDATE workflow_approval_tasks SET payload = '{}'::jsonb WHERE tenant_id = $1 AND workflow_id = ANY($2::uuid[])`,
      [tenantId, ids],
    );
  }
  return ids.length;
}
