// Typed client for the AI broker (8085), for the workflow service's ai steps and the retrieval
// service's answers. Wire contract: docs/ai-broker.md. A 503 (every model failed) is a
// ServiceCallError whose body is {detail: {message, attempts}}.
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';
import type {
  InferenceRequest,
  InferenceAttempt,
  InferenceResponse,
  ExplainResponse,
  GenerateWorkflowResponse,
  AiModelRecord,
} from '../contracts/clients/ai-broker.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type {
  InferenceRequest,
  InferenceAttempt,
  InferenceResponse,
  ExplainResponse,
  GenerateWorkflowResponse,
  AiModelRecord,
};

export class AiBrokerClient {
  private readonly endpoint: ServiceEndpoint;
  private readonly timeoutMs: number;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, options: { timeoutMs?: number; identity?: DelegatedIdentity } = {}) {
    this.endpoint = { baseUrl, identity: options.identity };
    this.timeoutMs = options.timeoutMs ?? 120_000;
  }

  /** `idempotencyKey` is sent as the `Idempotency-Key` header (a workflow step's key, so a retried step is recognisable). */
  inference(
    context: ServiceCallContext,
    request: InferenceRequest,
    options: { idempotencyKey?: string; timeoutMs?: number } = {},
  ): Promise<InferenceResponse> {
    return serviceRequest(this.endpoint, 'api/ai/inference', context, {
      method: 'POST',
      body: request,
      timeoutMs: options.timeoutMs ?? this.timeoutMs,
      headers: options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : undefined,
    });
  }

  explain(
    context: ServiceCallContext,
    request: { rule_id: string; failure_data: Record<string, unknown>; include_remediation?: boolean },
  ): Promise<ExplainResponse> {
    return serviceRequest(this.endpoint, 'api/ai/explain', context, {
      method: 'POST',
      body: request,
      timeoutMs: this.timeoutMs,
    });
  }

  generateWorkflow(
    context: ServiceCallContext,
    request: { description: string; domain?: string },
  ): Promise<GenerateWorkflowResponse> {
    return serviceRequest(this.endpoint, 'api/ai/generate-workflow', context, {
      method: 'POST',
      body: request,
      timeoutMs: this.timeoutMs,
    });
  }

  models(context: ServiceCallContext): Promise<{ models: AiModelRecord[] }> {
    return serviceRequest(this.endpoint, 'api/ai/models', context);
  }
}
