// Typed client for the workflow service (8085), for services whose changes need a second
// person's approval through a workflow human task (docs/workflow.md is the wire contract): start
// a pack with the requester's own credentials (so the workflow's four-eyes rule knows who asked),
// then read the execution's status. The outcome also arrives on the backbone as transitions.
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';
import type {
  ApprovalTaskView,
  DecideApprovalRequest,
  DecideApprovalResponse,
  ExecuteWorkflowRequest,
  ExecuteWorkflowResponse,
  WorkflowStatusView,
} from '../contracts/clients/workflow.api';
export type {
  ApprovalTaskView,
  DecideApprovalRequest,
  DecideApprovalResponse,
  ExecuteWorkflowRequest,
  ExecuteWorkflowResponse,
  WorkflowStatusView,
};

export class WorkflowClient {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, identity?: DelegatedIdentity) {
    this.endpoint = { baseUrl, identity };
  }

  /** Starts a workflow pack; 404 unknown registry pack, 409 not runnable, 422 payload refused by its input schema, 503 registry down. */
  execute(
    context: ServiceCallContext,
    request: ExecuteWorkflowRequest,
    options: { timeoutMs?: number } = {},
  ): Promise<ExecuteWorkflowResponse> {
    return serviceRequest(this.endpoint, 'execute', context, {
      method: 'POST',
      body: request,
      timeoutMs: options.timeoutMs ?? 30_000,
    });
  }

  /** An execution's status with its approval tasks; 404 unknown or another tenant's. */
  status(context: ServiceCallContext, workflowId: string): Promise<WorkflowStatusView> {
    return serviceRequest(this.endpoint, `status/${encodeURIComponent(workflowId)}`, context, {
      method: 'GET',
      timeoutMs: 10_000,
    });
  }

  /**
   * A reviewer's decision on an approval task, with the reviewer's own token (`reviewer` must be
   * its user); 403 the requester of the work or a missing role, 404 unknown, 409 already decided.
   */
  decide(
    context: ServiceCallContext,
    approvalTaskId: string,
    reviewer: string,
    request: DecideApprovalRequest,
  ): Promise<DecideApprovalResponse> {
    return serviceRequest(this.endpoint, `approve/${encodeURIComponent(approvalTaskId)}`, context, {
      method: 'POST',
      body: request,
      headers: { 'x-user-id': reviewer },
      timeoutMs: 30_000,
    });
  }
}
