// Anthropic's Messages API through its maintained SDK (@anthropic-ai/sdk). The SDK's own retries
// are off: the broker decides about retries and failover, with cooldowns across requests.
import Anthropic from '@anthropic-ai/sdk';
import { ClientCache, type CredentialSource, type Credentials } from './provider-credentials';
import { providerErrorOf } from './provider-errors';
import { ProviderError, type ChatRequest, type ChatResult, type ProviderAdapter, type StreamEvent } from './provider';

export class AnthropicProvider implements ProviderAdapter {
  readonly name = 'anthropic' as const;
  private readonly clients = new ClientCache(
    (c: Credentials) => new Anthropic({ apiKey: c.apiKey, authToken: null, baseURL: c.baseUrl ?? null, maxRetries: 0 }),
  );

  constructor(private readonly credentials: CredentialSource) {}

  configured(): boolean {
    return this.credentials.current().apiKey !== undefined;
  }

  private client(): Anthropic {
    const c = this.credentials.current();
    if (!c.apiKey) throw new ProviderError('unconfigured', this.name);
    return this.clients.get(c);
  }

  private params(request: ChatRequest) {
    return {
      model: request.model,
      max_tokens: request.maxTokens,
      ...(request.system ? { system: request.system } : {}),
      messages: request.messages,
    };
  }

  async complete(request: ChatRequest): Promise<ChatResult> {
    try {
      const message = await this.client().messages.create(this.params(request), { signal: request.signal });
      const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      return { text, promptTokens: message.usage.input_tokens, completionTokens: message.usage.output_tokens };
    } catch (err) {
      throw providerErrorOf(this.name, err, request.signal);
    }
  }

  async *stream(request: ChatRequest): AsyncIterable<StreamEvent> {
    let promptTokens = 0;
    let completionTokens = 0;
    try {
      const events = await this.client().messages.create(
        { ...this.params(request), stream: true },
        { signal: request.signal },
      );
      for await (const event of events) {
        if (event.type === 'message_start') promptTokens = event.message.usage.input_tokens;
        else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
          yield { type: 'text', text: event.delta.text };
        else if (event.type === 'message_delta') completionTokens = event.usage.output_tokens;
      }
    } catch (err) {
      throw providerErrorOf(this.name, err, request.signal);
    }
    yield { type: 'usage', promptTokens, completionTokens };
  }

  async probe(signal: AbortSignal): Promise<void> {
    try {
      await this.client().models.list({ limit: 1 }, { signal });
    } catch (err) {
      throw providerErrorOf(this.name, err, signal);
    }
  }
}
