// Transitions (workflow_transitions): every persisted change of an execution, written in the same
// statement pair that bumps its version, fenced by the executor's lease (`lease_owner = $owner`),
// which Prisma's API cannot say. Also the reads the subscriptions replay after a cursor.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { json, TRANSITION_COLUMNS, transitionRow } from './workflow.rows';
import type { CompensationRecord, ExecutionStatus, Transition } from './workflow.types';

/** The executor's lease was taken over (it expired): the executor must stop acting on the execution. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

/** What a transition changes on the execution besides its version. */
export interface ExecutionPatch {
  status?: ExecutionStatus;
  context?: Record<string, unknown>;
  error?: string | null;
  compensation?: CompensationRecord;
  /** Retry timer: the execution is not claimed before this many ms from now. */
  runAfterMs?: number;
  completed?: boolean;
  /** Give the lease up in the same statement (the execution waits on a human or a timer, or is done). */
  release?: boolean;
}

export interface TransitionInput {
  workflowId: string;
  /** The lease holder; null for changes made outside an executor (an approval decision). */
  owner: string | null;
  leaseMs: number;
  event: string;
  step?: string | null;
  taskId?: string | null;
  detail?: Record<string, unknown> | null;
  patch?: ExecutionPatch;
}

export interface TransitionBatch {
  workflowId: string;
  owner: string;
  leaseMs: number;
  status: string;
  items: { event: string; step?: string | null; detail?: Record<string, unknown> | null }[];
}

export function transitionStore(sql: SqlExecutor) {
  return {
    /**
     * Bumps the execution's version (fenced by the lease when `owner` is given, renewing it),
     * applies the patch and records the transition, in the caller's transaction.
     */
    async transition(q: SqlQuery, tenantId: string, t: TransitionInput): Promise<Transition> {
      const p = t.patch ?? {};
      const params: unknown[] = [tenantId, t.workflowId];
      const sets = ['version = version + 1', 'updated_at = now()'];
      const add = (v: unknown) => {
        params.push(v);
        return `$${params.length}`;
      };
      if (p.status !== undefined) sets.push(`status = ${add(p.status)}`);
      if (p.context !== undefined) sets.push(`context = ${add(json(p.context))}::jsonb`);
      if (p.error !== undefined) sets.push(`error = ${add(p.error)}`);
      if (p.compensation !== undefined) sets.push(`compensation = ${add(json(p.compensation))}::jsonb`);
      if (p.runAfterMs !== undefined)
        sets.push(`next_run_at = now() + make_interval(secs => ${add(p.runAfterMs)}::float8 / 1000)`);
      if (p.completed) sets.push('completed_at = now()');
      if (p.release) sets.push('lease_owner = NULL', 'lease_expires_at = NULL');
      else if (t.owner !== null)
        sets.push(`lease_expires_at = now() + make_interval(secs => ${add(t.leaseMs)}::float8 / 1000)`);
      let where = 'tenant_id = $1 AND id = $2::uuid';
      if (t.owner !== null) where += ` AND lease_owner = ${add(t.owner)}`;
      const res = await q.query<{ version: number; tenant_id: string; status: string }>(
        `UPDATE workflow_executions SET ${sets.join(', ')} WHERE ${where} RETURNING version, tenant_id, status`,
        params,
      );
      const row = res.rows[0];
      if (!row) throw new LeaseLostError(`lease on workflow ${t.workflowId} lost`);
      const ins = await q.query<Record<string, unknown>>(
        `INSERT INTO workflow_transitions (tenant_id, workflow_id, version, event, status, step, task_id, detail, at)
         VALUES ($1, $2::uuid, $3, $4, $5, $6, $7::uuid, $8::jsonb, now()) RETURNING ${TRANSITION_COLUMNS}`,
        [
          row.tenant_id,
          t.workflowId,
          row.version,
          t.event,
          row.status,
          t.step ?? null,
          t.taskId ?? null,
          t.detail ? json(t.detail) : null,
        ],
      );
      return transitionRow(ins.rows[0]!);
    },

    /**
     * Several transitions of one execution in two statements (the executor's queued in-process
     * steps): one version bump by n, fenced by the lease like `transition`, then one insert of
     * every row. Each row carries `status` as given (the execution's status is not changed here).
     */
    async transitionBatch(q: SqlQuery, tenantId: string, t: TransitionBatch): Promise<Transition[]> {
      if (t.items.length === 0) return [];
      const res = await q.query<{ version: number; tenant_id: string }>(
        `UPDATE workflow_executions SET version = version + $4, updated_at = now(), lease_expires_at = now() + make_interval(secs => $5::float8 / 1000)
         WHERE tenant_id = $1 AND id = $2::uuid AND lease_owner = $3 RETURNING version, tenant_id`,
        [tenantId, t.workflowId, t.owner, t.items.length, t.leaseMs],
      );
      const row = res.rows[0];
      if (!row) throw new LeaseLostError(`lease on workflow ${t.workflowId} lost`);
      const first = Number(row.version) - t.items.length + 1;
      const rows = t.items.map((item, i) => ({
        version: first + i,
        event: item.event,
        step: item.step ?? null,
        detail: item.detail ?? null,
      }));
      const ins = await q.query<Record<string, unknown>>(
        `INSERT INTO workflow_transitions (tenant_id, workflow_id, version, event, status, step, task_id, detail, at)
         SELECT $1, $2::uuid, x.version, x.event, $3, x.step, NULL, x.detail, now()
         FROM jsonb_to_recordset($4::jsonb) AS x(version int, event text, step text, detail jsonb)
         ORDER BY x.version RETURNING ${TRANSITION_COLUMNS}`,
        [row.tenant_id, t.workflowId, t.status, JSON.stringify(rows)],
      );
      return ins.rows.map(transitionRow).sort((a, b) => a.version - b.version);
    },

    async transitionsAfter(
      tenantId: string,
      workflowId: string,
      afterVersion: number,
      limit: number,
    ): Promise<Transition[]> {
      const res = await sql.query(
        `SELECT ${TRANSITION_COLUMNS} FROM workflow_transitions WHERE tenant_id = $1 AND workflow_id = $2::uuid AND version > $3 ORDER BY version LIMIT $4`,
        [tenantId, workflowId, afterVersion, limit],
      );
      return res.rows.map(transitionRow);
    },

    async eventsAfter(tenantId: string, event: string, afterSeq: number, limit: number): Promise<Transition[]> {
      const res = await sql.query(
        `SELECT ${TRANSITION_COLUMNS} FROM workflow_transitions WHERE tenant_id = $1 AND event = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
        [tenantId, event, afterSeq, limit],
      );
      return res.rows.map(transitionRow);
    },

    /**
     * The newest transition's seq over every tenant: only a starting cursor for a tenant's feed,
     * which then reads with `eventsAfter(tenantId, ...)` (no other tenant's row is returned).
     */
    async headSeqAcrossTenants(): Promise<number> {
      const res = await sql.query<{ n: number | null }>('SELECT max(seq)::float8 AS n FROM workflow_transitions');
      return res.rows[0]?.n ?? 0;
    },
  };
}
