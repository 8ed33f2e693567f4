// Several executors' run writes in one transaction (docs/workflow.md, "Throughput"): each run's
// transitions, the patch of its last one, its step records and its audit events, for many
// executions at once in ONE statement whatever their number: it inserts the starts' executions,
// bumps the others' versions, and inserts every transition, step record and audit event (data-
// modifying CTEs, each a round trip saved). Every row names its tenant and every statement
// matches on it. Each execution's version bump is fenced by its run's
// lease as a single `transition` is: an execution whose lease is gone gets no rows, and is answered
// as lost.
import type { SqlQuery } from '../../platform/db/sql';
import { outboxInsert, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import { jsonRow, STEP_ON_CONFLICT } from './step.store';
import type { NewExecution } from './execution.store';
import type { ExecutionPatch } from './transition.store';
import type { PlannedNotice } from './workflow.events';
import { transitionRow } from './workflow.rows';
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
  /**
   * In order (a start's own event first when its insert goes out with the run's first write).
   * Each names this execution as `eventData.workflow_id`: the statement keeps those of the
   * executions that moved (a lost lease writes no audit event either).
   */
  audits?: AuditEventInput[];
}

export interface RunWritten {
  /**
   * Per execution: its transitions in version order, its saved step records, and for a start the
   * execution as inserted and moved; absent when its lease was lost.
   */
  byExecution: Map<string, { transitions: Transition[]; steps: StepRecord[]; execution?: Execution }>;
}

/** A write's patch as the statement's rows carry it (the starts' and the others' alike). */
const patchColumns = (w: RunWrite) => ({
  status: w.patch?.status ?? null,
  patch: {
    ...(w.patch?.error !== undefined ? { error: w.patch.error } : {}),
    ...(w.patch?.compensation !== undefined ? { compensation: w.patch.compensation } : {}),
  },
  completed: w.patch?.completed ?? false,
  release: w.patch?.release ?? false,
  lease_ms: w.leaseMs,
});

// A start's execution is inserted already moved by its items (version n, its patch applied): a
// sibling CTE's UPDATE would not see the row. Every other write bumps its execution, fenced by its
// lease and tenant. The transitions and step records join what those two returned, so an
// execution whose lease was lost gets none; each is numbered from its execution's new version
// down (`version - n + 1 + i`), a completed step with its completing transition's version.
// The transitions' notices (workflow.events.ts, `planned`), each completed from the transition it
// reports (its version, status and time; the changed notice's version and seq), are inserted in
// the same statement, in their order: a group write is one autocommit statement, no BEGIN and
// COMMIT round trips (issue 35 item 3), as atomic as the transaction it was. The transitions'
// `at` is returned as the text the notices carry (milliseconds, UTC: what the driver's Date gave).
// The closing audit events (the platform outbox's insert, its parameters after the four above),
// kept for the executions that moved: one statement with the run write, a round trip less per group.
// The filter is an array computed once (an InitPlan), not a join: a hash join with `moved` would
// insert the rows in its own order, and the outbox's ids must keep theirs (a start's event first).
const AUDIT_INSERT = outboxInsert('workflow', [], 5).text;

