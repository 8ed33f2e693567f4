// OpenAI's Chat Completions API, also used for OpenAI-compatible local servers (Ollama's and
// vLLM's /v1 endpoints): the same wire format, another base URL, and a key only when the server
// wants one. One answer is a plain JSON POST over kept-alive connections (vendor-http.ts: the
// SDK's fetch cost more CPU than the rest of the call); streams and the model-list probe use the
// maintained SDK (openai), with its own retries off. No retries on either path: the broker
// decides about failover.
import OpenAI from 'openai';
import { ClientCache, type CredentialSource, type Credentials } from './provider-credentials';
import { providerErrorOf } from './provider-errors';
import { ProviderError, type ChatRequest, type ChatResult, type ProviderAdapter, type StreamEvent } from './provider';
import { VendorConnection } from './vendor-http';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

interface Completion {
  choices?: { message?: { content?: string | null } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

export class OpenAiProvider implements ProviderAdapter {
  private readonly clients = new ClientCache(
    (c: Credentials) =>
      new OpenAI({
        apiKey: c.apiKey ?? 'not-needed',
        baseURL: c.baseUrl ?? null,
        maxRetries: 0,
        organization: null,
        project: null,
      }),
  );

  /** Rebuilt only when the base URL changes; the key goes with each request, so it rotates freely. */
  private connection?: { baseUrl: string; pool: VendorConnection };

  constructor(
    readonly name: 'openai' | 'local',
    private readonly credentials: CredentialSource,
  ) {}

  /** OpenAI needs a key; a local server needs its base URL (and a key only if it asks for one). */
  configured(): boolean {
    const c = this.credentials.current();
    return this.name === 'local' ? c.baseUrl !== undefined : c.apiKey !== undefined;
  }

  private client(): OpenAI {
    if (!this.configured()) throw new ProviderError('unconfigured', this.name);
    return this.clients.get(this.credentials.current());
  }

  private messages(request: ChatRequest): OpenAI.Chat.ChatCompletionMessageParam[] {
    return [...(request.system ? [{ role: 'system' as const, content: request.system }] : []), ...request.messages];
  }

  private pool(baseUrl: string): VendorConnection {
    if (this.connection?.baseUrl !== baseUrl) this.connection = { baseUrl, pool: new VendorConnection(baseUrl) };
    return this.connection.pool;
  }

  async complete(request: ChatRequest): Promise<ChatResult> {
    try {
      if (!this.configured()) throw new ProviderError('unconfigured', this.name);
      const c = this.credentials.current();
      const completion = (await this.pool(c.baseUrl ?? OPENAI_BASE_URL).post(
        'chat/completions',
        c.apiKey ? { authorization: `Bearer ${c.apiKey}` } : {},
        { model: request.model, max_tokens: request.maxTokens, messages: this.messages(request) },
        request.signal,
      )) as Completion;
      return {
        text: completion.choices?.[0]?.message?.content ?? '',
        promptTokens: completion.usage?.prompt_tokens ?? 0,
        completionTokens: completion.usage?.completion_tokens ?? 0,
      };
    } catch (err) {
      throw providerErrorOf(this.name, err, request.signal);
    }
  }

  async *stream(request: ChatRequest): AsyncIterable<StreamEvent> {
    let usage = { promptTokens: 0, completionTokens: 0 };
    try {
      const chunks = await this.client().chat.completions.create(
        {
          model: request.model,
          max_tokens: request.maxTokens,
          messages: this.messages(request),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal: request.signal },
      );
      for await (const chunk of chunks) {
        const text = chunk.choices[0]?.delta?.content;
        if (text) yield { type: 'text', text };
        if (chunk.usage)
          usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
      }
    } catch (err) {
      throw providerErrorOf(this.name, err, request.signal);
    }
    yield { type: 'usage', ...usage };
  }

  async probe(signal: AbortSignal): Promise<void> {
    try {
      await this.client().models.list({ signal });
    } catch (err) {
      throw providerErrorOf(this.name, err, signal);
    }
  }
}
