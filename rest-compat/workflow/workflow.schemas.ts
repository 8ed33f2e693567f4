// Route schemas of the workflow service's REST door (TypeBox): one source for input validation
// (FastAPI's 422 body through the kernel's validator) and for the OpenAPI document.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const AnyObject = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ExecuteBody = Type.Object({
  workflow_pack_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'A workflow pack of the packs registry; an id the registry does not know runs the built-in pack of workflow_type (404 with WORKFLOW_REQUIRE_REGISTERED_PACKS=true)',
    }),
  ),
  workflow_pack_version: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The registry version to run; the newest certified one when absent',
    }),
  ),
  workflow_type: Type.String({ description: 'legal, financial, compliance, risk or operational' }),
  payload: AnyObject("The work item; checked against the pack's input_schema"),
  metadata: Type.Optional(AnyObject('Context of the run, stored with the execution')),
});
export type ExecuteBody = Static<typeof ExecuteBody>;

export const ExecuteResponse = Type.Object({
  status: Type.String({ description: 'pending_approval, running, completed, failed or rejected' }),
  workflow_id: Type.String(),
  approval_task_id: Nullable(Type.String()),
  requires_human_approval: Type.Boolean(),
  correlation_id: Type.String(),
  message: Type.String(),
  pack_id: Type.String(),
  pack_version: Nullable(Type.String()),
  pack_source: Type.Union([Type.Literal('registry'), Type.Literal('builtin')]),
});

export const WorkflowParams = Type.Object({ workflow_id: Type.String({ minLength: 1, maxLength: 100 }) });
export type WorkflowParams = Static<typeof WorkflowParams>;
export const TaskParams = Type.Object({ approval_task_id: Type.String({ minLength: 1, maxLength: 100 }) });
export type TaskParams = Static<typeof TaskParams>;

export const ApproveBody = Type.Object({
  decision: Type.String({ description: 'approve, reject or defer (also approved, rejected, deferred)' }),
  notes: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
});
export type ApproveBody = Static<typeof ApproveBody>;

export const ApproveHeaders = Type.Object({ 'x-user-id': Type.Optional(Type.String({ maxLength: 255 })) });
export type ApproveHeaders = Static<typeof ApproveHeaders>;

export const ApprovalTaskJson = Type.Object({
  approval_task_id: Type.String(),
  workflow_id: Type.String(),
  workflow_type: Type.String(),
  step: Type.String(),
  payload: AnyObject('A copy of the request payload'),
  created_at: Type.String(),
  status: Type.String({ description: 'pending, approved or rejected (a deferral keeps it pending)' }),
  reviewer: Nullable(Type.String()),
  decision: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  decided_at: Nullable(Type.String()),
  deadline_at: Type.String(),
  escalation_level: Type.Integer(),
  requested_by: Nullable(Type.String()),
  reviewer_role: Nullable(Type.String()),
  history: Type.Array(AnyObject('reviewer, decision, notes, at')),
});

export const ApproveResponse = Type.Object({
  approval_task_id: Type.String(),
  workflow_id: Type.String(),
  status: Type.String(),
  decision: Type.String(),
  reviewer: Type.String(),
  notes: Nullable(Type.String()),
  decided_at: Nullable(Type.String()),
  workflow_status: Type.String(),
  message: Type.String(),
});

export const StatusResponse = Type.Object({
  workflow_id: Type.String(),
  status: Type.String(),
  workflow_type: Type.String(),
  pack_id: Type.String(),
  pack_version: Nullable(Type.String()),
  pack_source: Type.String(),
  requires_human_approval: Type.Boolean(),
  correlation_id: Type.String(),
  requested_by: Nullable(Type.String()),
  version: Type.Integer({ description: 'Transitions so far (the resume cursor of workflowStatusChanged)' }),
  error: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  completed_at: Nullable(Type.String()),
  steps: Type.Array(
    AnyObject(
      'step, path, type, action, compensation, idempotency_key, status, attempts, started_at, finished_at, duration_ms, error, output, compensation_status, compensation_attempts, compensation_error, compensated_at',
    ),
  ),
  approval_tasks: Type.Array(ApprovalTaskJson),
  compensation: Nullable(AnyObject('reason, status, steps (in the order compensated), parked')),
});

export const ServiceInfo = Type.Object({
  service: Type.String(),
  version: Type.String(),
  description: Type.String(),
  endpoints: Type.Array(Type.String()),
});

export const WorkflowServiceStatus = AnyObject(
  'service, version, status, tenant_id, executions (by status), pending_approvals, workflow_types, actions',
);

export const Detail = Type.Object({ detail: Type.Unknown() });

export function responses(ok: TSchema): Record<number, TSchema> {
  return { 200: ok, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 422: Detail, 503: Detail };
}
