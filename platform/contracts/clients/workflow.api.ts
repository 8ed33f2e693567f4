// The workflow service's API as other services call it, in wire names: the request and response
// types of platform/clients/workflow.client.ts. Services that need a person's approval (a
// compliance report's sign-off, a config promotion) start a workflow pack with an approval step
// and learn its outcome from the workflow's transitions on the backbone (`approval.decided`,
// `workflow.completed`, `workflow.rejected`) or by reading its status. What the serving routes
// send and accept must stay assignable to these (test/unit/platform/contracts.test.ts).

export interface ExecuteWorkflowRequest {
  workflow_pack_id?: string;
  workflow_pack_version?: string;
  workflow_type: string;
  payload: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export interface ExecuteWorkflowResponse {
  status: string;
  workflow_id: string;
  approval_task_id: string | null;
  requires_human_approval: boolean;
  correlation_id: string;
  message: string;
  pack_id: string;
  pack_version: string | null;
  pack_source: 'registry' | 'builtin';
}

export interface ApprovalTaskView {
  approval_task_id: string;
  workflow_id: string;
  step: string;
  status: string;
  reviewer: string | null;
  decision: string | null;
  notes: string | null;
  decided_at: string | null;
  requested_by: string | null;
}

export interface WorkflowStatusView {
  workflow_id: string;
  status: string;
  workflow_type: string;
  pack_id: string;
  pack_version: string | null;
  requested_by: string | null;
  version: number;
  error: string | null;
  completed_at: string | null;
  approval_tasks: ApprovalTaskView[];
}

/** A reviewer's decision on an approval task (`X-User-ID` names the reviewer; with a token, its user). */
export interface DecideApprovalRequest {
  decision: 'approve' | 'reject' | 'defer';
  notes?: string | null;
}

export interface DecideApprovalResponse {
  approval_task_id: string;
  workflow_id: string;
  status: string;
  decision: string;
  reviewer: string;
  notes: string | null;
  decided_at: string | null;
  workflow_status: string;
  message: string;
}
