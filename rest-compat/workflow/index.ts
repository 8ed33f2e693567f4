// The workflow service's documented REST routes (spec 03, port 8130) as thin adapters over
// subgraphs/workflow's service: each handler builds the Caller, calls one service function and
// shapes the JSON (snake_case, the spec's names). Authentication is the kernel's hook on the
// whole prefix; health routes come from the kernel too.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import { callerOf } from '../../platform/http/caller';
import type { TriggerService } from '../../subgraphs/workflow/trigger.service';
import type { ExecutionView, WorkflowService } from '../../subgraphs/workflow/workflow.service';
import { registerTriggerRoutes } from './triggers.routes';
import type { ApprovalTask, StepRecord } from '../../subgraphs/workflow/workflow.types';
import {
  ApproveBody,
  ApproveHeaders,
  ApproveResponse,
  ExecuteBody,
  ExecuteResponse,
  responses,
  ServiceInfo,
  StatusResponse,
  TaskParams,
  WorkflowParams,
  WorkflowServiceStatus,
} from './workflow.schemas';

export function taskJson(t: ApprovalTask) {
  return {
    approval_task_id: t.id,
    workflow_id: t.workflowId,
    workflow_type: t.workflowType,
    step: t.step,
    payload: t.payload,
    created_at: t.createdAt,
    status: t.status,
    reviewer: t.reviewer,
    decision: t.decision,
    notes: t.notes,
    decided_at: t.decidedAt,
    deadline_at: t.deadlineAt,
    escalation_level: t.escalationLevel,
    requested_by: t.requestedBy,
    reviewer_role: t.reviewerRole,
    history: t.history,
  };
}

export function stepJson(s: StepRecord) {
  return {
    step: s.step,
    path: s.path,
    type: s.type,
    action: s.action,
    compensation: s.compensation,
    idempotency_key: s.idempotencyKey,
    status: s.status,
    attempts: s.attempts,
    started_at: s.startedAt,
    finished_at: s.finishedAt,
    duration_ms: s.startedAt && s.finishedAt ? Date.parse(s.finishedAt) - Date.parse(s.startedAt) : null,
    error: s.error,
    output: s.output,
    compensation_status: s.compensationStatus,
    compensation_attempts: s.compensationAttempts,
    compensation_error: s.compensationError,
    compensated_at: s.compensatedAt,
  };
}

export function statusJson(v: ExecutionView) {
  const e = v.execution;
  return {
    workflow_id: e.id,
    status: e.status,
    workflow_type: e.workflowType,
    pack_id: e.packId,
    pack_version: e.packVersion,
    pack_source: e.packSource,
    requires_human_approval: e.requiresApproval,
    correlation_id: e.correlationId,
    requested_by: e.requestedBy,
    version: e.version,
    error: e.error,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    completed_at: e.completedAt,
    steps: v.steps.map(stepJson),
    approval_tasks: v.tasks.map(taskJson),
    compensation: e.compensation,
  };
}

const forwarding = (request: FastifyRequest) => ({ token: bearerToken(request.headers.authorization) });

export function registerWorkflowRoutes(
  routes: FastifyInstance,
  service: WorkflowService,
  options: { version: string },
  triggers?: TriggerService,
): void {
  routes.get(
    '/',
    {
      config: { auth: 'public' },
      schema: { tags: ['workflow'], summary: 'Service metadata', response: { 200: ServiceInfo } },
    },
    async () => ({
      service: 'workflow',
      version: options.version,
      description:
        'Runs workflow packs as durable sagas: validation and action steps, decisions, parallel groups, human approval, compensation in reverse',
      endpoints: [
        'POST /execute',
        'GET /status/{workflow_id}',
        'POST /approve/{approval_task_id}',
        'GET /workflow-status',
        'POST /triggers',
        'GET /triggers',
        'GET /triggers/{trigger_id}',
        'DELETE /triggers/{trigger_id}',
        'GET /healthz',
        'GET /readyz',
        'GET /livez',
        'POST /graphql',
      ],
    }),
  );

  routes.post<{ Body: ExecuteBody }>(
    '/execute',
    {
      schema: {
        tags: ['workflow'],
        summary:
          'Start a workflow pack; answers when it completes, fails, waits for a human (pending_approval) or after WORKFLOW_SYNC_WAIT_MS (running)',
        description:
          '404 for a registry pack id with WORKFLOW_REQUIRE_REGISTERED_PACKS=true (otherwise an unknown id runs the built-in pack of workflow_type); ' +
          "409 for a deprecated or uncertified pack version; 422 for a missing workflow_type or payload and for a payload failing the pack's input_schema; 503 when the packs registry is down.",
        body: ExecuteBody,
        response: responses(ExecuteResponse),
      },
    },
    async (request) => {
      const b = request.body;
      const r = await service.execute(
        callerOf(request),
        {
          workflowPackId: b.workflow_pack_id,
          workflowPackVersion: b.workflow_pack_version,
          workflowType: b.workflow_type,
          payload: b.payload,
          metadata: b.metadata,
        },
        forwarding(request),
      );
      return {
        status: r.status,
        workflow_id: r.workflowId,
        approval_task_id: r.approvalTaskId,
        requires_human_approval: r.requiresHumanApproval,
        correlation_id: r.correlationId,
        message: r.message,
        pack_id: r.packId,
        pack_version: r.packVersion,
        pack_source: r.packSource,
      };
    },
  );

  routes.get<{ Params: WorkflowParams }>(
    '/status/:workflow_id',
    {
      config: { inputLocation: 'path' },
      schema: {
        tags: ['workflow'],
        summary: 'An execution: status, steps with outcomes and timings, approval tasks, compensation',
        params: WorkflowParams,
        response: responses(StatusResponse),
      },
    },
    async (request) => statusJson(await service.status(callerOf(request), request.params.workflow_id)),
  );

  routes.post<{ Params: TaskParams; Body: ApproveBody; Headers: ApproveHeaders }>(
    '/approve/:approval_task_id',
    {
      schema: {
        tags: ['workflow'],
        summary:
          'Decide an approval task (X-User-ID names the reviewer): approve resumes the saga, reject compensates it, defer keeps it pending',
        description:
          "404 unknown (or another tenant's) task; 409 already decided; 403 the reviewer requested the work, or X-User-ID is not the token's user; 422 missing X-User-ID or a decision outside the allowed words.",
        params: TaskParams,
        body: ApproveBody,
        headers: ApproveHeaders,
        response: responses(ApproveResponse),
      },
    },
    async (request) => {
      const r = await service.decide(callerOf(request), request.params.approval_task_id, {
        decision: request.body.decision,
        notes: request.body.notes as string | null | undefined,
        reviewer: request.headers['x-user-id'],
      });
      return {
        approval_task_id: r.task.id,
        workflow_id: r.task.workflowId,
        status: r.task.status,
        decision: r.task.decision!,
        reviewer: r.task.reviewer!,
        notes: r.task.notes,
        decided_at: r.task.decidedAt,
        workflow_status: r.workflowStatus,
        message: r.message,
      };
    },
  );

  routes.get(
    '/workflow-status',
    {
      schema: {
        tags: ['workflow'],
        summary:
          "The workflow service's status: the tenant's executions by status, pending approvals, workflow types, actions",
        response: responses(WorkflowServiceStatus),
      },
    },
    async (request) => service.serviceStatus(callerOf(request)),
  );

  if (triggers) registerTriggerRoutes(routes, triggers);
}