const WRITE_RUNS = `WITH started AS (
  INSERT INTO workflow_executions (id, tenant_id, pack_id, pack_version, pack_source, workflow_type, status, requires_approval, pack, payload, metadata,
    context, requested_by, correlation_id, version, error, compensation, lease_owner, lease_expires_at, next_run_at, created_at, updated_at, completed_at)
  SELECT x.id, x.tenant_id, x.pack_id, x.pack_version, x.pack_source, x.workflow_type, coalesce(x.status, 'running'), x.requires_approval, x.pack, x.payload,
    x.metadata, '{}'::jsonb, x.requested_by, x.correlation_id, x.n, x.patch->>'error', x.patch->'compensation',
    CASE WHEN x.release THEN NULL ELSE x.lease_owner END,
    CASE WHEN x.release THEN NULL ELSE now() + make_interval(secs => x.lease_ms / 1000) END,
    now(), now(), now(), CASE WHEN x.completed THEN now() END
  FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, tenant_id text, pack_id text, pack_version text, pack_source text, workflow_type text,
    requires_approval boolean, pack jsonb, payload jsonb, metadata jsonb, requested_by text, correlation_id text, lease_owner text, lease_ms float8,
    n int, status text, patch jsonb, completed boolean, release boolean)
  RETURNING id, version, status
), bumped AS (
  UPDATE workflow_executions e SET version = e.version + v.n, updated_at = now(),
    status = coalesce(v.status, e.status),
    error = CASE WHEN v.patch ? 'error' THEN v.patch->>'error' ELSE e.error END,
    compensation = CASE WHEN v.patch ? 'compensation' THEN v.patch->'compensation' ELSE e.compensation END,
    completed_at = CASE WHEN v.completed THEN now() ELSE e.completed_at END,
    lease_owner = CASE WHEN v.release THEN NULL ELSE e.lease_owner END,
    lease_expires_at = CASE WHEN v.release THEN NULL ELSE now() + make_interval(secs => v.lease_ms / 1000) END
  FROM jsonb_to_recordset($2::jsonb)
    AS v(tenant_id text, id uuid, owner text, n int, status text, patch jsonb, completed boolean, release boolean, lease_ms float8)
  WHERE e.tenant_id = v.tenant_id AND e.id = v.id AND e.lease_owner = v.owner
  RETURNING e.id, e.version, e.status
), moved AS (
  SELECT * FROM started UNION ALL SELECT * FROM bumped
), saved AS (
  INSERT INTO workflow_steps (workflow_id, path, tenant_id, step, type, action, compensation, idempotency_key, status, attempts, output, error,
    started_at, finished_at, completed_seq, compensation_status, compensation_attempts, compensation_error, compensated_at)
  SELECT x.workflow_id::uuid, x.path, x.tenant_id, x.step, x.type, x.action, x.compensation, x.idempotency_key, x.status, x.attempts, x.output, x.error,
    x.started_at, x.finished_at, CASE WHEN x.completed_at IS NULL THEN x.completed_seq ELSE m.version - x.n + 1 + x.completed_at END,
    x.compensation_status, x.compensation_attempts, x.compensation_error, x.compensated_at
  FROM jsonb_to_recordset($4::jsonb) AS x(workflow_id text, path text, tenant_id text, step text, type text, action text, compensation text,
    idempotency_key text, status text, attempts int, output jsonb, error text, started_at timestamptz, finished_at timestamptz, completed_seq int,
    compensation_status text, compensation_attempts int, compensation_error text, compensated_at timestamptz, n int, completed_at int)
  JOIN moved m ON m.id = x.workflow_id::uuid
  ${STEP_ON_CONFLICT}
), written AS (
  INSERT INTO workflow_transitions (tenant_id, workflow_id, version, event, status, step, task_id, detail, at)
  SELECT x.tenant_id, m.id, m.version - x.n + 1 + x.i, x.event, CASE WHEN x.i = x.n - 1 THEN m.status ELSE x.status END, x.step, x.task_id::uuid,
    x.detail, now()
  FROM jsonb_to_recordset($3::jsonb)
    AS x(tenant_id text, workflow_id text, i int, n int, event text, status text, step text, task_id text, detail jsonb)
  JOIN moved m ON m.id = x.workflow_id::uuid
  ORDER BY m.id, x.i
  RETURNING seq::float8 AS seq, tenant_id, workflow_id::text, version, event, status, step, task_id::text, detail,
    to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
), audited AS (
  ${AUDIT_INSERT} WHERE (e.event_data->>'workflow_id')::uuid = ANY (ARRAY(SELECT id FROM moved))
), noticed AS (
  INSERT INTO notice_outbox (event_id, service, tenant_id, topic, subject, envelope)
  SELECT x.event_id, x.service, x.tenant_id, x.topic, x.subject,
    jsonb_set(x.envelope, '{data}', (x.envelope->'data') || CASE WHEN x.changed
      THEN jsonb_build_object('version', w.version, 'seq', w.seq)
      ELSE jsonb_build_object('version', w.version, 'status', w.status, 'at', w.at) END)
  FROM jsonb_to_recordset($8::jsonb) AS x(ord int, workflow_id text, i int, n int, changed boolean, event_id text, service text,
    tenant_id text, topic text, subject text, envelope jsonb)
  JOIN moved m ON m.id = x.workflow_id::uuid
  JOIN written w ON w.workflow_id = x.workflow_id AND w.version = m.version - x.n + 1 + x.i
  ORDER BY x.ord
)
SELECT * FROM written`;

