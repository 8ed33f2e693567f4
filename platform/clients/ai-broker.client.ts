// Typed client for the AI broker (8085), for the workflow service's ai steps and the retrieval
// service's answers. Wire contract: docs/ai-broker.md. A 503 (every model failed) is a
// ServiceCallError whose body is {detail: {message, attempts}}.
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';

export interface InferenceRequest {
  prompt?: string;
  model?: string;
  use_rag?: boolean;
  context?: { suite_id?: string; module_id?: string; entity_id?: string };
  max_tokens?: number;
  template_id?: string;
  template_version?: number;
  variables?: Record<string, string | number | boolean>;
  system?: string;
}

export interface InferenceAttempt {
  model: string;
  provider: string;
  outcome: string;
  reason?: string;
  latency_ms?: number;
}

export interface InferenceResponse {
  response: string;
  model_used: string;
  tokens_used: number;
  rag_chunks_used: number;
  sources: string[];
  correlation_id: string;
  provider: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  latency_ms: number;
  rag_unavailable: boolean;
  attempts: InferenceAttempt[];
  redactions: { input: Record<string, number>; output: Record<string, number> };
  template: { template_id: string; version: number } | null;
}

export interface ExplainResponse {
  rule_id: string;
  explanation: string;
  remediation: string | null;
  model_used: string;
  tokens_used: number;
  correlation_id: string;
  attempts: InferenceAttempt[];
}

export interface GenerateWorkflowResponse {
  workflow_pack: Record<string, unknown>;
  confidence: number;
  model_used: string;
  schema_source: string;
  correlation_id: string;
  attempts: InferenceAttempt[];
}

export interface AiModelRecord {
  id: string;
  provider: string;
  status: 'available' | 'unconfigured' | 'checking' | 'unavailable' | 'cooling_down';
  cost_per_1k_tokens: number;
  context_window: number;
  tags: string[];
  description: string;
}

export class AiBrokerClient {
  private readonly endpoint: ServiceEndpoint;
  private readonly timeoutMs: number;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, options: { timeoutMs?: number; identity?: DelegatedIdentity } = {}) {
    this.endpoint = { baseUrl, identity: options.identity };
    this.timeoutMs = options.timeoutMs ?? 120_000;
  }

  /** `idempotencyKey` is sent as the `Idempotency-Key` header (a workflow step's key, so a retried step is recognisable). */
  inference(context: ServiceCallContext, request: InferenceRequest, options: { idempotencyKey?: string; timeoutMs?: number } = {}): Promise<InferenceResponse> {
    return serviceRequest(this.endpoint, 'api/ai/inference', context, {
      method: 'POST', body: request, timeoutMs: options.timeoutMs ?? this.timeoutMs, headers: options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : undefined,
    });
  }

  explain(context: ServiceCallContext, request: { rule_id: string; failure_data: Record<string, unknown>; include_remediation?: boolean }): Promise<ExplainResponse> {
    return serviceRequest(this.endpoint, 'api/ai/explain', context, { method: 'POST', body: request, timeoutMs: this.timeoutMs });
  }

  generateWorkflow(context: ServiceCallContext, request: { description: string; domain?: string }): Promise<GenerateWorkflowResponse> {
    return serviceRequest(this.endpoint, 'api/ai/generate-workflow', context, { method: 'POST', body: request, timeoutMs: this.timeoutMs });
  }

  models(context: ServiceCallContext): Promise<{ models: AiModelRecord[] }> {
    return serviceRequest(this.endpoint, 'api/ai/models', context);
  }
}
