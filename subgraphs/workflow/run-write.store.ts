// Several executors' run writes in one transaction (docs/workflow.md, "Throughput"): each run's
// transitions, the patch of its last one, its step records and its audit event, for many
// executions at once in four statements whatever their number (five with starts: the new
// executions are inserted first). Every row names its tenant and
// every statement matches on it. Each execution's version bump is fenced by its run's lease as a
// single `transition` is: an execution whose lease is gone gets no rows, and is answered as lost.
import type { SqlQuery } from '../../platform/db/sql';
import { outboxInsert, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import { stepStore } from './step.store';
import type { NewExecution } from './execution.store';
import type { ExecutionPatch } from './transition.store';
import { EXECUTION_COLUMNS, executionRow, TRANSITION_COLUMNS, transitionRow } from './workflow.rows';
import type { Execution, StepRecord, Transition } from './workflow.types';

/** What a run's write may change on its execution besides the version (a subset of ExecutionPatch). */
export type RunPatch = Pick<ExecutionPatch, 'status' | 'error' | 'compensation' | 'completed' | 'release'>;

export interface RunWrite {
  /** A start: the execution is inserted (leased to `owner`) before its first transition. */
  insert?: NewExecution;
  tenantId: string;
  workflowId: string;
  owner: string;
  leaseMs: number;
  /** The execution's status as the run knows it: every transition's status but the last one's, which is the execution's after the patch. */
  status: string;
  /** In order; at least one. */
  items: { event: string; step?: string | null; taskId?: string | null; detail?: Record<string, unknown> | null }[];
  /** Applied with the version bump (it belongs to the last item). */
  patch?: RunPatch;
  /** Step records to save; a record with `completedAt` takes that item's version as its completion order. */
  steps: { record: StepRecord; completedAt?: number }[];
  audit?: AuditEventInput;
}

export interface RunWritten {
  /**
   * Per execution: its transitions in version order, its saved step records, and for a start the
   * execution as inserted and moved; absent when its lease was lost.
   */
  byExecution: Map<string, { transitions: Transition[]; steps: StepRecord[]; execution?: Execution }>;
}

const { saveStepsAcrossExecutions } = stepStore();

export async function writeRunsAcrossTenants(q: SqlQuery, writes: readonly RunWrite[]): Promise<RunWritten> {
  const byExecution: RunWritten['byExecution'] = new Map();
  if (writes.length === 0) return { byExecution };
  // 0. The starts' executions, at version 0 and leased to their executor.
  const starts = writes.flatMap((w) => (w.insert ? [w.insert] : []));
  const inserted = new Map<string, Execution>();
  if (starts.length > 0) {
    const res = await q.query(
      `INSERT INTO workflow_executions (id, tenant_id, pack_id, pack_version, pack_source, workflow_type, status, requires_approval, pack, payload, metadata,
         context, requested_by, correlation_id, version, lease_owner, lease_expires_at, next_run_at, created_at, updated_at)
       SELECT x.id, x.tenant_id, x.pack_id, x.pack_version, x.pack_source, x.workflow_type, 'running', x.requires_approval, x.pack, x.payload, x.metadata,
         '{}'::jsonb, x.requested_by, x.correlation_id, 0, x.lease_owner, now() + make_interval(secs => x.lease_ms / 1000), now(), now(), now()
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, tenant_id text, pack_id text, pack_version text, pack_source text, workflow_type text,
         requires_approval boolean, pack jsonb, payload jsonb, metadata jsonb, requested_by text, correlation_id text, lease_owner text, lease_ms float8)
       RETURNING ${EXECUTION_COLUMNS}`,
      [
        JSON.stringify(
          starts.map((e) => ({
            id: e.id,
            tenant_id: e.tenantId,
            pack_id: e.packId,
            pack_version: e.packVersion,
            pack_source: e.packSource,
            workflow_type: e.workflowType,
            requires_approval: e.requiresApproval,
            pack: e.pack ?? null,
            payload: e.payload ?? null,
            metadata: e.metadata ?? null,
            requested_by: e.requestedBy,
            correlation_id: e.correlationId,
            lease_owner: e.leaseOwner,
            lease_ms: e.leaseMs,
          })),
        ),
      ],
    );
    for (const row of res.rows) {
      const e = executionRow(row);
      inserted.set(e.id, e);
    }
  }
  // 1. Every execution's version bumped by its number of items, its patch applied, fenced by its lease.
  const bumped = await q.query<{ id: string; version: number; status: string }>(
    `UPDATE workflow_executions e SET version = e.version + v.n, updated_at = now(),
       status = coalesce(v.status, e.status),
       error = CASE WHEN v.patch ? 'error' THEN v.patch->>'error' ELSE e.error END,
       compensation = CASE WHEN v.patch ? 'compensation' THEN v.patch->'compensation' ELSE e.compensation END,
       completed_at = CASE WHEN v.completed THEN now() ELSE e.completed_at END,
       lease_owner = CASE WHEN v.release THEN NULL ELSE e.lease_owner END,
       lease_expires_at = CASE WHEN v.release THEN NULL ELSE now() + make_interval(secs => v.lease_ms / 1000) END
     FROM jsonb_to_recordset($1::jsonb)
       AS v(tenant_id text, id uuid, owner text, n int, status text, patch jsonb, completed boolean, release boolean, lease_ms float8)
     WHERE e.tenant_id = v.tenant_id AND e.id = v.id AND e.lease_owner = v.owner
     RETURNING e.id::text AS id, e.version, e.status`,
    [
      JSON.stringify(
        writes.map((w) => ({
          tenant_id: w.tenantId,
          id: w.workflowId,
          owner: w.owner,
          n: w.items.length,
          status: w.patch?.status ?? null,
          patch: {
            ...(w.patch?.error !== undefined ? { error: w.patch.error } : {}),
            ...(w.patch?.compensation !== undefined ? { compensation: w.patch.compensation } : {}),
          },
          completed: w.patch?.completed ?? false,
          release: w.patch?.release ?? false,
          lease_ms: w.leaseMs,
        })),
      ),
    ],
  );
  const after = new Map(bumped.rows.map((r) => [r.id, { version: Number(r.version), status: r.status }]));
  const kept = writes.filter((w) => after.has(w.workflowId));
  if (kept.length === 0) return { byExecution };

  // 2. The transitions, numbered from each execution's new version down.
  const rows = kept.flatMap((w) => {
    const { version, status } = after.get(w.workflowId)!;
    const first = version - w.items.length + 1;
    return w.items.map((item, i) => ({
      tenant_id: w.tenantId,
      workflow_id: w.workflowId,
      version: first + i,
      event: item.event,
      status: i === w.items.length - 1 ? status : w.status,
      step: item.step ?? null,
      task_id: item.taskId ?? null,
      detail: item.detail ?? null,
    }));
  });
  const ins = await q.query<Record<string, unknown>>(
    `INSERT INTO workflow_transitions (tenant_id, workflow_id, version, event, status, step, task_id, detail, at)
     SELECT x.tenant_id, x.workflow_id::uuid, x.version, x.event, x.status, x.step, x.task_id::uuid, x.detail, now()
     FROM jsonb_to_recordset($1::jsonb)
       AS x(tenant_id text, workflow_id text, version int, event text, status text, step text, task_id text, detail jsonb)
     ORDER BY x.workflow_id, x.version RETURNING ${TRANSITION_COLUMNS}`,
    [JSON.stringify(rows)],
  );
  for (const w of kept) {
    const start = inserted.get(w.workflowId);
    const { version, status } = after.get(w.workflowId)!;
    byExecution.set(w.workflowId, {
      transitions: [],
      steps: [],
      ...(start ? { execution: { ...start, version, status: status as Execution['status'] } } : {}),
    });
  }
  for (const t of ins.rows.map(transitionRow)) byExecution.get(t.workflowId)!.transitions.push(t);

  // 3. The step records, each completed one with its transition's version.
  const steps = kept.flatMap((w) => {
    const mine = byExecution.get(w.workflowId)!;
    mine.transitions.sort((a, b) => a.version - b.version);
    return w.steps.map(({ record, completedAt }) => {
      const saved =
        completedAt === undefined ? record : { ...record, completedSeq: mine.transitions[completedAt]!.version };
      mine.steps.push(saved);
      return { tenantId: w.tenantId, record: saved };
    });
  });
  await saveStepsAcrossExecutions(q, steps);

  // 4. The closing audit events.
  const audits = kept.flatMap((w) => (w.audit ? [w.audit] : []));
  if (audits.length > 0) {
    const { text, params } = outboxInsert('workflow', audits);
    await q.query(text, params);
  }
  return { byExecution };
}