export async function writeRunsAcrossTenants(
  q: SqlQuery,
  writes: readonly RunWrite[],
  /** The writes' notices (workflow.events.ts, `planned`): inserted for the executions that moved. */
  notices: readonly PlannedNotice[] = [],
): Promise<RunWritten> {
  const byExecution: RunWritten['byExecution'] = new Map();
  if (writes.length === 0) return { byExecution };
  const starts = writes.flatMap((w) =>
    w.insert
      ? [
          {
            id: w.insert.id,
            tenant_id: w.insert.tenantId,
            pack_id: w.insert.packId,
            pack_version: w.insert.packVersion,
            pack_source: w.insert.packSource,
            workflow_type: w.insert.workflowType,
            requires_approval: w.insert.requiresApproval,
            pack: w.insert.pack ?? null,
            payload: w.insert.payload ?? null,
            metadata: w.insert.metadata ?? null,
            requested_by: w.insert.requestedBy,
            correlation_id: w.insert.correlationId,
            lease_owner: w.insert.leaseOwner,
            n: w.items.length,
            ...patchColumns({ ...w, leaseMs: w.insert.leaseMs }),
          },
        ]
      : [],
  );
  const bumps = writes.flatMap((w) =>
    w.insert
      ? []
      : [{ tenant_id: w.tenantId, id: w.workflowId, owner: w.owner, n: w.items.length, ...patchColumns(w) }],
  );
  const items = writes.flatMap((w) =>
    w.items.map((item, i) => ({
      tenant_id: w.tenantId,
      workflow_id: w.workflowId,
      i,
      n: w.items.length,
      event: item.event,
      status: w.status,
      step: item.step ?? null,
      task_id: item.taskId ?? null,
      detail: item.detail ?? null,
    })),
  );
  const steps = writes.flatMap((w) =>
    w.steps.map(({ record, completedAt }) => ({
      ...jsonRow(record),
      // A step completed by one of these items takes that item's version (in the statement): the
      // record's own completedSeq is then a run's placeholder (execution.journal.ts), not a column value.
      ...(completedAt === undefined ? {} : { completed_seq: null }),
      tenant_id: w.tenantId,
      n: w.items.length,
      completed_at: completedAt ?? null,
    })),
  );
  // The statement's text never changes (the rows are its four JSON parameters): prepared once per
  // pooled connection, PostgreSQL parses and plans its CTEs once instead of in every group commit
  // (about a third of the server's time in the statement, issue 35 item 3).
  const audits = writes.flatMap((w) => {
    for (const a of w.audits ?? [])
      if (a.tenantId !== w.tenantId || (a.eventData as { workflow_id?: unknown } | null)?.workflow_id !== w.workflowId)
        throw new Error(`a run write's audit event must be its own execution's (workflow ${w.workflowId})`);
    return w.audits ?? [];
  });
  const res = await q.query<Record<string, unknown>>(
    WRITE_RUNS,
    [
      JSON.stringify(starts),
      JSON.stringify(bumps),
      JSON.stringify(items),
      JSON.stringify(steps),
      ...outboxInsert('workflow', audits, 5).params,
      JSON.stringify(
        notices.map((p, ord) => ({
          ord,
          workflow_id: p.workflowId,
          i: p.i,
          n: p.n,
          changed: p.changed,
          event_id: p.notice.envelope.id,
          service: p.notice.service,
          tenant_id: p.notice.envelope.tenantid,
          topic: p.notice.envelope.type,
          subject: p.notice.envelope.subject,
          envelope: p.notice.envelope,
        })),
      ),
    ],
    { prepareAs: 'workflow_write_runs' },
  );
  for (const t of res.rows.map(transitionRow)) {
    const mine = byExecution.get(t.workflowId);
    if (mine) mine.transitions.push(t);
    else byExecution.set(t.workflowId, { transitions: [t], steps: [] });
  }
  const kept = writes.filter((w) => byExecution.has(w.workflowId));
  for (const w of kept) {
    const mine = byExecution.get(w.workflowId)!;
    mine.transitions.sort((a, b) => a.version - b.version);
    for (const { record, completedAt } of w.steps)
      mine.steps.push(
        completedAt === undefined ? record : { ...record, completedSeq: mine.transitions[completedAt]!.version },
      );
    // A start's execution as inserted: what it was given, moved by its transitions (all stamped
    // with the transaction's now(), as its created_at and updated_at are), without reading it back.
    if (w.insert) mine.execution = startedExecution(w, mine.transitions);
  }

  return { byExecution };
}

function startedExecution(w: RunWrite, transitions: readonly Transition[]): Execution {
  const e = w.insert!;
  const last = transitions.at(-1)!;
  return {
    id: e.id,
    tenantId: e.tenantId,
    packId: e.packId,
    packVersion: e.packVersion,
    packSource: e.packSource as Execution['packSource'],
    workflowType: e.workflowType,
    status: last.status as Execution['status'],
    requiresApproval: e.requiresApproval,
    pack: e.pack as Execution['pack'],
    payload: e.payload as Execution['payload'],
    metadata: e.metadata as Execution['metadata'],
    context: {},
    requestedBy: e.requestedBy,
    correlationId: e.correlationId,
    version: last.version,
    error: w.patch?.error ?? null,
    compensation: w.patch?.compensation ?? null,
    createdAt: last.at,
    updatedAt: last.at,
    completedAt: w.patch?.completed ? last.at : null,
  };
}
