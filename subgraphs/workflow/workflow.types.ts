// The workflow service's domain types: packs as the contract defines them
// (platform/contracts/workflow-pack.schema.json), executions, steps, approval tasks and
// transitions as the store keeps them. Nothing here knows HTTP or GraphQL.

export const WORKFLOW_TYPES = ['legal', 'financial', 'compliance', 'risk', 'operational'] as const;
export type WorkflowType = (typeof WORKFLOW_TYPES)[number];

export type StepType = 'validation' | 'ai' | 'action' | 'hil_approval' | 'decision' | 'parallel' | 'dataflow';

/** A rule-pack condition (decision steps' `when`). */
export interface Condition {
  field?: string;
  operator: string;
  value?: unknown;
  value_field?: string;
  min?: number;
  max?: number;
  flags?: string;
  conditions?: Condition[];
}

export interface PackStep {
  step: string;
  type: StepType;
  action?: string;
  compensation?: string;
  idempotency_key?: string;
  description?: string;
  timeout_seconds?: number;
  rule_pack_id?: string;
  rule_pack_version?: string;
  input_field?: string;
  strict_mode?: boolean;
  prompt?: string;
  model?: string;
  template_id?: string;
  template_version?: number;
  variables?: Record<string, string | number | boolean>;
  system?: string;
  max_tokens?: number;
  output_field?: string;
  parameters?: Record<string, unknown>;
  workflow_pack_id?: string;
  workflow_pack_version?: string;
  dataflow_pack_id?: string;
  dataflow_pack_version?: string;
  reviewer_role?: string;
  instructions?: string;
  branches?: { name?: string; when: Condition; steps: PackStep[] }[];
  otherwise?: PackStep[];
  steps?: PackStep[];
}

export interface WorkflowPack {
  metadata: { pack_id: string; version: string; workflow_type: WorkflowType; name: string; description?: string };
  requires_approval?: boolean;
  input_schema?: Record<string, unknown>;
  input_schema_ref?: { name: string; version: string };
  /** Event-driven start: the topic whose events (in the tenant's stream, matching `filter`) start it. */
  trigger?: { topic: string; filter?: Condition };
  steps: PackStep[];
}

/**
 * Execution statuses: `pending_approval` (waiting on a human), `running`, `compensating`
 * (undoing completed steps in reverse), and the final `completed`, `failed` (a step failed;
 * compensation recorded) and `rejected` (a reviewer rejected; compensation recorded).
 */
export type ExecutionStatus = 'pending_approval' | 'running' | 'compensating' | 'completed' | 'failed' | 'rejected';
export const FINAL_STATUSES: readonly ExecutionStatus[] = ['completed', 'failed', 'rejected'];

export type StepStatus = 'running' | 'retrying' | 'decided' | 'waiting' | 'completed' | 'failed' | 'skipped';
export type CompensationStatus = 'compensating' | 'compensated' | 'parked';

export type PackSource = 'registry' | 'builtin';

export interface Execution {
  id: string;
  tenantId: string;
  packId: string;
  packVersion: string | null;
  packSource: PackSource;
  workflowType: WorkflowType;
  status: ExecutionStatus;
  requiresApproval: boolean;
  pack: WorkflowPack;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** Step outputs kept for later steps (`output_field`). */
  context: Record<string, unknown>;
  requestedBy: string | null;
  correlationId: string;
  version: number;
  error: string | null;
  compensation: CompensationRecord | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export interface CompensationRecord {
  /** Why the saga compensated. */
  reason: 'failure' | 'rejection';
  status: 'compensating' | 'completed' | 'parked';
  /** The steps compensated, in the order their compensations ran (reverse completion order). */
  steps: string[];
  parked: string[];
}

export interface StepRecord {
  workflowId: string;
  path: string;
  step: string;
  type: StepType;
  action: string | null;
  compensation: string | null;
  idempotencyKey: string;
  status: StepStatus;
  attempts: number;
  output: unknown;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  completedSeq: number | null;
  compensationStatus: CompensationStatus | null;
  compensationAttempts: number;
  compensationError: string | null;
  compensatedAt: string | null;
}

export type TaskStatus = 'pending' | 'approved' | 'rejected';
export type Decision = 'approve' | 'reject' | 'defer';

export interface ApprovalTask {
  id: string;
  tenantId: string;
  workflowId: string;
  workflowType: WorkflowType;
  stepPath: string;
  step: string;
  payload: Record<string, unknown>;
  status: TaskStatus;
  reviewer: string | null;
  decision: Decision | null;
  notes: string | null;
  history: { reviewer: string; decision: Decision; notes: string | null; at: string }[];
  requestedBy: string | null;
  reviewerRole: string | null;
  instructions: string | null;
  createdAt: string;
  decidedAt: string | null;
  deadlineAt: string;
  escalationLevel: number;
}

/** One persisted transition (what subscriptions replay). */
export interface Transition {
  seq: number;
  tenantId: string;
  workflowId: string;
  version: number;
  event: string;
  status: ExecutionStatus;
  step: string | null;
  taskId: string | null;
  detail: Record<string, unknown> | null;
  at: string;
}
