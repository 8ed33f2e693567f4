// The only code that talks to the workflow tables (prisma/schema/workflow.prisma). Raw SQL: the
// executor's claims use `FOR UPDATE SKIP LOCKED`, and every transition is fenced by the lease
// (`lease_owner = $owner`), which Prisma's API cannot say. Every function reading tenant data takes
// the tenant id, always as (q, tenantId, ...rest), and scopes its SQL by it; the few that sweep
// every tenant's due work (the executor's claims and timers) say so in their names. Methods that
// take `q` run on the caller's transaction.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { sqlOutboxWriter, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import type {
  ApprovalTask, CompensationRecord, Execution, ExecutionStatus, StepRecord, TaskStatus, Transition, WorkflowType,
} from './workflow.types';

/** The executor's lease was taken over (it expired): the executor must stop acting on the execution. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : iso(v));
const json = (v: unknown): string => JSON.stringify(v ?? null);

const EXECUTION_COLUMNS = `id::text, tenant_id, pack_id, pack_version, pack_source, workflow_type, status, requires_approval, pack, payload,
  metadata, context, requested_by, correlation_id, version, error, compensation, created_at, updated_at, completed_at`;

function execution(r: Record<string, any>): Execution {
  return {
    id: r.id, tenantId: r.tenant_id, packId: r.pack_id, packVersion: r.pack_version, packSource: r.pack_source, workflowType: r.workflow_type,
    status: r.status, requiresApproval: r.requires_approval, pack: r.pack, payload: r.payload, metadata: r.metadata, context: r.context,
    requestedBy: r.requested_by, correlationId: r.correlation_id, version: Number(r.version), error: r.error, compensation: r.compensation,
    createdAt: iso(r.created_at), updatedAt: iso(r.updated_at), completedAt: isoOrNull(r.completed_at),
  };
}

function stepRecord(r: Record<string, any>): StepRecord {
  return {
    workflowId: r.workflow_id, path: r.path, step: r.step, type: r.type, action: r.action, compensation: r.compensation, idempotencyKey: r.idempotency_key,
    status: r.status, attempts: Number(r.attempts), output: r.output ?? null, error: r.error, startedAt: isoOrNull(r.started_at), finishedAt: isoOrNull(r.finished_at),
    completedSeq: r.completed_seq === null ? null : Number(r.completed_seq), compensationStatus: r.compensation_status,
    compensationAttempts: Number(r.compensation_attempts), compensationError: r.compensation_error, compensatedAt: isoOrNull(r.compensated_at),
  };
}

function task(r: Record<string, any>): ApprovalTask {
  return {
    id: r.id, tenantId: r.tenant_id, workflowId: r.workflow_id, workflowType: r.workflow_type, stepPath: r.step_path, step: r.step, payload: r.payload,
    status: r.status, reviewer: r.reviewer, decision: r.decision, notes: r.notes, history: r.history ?? [], requestedBy: r.requested_by,
    reviewerRole: r.reviewer_role, instructions: r.instructions, createdAt: iso(r.created_at), decidedAt: isoOrNull(r.decided_at),
    deadlineAt: iso(r.deadline_at), escalationLevel: Number(r.escalation_level),
  };
}

function transition(r: Record<string, any>): Transition {
  return {
    seq: Number(r.seq), tenantId: r.tenant_id, workflowId: r.workflow_id, version: Number(r.version), event: r.event, status: r.status,
    step: r.step, taskId: r.task_id, detail: r.detail, at: iso(r.at),
  };
}

const STEP_COLUMNS = `workflow_id::text, path, step, type, action, compensation, idempotency_key, status, attempts, output, error, started_at, finished_at,
  completed_seq, compensation_status, compensation_attempts, compensation_error, compensated_at`;
const TASK_COLUMNS = `id::text, tenant_id, workflow_id::text, workflow_type, step_path, step, payload, status, reviewer, decision, notes, history,
  requested_by, reviewer_role, instructions, created_at, decided_at, deadline_at, escalation_level`;
const TRANSITION_COLUMNS = 'seq::float8 AS seq, tenant_id, workflow_id::text, version, event, status, step, task_id::text, detail, at';

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

export interface ListFilter {
  status?: string;
  workflowType?: string;
}

export interface TaskFilter extends ListFilter {
  reviewer?: string;
}

export function createWorkflowStore(sql: SqlExecutor) {
  return {
    sql,
    transaction: <T>(work: (q: SqlQuery) => Promise<T>) => sql.transaction(work),

    async insertExecution(q: SqlQuery, e: NewExecution): Promise<void> {
      await q.query(
        `INSERT INTO workflow_executions (id, tenant_id, pack_id, pack_version, pack_source, workflow_type, status, requires_approval, pack, payload, metadata,
           context, requested_by, correlation_id, version, lease_owner, lease_expires_at, next_run_at, created_at, updated_at)
         VALUES ($1::uuid, $2, $3, $4, $5, $6, 'running', $7, $8::jsonb, $9::jsonb, $10::jsonb, '{}'::jsonb, $11, $12, 0, $13,
           now() + make_interval(secs => $14::float8 / 1000), now(), now(), now())`,
        [e.id, e.tenantId, e.packId, e.packVersion, e.packSource, e.workflowType, e.requiresApproval, json(e.pack), json(e.payload), json(e.metadata),
          e.requestedBy, e.correlationId, e.leaseOwner, e.leaseMs],
      );
    },

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
      if (p.runAfterMs !== undefined) sets.push(`next_run_at = now() + make_interval(secs => ${add(p.runAfterMs)}::float8 / 1000)`);
      if (p.completed) sets.push('completed_at = now()');
      if (p.release) sets.push('lease_owner = NULL', 'lease_expires_at = NULL');
      else if (t.owner !== null) sets.push(`lease_expires_at = now() + make_interval(secs => ${add(t.leaseMs)}::float8 / 1000)`);
      let where = 'tenant_id = $1 AND id = $2::uuid';
      if (t.owner !== null) where += ` AND lease_owner = ${add(t.owner)}`;
      const res = await q.query<{ version: number; tenant_id: string; status: string }>(
        `UPDATE workflow_executions SET ${sets.join(', ')} WHERE ${where} RETURNING version, tenant_id, status`, params,
      );
      const row = res.rows[0];
      if (!row) throw new LeaseLostError(`lease on workflow ${t.workflowId} lost`);
      const ins = await q.query<Record<string, unknown>>(
        `INSERT INTO workflow_transitions (tenant_id, workflow_id, version, event, status, step, task_id, detail, at)
         VALUES ($1, $2::uuid, $3, $4, $5, $6, $7::uuid, $8::jsonb, now()) RETURNING ${TRANSITION_COLUMNS}`,
        [row.tenant_id, t.workflowId, row.version, t.event, row.status, t.step ?? null, t.taskId ?? null, t.detail ? json(t.detail) : null],
      );
      return transition(ins.rows[0]!);
    },

    /**
     * Several transitions of one execution in three statements (the executor's queued in-process
     * steps): one version bump by n, fenced by the lease like `transition`, then one insert of
     * every row. Each row carries `status` as given (the execution's status is not changed here).
     */
    async transitionBatch(q: SqlQuery, tenantId: string, t: { workflowId: string; owner: string; leaseMs: number; status: string; items: { event: string; step?: string | null; detail?: Record<string, unknown> | null }[] }): Promise<Transition[]> {
      if (t.items.length === 0) return [];
      const res = await q.query<{ version: number; tenant_id: string }>(
        `UPDATE workflow_executions SET version = version + $4, updated_at = now(), lease_expires_at = now() + make_interval(secs => $5::float8 / 1000)
         WHERE tenant_id = $1 AND id = $2::uuid AND lease_owner = $3 RETURNING version, tenant_id`,
        [tenantId, t.workflowId, t.owner, t.items.length, t.leaseMs],
      );
      const row = res.rows[0];
      if (!row) throw new LeaseLostError(`lease on workflow ${t.workflowId} lost`);
      const first = Number(row.version) - t.items.length + 1;
      const rows = t.items.map((item, i) => ({ version: first + i, event: item.event, step: item.step ?? null, detail: item.detail ?? null }));
      const ins = await q.query<Record<string, unknown>>(
        `INSERT INTO workflow_transitions (tenant_id, workflow_id, version, event, status, step, task_id, detail, at)
         SELECT $1, $2::uuid, x.version, x.event, $3, x.step, NULL, x.detail, now()
         FROM jsonb_to_recordset($4::jsonb) AS x(version int, event text, step text, detail jsonb)
         ORDER BY x.version RETURNING ${TRANSITION_COLUMNS}`,
        [row.tenant_id, t.workflowId, t.status, JSON.stringify(rows)],
      );
      return ins.rows.map(transition).sort((a, b) => a.version - b.version);
    },

    /** Several step records in one statement (same upsert as `saveStep`). */
    async saveSteps(q: SqlQuery, tenantId: string, records: StepRecord[]): Promise<void> {
      if (records.length === 0) return;
      if (records.length === 1) return this.saveStep(q, tenantId, records[0]!);
      const rows = records.map((s) => ({
        workflow_id: s.workflowId, path: s.path, step: s.step, type: s.type, action: s.action, compensation: s.compensation, idempotency_key: s.idempotencyKey,
        status: s.status, attempts: s.attempts, output: s.output === undefined ? null : s.output, error: s.error, started_at: s.startedAt, finished_at: s.finishedAt,
        completed_seq: s.completedSeq, compensation_status: s.compensationStatus, compensation_attempts: s.compensationAttempts,
        compensation_error: s.compensationError, compensated_at: s.compensatedAt,
      }));
      await q.query(
        `INSERT INTO workflow_steps (workflow_id, path, tenant_id, step, type, action, compensation, idempotency_key, status, attempts, output, error,
           started_at, finished_at, completed_seq, compensation_status, compensation_attempts, compensation_error, compensated_at)
         SELECT x.workflow_id::uuid, x.path, $1, x.step, x.type, x.action, x.compensation, x.idempotency_key, x.status, x.attempts, x.output, x.error,
           x.started_at, x.finished_at, x.completed_seq, x.compensation_status, x.compensation_attempts, x.compensation_error, x.compensated_at
         FROM jsonb_to_recordset($2::jsonb) AS x(workflow_id text, path text, step text, type text, action text, compensation text, idempotency_key text,
           status text, attempts int, output jsonb, error text, started_at timestamptz, finished_at timestamptz, completed_seq int,
           compensation_status text, compensation_attempts int, compensation_error text, compensated_at timestamptz)
         ON CONFLICT (workflow_id, path) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts, output = EXCLUDED.output,
           error = EXCLUDED.error, started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, completed_seq = EXCLUDED.completed_seq,
           compensation_status = EXCLUDED.compensation_status, compensation_attempts = EXCLUDED.compensation_attempts,
           compensation_error = EXCLUDED.compensation_error, compensated_at = EXCLUDED.compensated_at`,
        [tenantId, JSON.stringify(rows)],
      );
    },

    async saveStep(q: SqlQuery, tenantId: string, s: StepRecord): Promise<void> {
      await q.query(
        `INSERT INTO workflow_steps (workflow_id, path, tenant_id, step, type, action, compensation, idempotency_key, status, attempts, output, error,
           started_at, finished_at, completed_seq, compensation_status, compensation_attempts, compensation_error, compensated_at)
         VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13::timestamptz, $14::timestamptz, $15, $16, $17, $18, $19::timestamptz)
         ON CONFLICT (workflow_id, path) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts, output = EXCLUDED.output,
           error = EXCLUDED.error, started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, completed_seq = EXCLUDED.completed_seq,
           compensation_status = EXCLUDED.compensation_status, compensation_attempts = EXCLUDED.compensation_attempts,
           compensation_error = EXCLUDED.compensation_error, compensated_at = EXCLUDED.compensated_at`,
        [s.workflowId, s.path, tenantId, s.step, s.type, s.action, s.compensation, s.idempotencyKey, s.status, s.attempts,
          s.output === undefined ? null : json(s.output), s.error, s.startedAt, s.finishedAt, s.completedSeq, s.compensationStatus,
          s.compensationAttempts, s.compensationError, s.compensatedAt],
      );
    },

    async insertTask(q: SqlQuery, t: ApprovalTask): Promise<void> {
      await q.query(
        `INSERT INTO workflow_approval_tasks (id, tenant_id, workflow_id, workflow_type, step_path, step, payload, status, history, requested_by,
           reviewer_role, instructions, created_at, deadline_at, escalation_level)
         VALUES ($1::uuid, $2, $3::uuid, $4, $5, $6, $7::jsonb, 'pending', '[]'::jsonb, $8, $9, $10, $11::timestamptz, $12::timestamptz, 0)`,
        [t.id, t.tenantId, t.workflowId, t.workflowType, t.stepPath, t.step, json(t.payload), t.requestedBy, t.reviewerRole, t.instructions, t.createdAt, t.deadlineAt],
      );
    },

    /** The task, locked for the decision (the caller's transaction). */
    async taskForUpdate(q: SqlQuery, tenantId: string, id: string): Promise<ApprovalTask | undefined> {
      const res = await q.query(`SELECT ${TASK_COLUMNS} FROM workflow_approval_tasks WHERE tenant_id = $1 AND id = $2::uuid FOR UPDATE`, [tenantId, id]);
      return res.rows[0] ? task(res.rows[0]) : undefined;
    },

    /** Records a decision on the tenant's task; undefined when the tenant has no such task. */
    async decideTask(q: SqlQuery, tenantId: string, id: string, d: { status: TaskStatus; reviewer: string; decision: string; notes: string | null; history: unknown }): Promise<ApprovalTask | undefined> {
      const res = await q.query(
        `UPDATE workflow_approval_tasks SET status = $3::text, reviewer = $4, decision = $5, notes = $6, history = $7::jsonb,
           decided_at = CASE WHEN $3::text = 'pending' THEN NULL ELSE now() END
         WHERE tenant_id = $1 AND id = $2::uuid RETURNING ${TASK_COLUMNS}`,
        [tenantId, id, d.status, d.reviewer, d.decision, d.notes, json(d.history)],
      );
      return res.rows[0] ? task(res.rows[0]) : undefined;
    },

    async escalateTask(q: SqlQuery, tenantId: string, id: string, deadlineMs: number): Promise<ApprovalTask | undefined> {
      const res = await q.query(
        `UPDATE workflow_approval_tasks SET escalation_level = escalation_level + 1, deadline_at = now() + make_interval(secs => $3::float8 / 1000)
         WHERE tenant_id = $1 AND id = $2::uuid AND status = 'pending' RETURNING ${TASK_COLUMNS}`,
        [tenantId, id, deadlineMs],
      );
      return res.rows[0] ? task(res.rows[0]) : undefined;
    },

    async insertTimer(q: SqlQuery, timer: { id: string; tenantId: string; workflowId: string; kind: string; taskId: string | null; fireAt: string }): Promise<void> {
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
    async takeDueTimersAcrossTenants(q: SqlQuery, limit: number): Promise<{ id: string; tenant_id: string; workflow_id: string; kind: string; task_id: string | null }[]> {
      const res = await q.query<{ id: string; tenant_id: string; workflow_id: string; kind: string; task_id: string | null }>(
        `DELETE FROM workflow_timers WHERE id IN (
           SELECT id FROM workflow_timers WHERE fire_at <= now() ORDER BY fire_at LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING id::text, tenant_id, workflow_id::text, kind, task_id::text`,
        [limit],
      );
      return res.rows;
    },

    /**
     * Claims up to `limit` runnable executions of any tenant for `owner`: running or compensating,
     * due (retry timer passed), and unleased or with an expired lease. SKIP LOCKED lets several
     * executors claim at once without waiting on, or taking, each other's rows. Each claim names
     * its tenant, which the executor's reads then take.
     */
    async claimRunnableAcrossTenants(owner: string, leaseMs: number, limit: number, onlyId?: string): Promise<{ id: string; tenantId: string }[]> {
      const res = await sql.query<{ id: string; tenant_id: string }>(
        `UPDATE workflow_executions SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
         WHERE id IN (
           SELECT id FROM workflow_executions
           WHERE status IN ('running', 'compensating') AND (next_run_at IS NULL OR next_run_at <= now())
             AND (lease_owner IS NULL OR lease_expires_at < now()) ${onlyId ? 'AND id = $4::uuid' : ''}
           ORDER BY next_run_at NULLS FIRST LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING id::text, tenant_id`,
        onlyId ? [owner, leaseMs, limit, onlyId] : [owner, leaseMs, limit],
      );
      return res.rows.map((r) => ({ id: r.id, tenantId: r.tenant_id }));
    },

    async renewLease(tenantId: string, id: string, owner: string, leaseMs: number): Promise<boolean> {
      const res = await sql.query(
        'UPDATE workflow_executions SET lease_expires_at = now() + make_interval(secs => $4::float8 / 1000) WHERE tenant_id = $1 AND id = $2::uuid AND lease_owner = $3',
        [tenantId, id, owner, leaseMs],
      );
      return res.rowCount > 0;
    },

    /** Gives the lease up; with `retryAfterMs`, the execution is not claimed again before that many ms. */
    async releaseLease(tenantId: string, id: string, owner: string, retryAfterMs: number | null = null): Promise<void> {
      await sql.query(
        `UPDATE workflow_executions SET lease_owner = NULL, lease_expires_at = NULL,
           next_run_at = CASE WHEN $4::float8 IS NULL THEN next_run_at ELSE now() + make_interval(secs => $4::float8 / 1000) END
         WHERE tenant_id = $1 AND id = $2::uuid AND lease_owner = $3`,
        [tenantId, id, owner, retryAfterMs],
      );
    },

    /** Every lease (PGlite only: its lock file proves no other process holds any). */
    async releaseAllLeases(): Promise<number> {
      const res = await sql.query('UPDATE workflow_executions SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner IS NOT NULL');
      return res.rowCount;
    },

    async executionById(q: SqlQuery, tenantId: string, id: string): Promise<Execution | undefined> {
      const res = await q.query(`SELECT ${EXECUTION_COLUMNS} FROM workflow_executions WHERE tenant_id = $1 AND id = $2::uuid`, [tenantId, id]);
      return res.rows[0] ? execution(res.rows[0]) : undefined;
    },

    async execution(tenantId: string, id: string): Promise<Execution | undefined> {
      const res = await sql.query(`SELECT ${EXECUTION_COLUMNS} FROM workflow_executions WHERE tenant_id = $1 AND id = $2::uuid`, [tenantId, id]);
      return res.rows[0] ? execution(res.rows[0]) : undefined;
    },

    async executions(tenantId: string, filter: ListFilter, first: number, before: { createdAt: string; id: string } | null): Promise<Execution[]> {
      const params: unknown[] = [tenantId];
      let where = 'tenant_id = $1';
      if (filter.status) where += ` AND status = $${params.push(filter.status)}`;
      if (filter.workflowType) where += ` AND workflow_type = $${params.push(filter.workflowType)}`;
      if (before) where += ` AND (created_at, id) < ($${params.push(before.createdAt)}::timestamptz, $${params.push(before.id)}::uuid)`;
      const res = await sql.query(`SELECT ${EXECUTION_COLUMNS} FROM workflow_executions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.push(first)}`, params);
      return res.rows.map(execution);
    },

    async steps(q: SqlQuery, tenantId: string, workflowId: string): Promise<StepRecord[]> {
      const res = await q.query(
        `SELECT ${STEP_COLUMNS} FROM workflow_steps WHERE tenant_id = $1 AND workflow_id = $2::uuid ORDER BY started_at NULLS LAST, path`, [tenantId, workflowId],
      );
      return res.rows.map(stepRecord);
    },

    async tasksOf(q: SqlQuery, tenantId: string, workflowId: string): Promise<ApprovalTask[]> {
      const res = await q.query(
        `SELECT ${TASK_COLUMNS} FROM workflow_approval_tasks WHERE tenant_id = $1 AND workflow_id = $2::uuid ORDER BY created_at, id`, [tenantId, workflowId],
      );
      return res.rows.map(task);
    },

    async task(tenantId: string, id: string): Promise<ApprovalTask | undefined> {
      const res = await sql.query(`SELECT ${TASK_COLUMNS} FROM workflow_approval_tasks WHERE tenant_id = $1 AND id = $2::uuid`, [tenantId, id]);
      return res.rows[0] ? task(res.rows[0]) : undefined;
    },

    async tasks(tenantId: string, filter: TaskFilter, first: number, before: { createdAt: string; id: string } | null): Promise<ApprovalTask[]> {
      const params: unknown[] = [tenantId];
      let where = 'tenant_id = $1';
      if (filter.status) where += ` AND status = $${params.push(filter.status)}`;
      if (filter.workflowType) where += ` AND workflow_type = $${params.push(filter.workflowType)}`;
      if (filter.reviewer) where += ` AND reviewer = $${params.push(filter.reviewer)}`;
      if (before) where += ` AND (created_at, id) < ($${params.push(before.createdAt)}::timestamptz, $${params.push(before.id)}::uuid)`;
      const res = await sql.query(`SELECT ${TASK_COLUMNS} FROM workflow_approval_tasks WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.push(first)}`, params);
      return res.rows.map(task);
    },

    async transitionsAfter(tenantId: string, workflowId: string, afterVersion: number, limit: number): Promise<Transition[]> {
      const res = await sql.query(
        `SELECT ${TRANSITION_COLUMNS} FROM workflow_transitions WHERE tenant_id = $1 AND workflow_id = $2::uuid AND version > $3 ORDER BY version LIMIT $4`,
        [tenantId, workflowId, afterVersion, limit],
      );
      return res.rows.map(transition);
    },

    async eventsAfter(tenantId: string, event: string, afterSeq: number, limit: number): Promise<Transition[]> {
      const res = await sql.query(
        `SELECT ${TRANSITION_COLUMNS} FROM workflow_transitions WHERE tenant_id = $1 AND event = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
        [tenantId, event, afterSeq, limit],
      );
      return res.rows.map(transition);
    },

    /**
     * The newest transition's seq over every tenant: only a starting cursor for a tenant's feed,
     * which then reads with `eventsAfter(tenantId, ...)` (no other tenant's row is returned).
     */
    async headSeqAcrossTenants(): Promise<number> {
      const res = await sql.query<{ n: number | null }>('SELECT max(seq)::float8 AS n FROM workflow_transitions');
      return res.rows[0]?.n ?? 0;
    },

    /** An audit event into the shared outbox (outbox_events), in the caller's transaction. */
    async appendAudit(q: SqlQuery, e: AuditEventInput): Promise<void> {
      await sqlOutboxWriter(q, 'workflow').append(e);
    },
  };
}

export type WorkflowStore = ReturnType<typeof createWorkflowStore>;
