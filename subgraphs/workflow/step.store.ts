// Step records (workflow_steps): one per step of an execution (nested steps of decisions and
// parallel groups included), keyed by (workflow, path). Upserted as the executor moves a step on;
// read back to resume a run and to show an execution's status.
import type { SqlQuery } from '../../platform/db/sql';
import { json, STEP_COLUMNS, stepRow } from './workflow.rows';
import type { StepRecord } from './workflow.types';

/** What an upsert changes on a step already recorded (its identity and definition never change). */
export const STEP_ON_CONFLICT = `ON CONFLICT (workflow_id, path) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts, output = EXCLUDED.output,
           error = EXCLUDED.error, started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, completed_seq = EXCLUDED.completed_seq,
           compensation_status = EXCLUDED.compensation_status, compensation_attempts = EXCLUDED.compensation_attempts,
           compensation_error = EXCLUDED.compensation_error, compensated_at = EXCLUDED.compensated_at`;

async function saveStep(q: SqlQuery, tenantId: string, s: StepRecord): Promise<void> {
  await q.query(
    `INSERT INTO workflow_steps (workflow_id, path, tenant_id, step, type, action, compensation, idempotency_key, status, attempts, output, error,
       started_at, finished_at, completed_seq, compensation_status, compensation_attempts, compensation_error, compensated_at)
     VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13::timestamptz, $14::timestamptz, $15, $16, $17, $18, $19::timestamptz)
     ${STEP_ON_CONFLICT}`,
    [
      s.workflowId,
      s.path,
      tenantId,
      s.step,
      s.type,
      s.action,
      s.compensation,
      s.idempotencyKey,
      s.status,
      s.attempts,
      s.output === undefined ? null : json(s.output),
      s.error,
      s.startedAt,
      s.finishedAt,
      s.completedSeq,
      s.compensationStatus,
      s.compensationAttempts,
      s.compensationError,
      s.compensatedAt,
    ],
  );
}

/** A record as a `jsonb_to_recordset` row (run-write.store.ts writes them too). */
export const jsonRow = (s: StepRecord) => ({
  workflow_id: s.workflowId,
  path: s.path,
  step: s.step,
  type: s.type,
  action: s.action,
  compensation: s.compensation,
  idempotency_key: s.idempotencyKey,
  status: s.status,
  attempts: s.attempts,
  output: s.output === undefined ? null : s.output,
  error: s.error,
  started_at: s.startedAt,
  finished_at: s.finishedAt,
  completed_seq: s.completedSeq,
  compensation_status: s.compensationStatus,
  compensation_attempts: s.compensationAttempts,
  compensation_error: s.compensationError,
  compensated_at: s.compensatedAt,
});

export function stepStore() {
  return {
    saveStep,

    /** Several step records in one statement (same upsert as `saveStep`). */
    async saveSteps(q: SqlQuery, tenantId: string, records: StepRecord[]): Promise<void> {
      if (records.length === 0) return;
      if (records.length === 1) return saveStep(q, tenantId, records[0]!);
      const rows = records.map(jsonRow);
      await q.query(
        `INSERT INTO workflow_steps (workflow_id, path, tenant_id, step, type, action, compensation, idempotency_key, status, attempts, output, error,
           started_at, finished_at, completed_seq, compensation_status, compensation_attempts, compensation_error, compensated_at)
         SELECT x.workflow_id::uuid, x.path, $1, x.step, x.type, x.action, x.compensation, x.idempotency_key, x.status, x.attempts, x.output, x.error,
           x.started_at, x.finished_at, x.completed_seq, x.compensation_status, x.compensation_attempts, x.compensation_error, x.compensated_at
         FROM jsonb_to_recordset($2::jsonb) AS x(workflow_id text, path text, step text, type text, action text, compensation text, idempotency_key text,
           status text, attempts int, output jsonb, error text, started_at timestamptz, finished_at timestamptz, completed_seq int,
           compensation_status text, compensation_attempts int, compensation_error text, compensated_at timestamptz)
         ${STEP_ON_CONFLICT}`,
        [tenantId, JSON.stringify(rows)],
      );
    },

    async steps(q: SqlQuery, tenantId: string, workflowId: string): Promise<StepRecord[]> {
      const res = await q.query(
        `SELECT ${STEP_COLUMNS} FROM workflow_steps WHERE tenant_id = $1 AND workflow_id = $2::uuid ORDER BY started_at NULLS LAST, path`,
        [tenantId, workflowId],
      );
      return res.rows.map(stepRow);
    },

    /** The steps of several of the tenant's executions in one statement, each execution's in `steps` order. */
    async stepsOfExecutions(q: SqlQuery, tenantId: string, workflowIds: readonly string[]): Promise<StepRecord[]> {
      if (workflowIds.length === 0) return [];
      const res = await q.query(
        `SELECT ${STEP_COLUMNS} FROM workflow_steps
         WHERE tenant_id = $1 AND workflow_id IN (SELECT x::uuid FROM jsonb_array_elements_text($2::jsonb) AS x)
         ORDER BY workflow_id, started_at NULLS LAST, path`,
        [tenantId, JSON.stringify(workflowIds)],
      );
      return res.rows.map(stepRow);
    },
  };
}
