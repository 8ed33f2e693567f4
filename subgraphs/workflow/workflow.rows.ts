// The workflow tables' rows as the domain reads them: the column lists every store selects and
// the parsers that turn a row into a domain record, so each store file parses at the boundary
// the same way (timestamps as ISO text, counters as numbers).
import type { ApprovalTask, Execution, StepRecord, Transition } from './workflow.types';

export const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
export const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : iso(v));
export const json = (v: unknown): string => JSON.stringify(v ?? null);

export const EXECUTION_COLUMNS = `id::text, tenant_id, pack_id, pack_version, pack_source, workflow_type, status, requires_approval, pack, payload,
  metadata, context, requested_by, correlation_id, version, error, compensation, created_at, updated_at, completed_at`;
/**
 * A row as the driver returns it for the column lists above. Untyped on purpose: each parser
 * below is the one place that reads a row's columns and gives them their domain types.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type DbRow = Record<string, any>;

export const STEP_COLUMNS = `workflow_id::text, path, step, type, action, compensation, idempotency_key, status, attempts, output, error, started_at, finished_at,
  completed_seq, compensation_status, compensation_attempts, compensation_error, compensated_at`;
export const TASK_COLUMNS = `id::text, tenant_id, workflow_id::text, workflow_type, step_path, step, payload, status, reviewer, decision, notes, history,
  requested_by, reviewer_role, instructions, created_at, decided_at, deadline_at, escalation_level`;
export const TRANSITION_COLUMNS =
  'seq::float8 AS seq, tenant_id, workflow_id::text, version, event, status, step, task_id::text, detail, at';

export function executionRow(r: DbRow): Execution {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    packId: r.pack_id,
    packVersion: r.pack_version,
    packSource: r.pack_source,
    workflowType: r.workflow_type,
    status: r.status,
    requiresApproval: r.requires_approval,
    pack: r.pack,
    payload: r.payload,
    metadata: r.metadata,
    context: r.context,
    requestedBy: r.requested_by,
    correlationId: r.correlation_id,
    version: Number(r.version),
    error: r.error,
    compensation: r.compensation,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    completedAt: isoOrNull(r.completed_at),
  };
}

export function stepRow(r: DbRow): StepRecord {
  return {
    workflowId: r.workflow_id,
    path: r.path,
    step: r.step,
    type: r.type,
    action: r.action,
    compensation: r.compensation,
    idempotencyKey: r.idempotency_key,
    status: r.status,
    attempts: Number(r.attempts),
    output: r.output ?? null,
    error: r.error,
    startedAt: isoOrNull(r.started_at),
    finishedAt: isoOrNull(r.finished_at),
    completedSeq: r.completed_seq === null ? null : Number(r.completed_seq),
    compensationStatus: r.compensation_status,
    compensationAttempts: Number(r.compensation_attempts),
    compensationError: r.compensation_error,
    compensatedAt: isoOrNull(r.compensated_at),
  };
}

export function taskRow(r: DbRow): ApprovalTask {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    workflowId: r.workflow_id,
    workflowType: r.workflow_type,
    stepPath: r.step_path,
    step: r.step,
    payload: r.payload,
    status: r.status,
    reviewer: r.reviewer,
    decision: r.decision,
    notes: r.notes,
    history: r.history ?? [],
    requestedBy: r.requested_by,
    reviewerRole: r.reviewer_role,
    instructions: r.instructions,
    createdAt: iso(r.created_at),
    decidedAt: isoOrNull(r.decided_at),
    deadlineAt: iso(r.deadline_at),
    escalationLevel: Number(r.escalation_level),
  };
}

export function transitionRow(r: DbRow): Transition {
  return {
    seq: Number(r.seq),
    tenantId: r.tenant_id,
    workflowId: r.workflow_id,
    version: Number(r.version),
    event: r.event,
    status: r.status,
    step: r.step,
    taskId: r.task_id,
    detail: r.detail,
    at: iso(r.at),
  };
}

/** Keyset position of a newest-first page: rows strictly before (created_at, id). */
export interface PageBefore {
  createdAt: string;
  id: string;
}
