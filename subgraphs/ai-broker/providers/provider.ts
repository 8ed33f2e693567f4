// One interface for every language-model provider: the vendors' APIs (Anthropic Messages, OpenAI
// Chat Completions, OpenAI-compatible local servers) and the built-in offline extractive model.
// The broker routes, fails over and audits over this interface only.

export type ProviderName = 'anthropic' | 'openai' | 'local' | 'extractive';

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  /** The provider's own model id (`claude-3-5-sonnet-20241022`, `gpt-4-turbo`, `llama3:70b`). */
  model: string;
  system?: string;
  messages: ChatMessage[];
  maxTokens: number;
  /** Retrieved passages (already redacted): the extractive model answers from these alone. */
  context?: string[];
  /**
   * What the offline extractive model answers for a task it can do without a language model
   * (explaining a rule failure from its data, a workflow pack from a description); vendors ignore it.
   */
  offline?: () => string;
  signal: AbortSignal;
}

export interface ChatResult {
  text: string;
  promptTokens: number;
  completionTokens: number;
}

export type StreamEvent =
  { type: 'text'; text: string } | { type: 'usage'; promptTokens: number; completionTokens: number };

export interface ProviderAdapter {
  readonly name: ProviderName;
  /** Has what it needs to be called (a key, a base URL); re-evaluated on every call. */
  configured(): boolean;
  complete(request: ChatRequest): Promise<ChatResult>;
  stream(request: ChatRequest): AsyncIterable<StreamEvent>;
  /** A cheap call that proves the provider answers (lists models; spends no tokens). */
  probe(signal: AbortSignal): Promise<void>;
}

/** Why a provider call failed, in the terms routing acts on. Never carries prompt or answer text. */
export type ProviderFailure =
  | 'rate_limited'
  | 'overloaded'
  | 'timeout'
  | 'unavailable'
  | 'auth'
  | 'bad_request'
  | 'context_length'
  | 'unconfigured';

export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    readonly kind: ProviderFailure,
    readonly provider: ProviderName,
    readonly status?: number,
    /** From the vendor's Retry-After header, when it sent one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${provider}: ${kind}${status ? ` (HTTP ${status})` : ''}`);
  }
}

/** A rough token count (about four characters a token for English) where no tokenizer is at hand. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
