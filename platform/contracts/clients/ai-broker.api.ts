// The AI broker service's API as other services call it, in wire names: the request and
// response types of platform/clients/ai-broker.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

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
