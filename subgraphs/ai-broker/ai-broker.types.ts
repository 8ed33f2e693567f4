// The broker's domain shapes, shared by both doors (REST snake_cases them, GraphQL keeps them).
import type { Attempt } from './model-router';

export interface TemplateVariable {
  name: string;
  description?: string;
  required: boolean;
  default?: string;
}

export interface PromptTemplate {
  templateId: string;
  version: number;
  name: string;
  description: string | null;
  template: string;
  variables: TemplateVariable[];
  createdAt: string;
  createdBy: string | null;
  /** Every version of this template id, oldest first. */
  versions: number[];
}

export interface InferenceInput {
  prompt?: unknown;
  model?: unknown;
  useRag?: unknown;
  context?: unknown;
  maxTokens?: unknown;
  templateId?: unknown;
  templateVersion?: unknown;
  variables?: unknown;
  system?: unknown;
  /** Replace this request's own tokens in the answer by their values (needs the pii:detokenize scope). */
  detokenize?: unknown;
}

export type RedactionCounts = Record<string, number>;

export interface InferenceResult {
  response: string;
  modelUsed: string;
  provider: string;
  tokensUsed: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  latencyMs: number;
  ragChunksUsed: number;
  sources: string[];
  /** True when use_rag was asked and the retrieval service could not be reached. */
  ragUnavailable: boolean;
  correlationId: string;
  attempts: Attempt[];
  redactions: { input: RedactionCounts; output: RedactionCounts };
  template: { templateId: string; version: number } | null;
  /** True when this is the stored answer of an earlier request with the same Idempotency-Key. */
  replayed?: boolean;
}

export interface Forwarding {
  token?: string;
  /** The request's Idempotency-Key header (POST /api/ai/inference). */
  idempotencyKey?: string;
}
