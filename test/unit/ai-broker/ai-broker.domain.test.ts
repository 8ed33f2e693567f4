// The AI broker's inference domain without a database or a vendor: AiBrokerService with its real
// PiiGuard, ModelExecutor, ModelHealth and TenantLimits, over recording strict fakes of the model
// provider (the adapter), the usage audit, the token vault store, retrieval, templates and the
// idempotent reply store. ai-broker.service.ts is not changed here: its constructor already takes
// every port. The provider fake records what would leave the platform, so the cases assert that
// no personal data is in it.
import type { Caller } from '../../../platform/auth/caller';
import { TenantAccess } from '../../../platform/auth/tenant-access';
import { InputError, RateLimitedError } from '../../../platform/errors/domain-errors';
import type { AiBrokerConfig } from '../../../subgraphs/ai-broker/ai-broker.config';
import { AiBrokerService } from '../../../subgraphs/ai-broker/ai-broker.service';
import type { InferenceResult } from '../../../subgraphs/ai-broker/ai-broker.types';
import type { IdempotentReplyStore } from '../../../subgraphs/ai-broker/idempotent-reply.store';
import { parseCatalogue, type TenantPolicy } from '../../../subgraphs/ai-broker/model-catalogue';
import { AllModelsFailedError, ModelExecutor } from '../../../subgraphs/ai-broker/model-executor';
import { ModelHealth } from '../../../subgraphs/ai-broker/model-health';
import { PiiGuard } from '../../../subgraphs/ai-broker/pii-guard';
import { TenantPolicies } from '../../../subgraphs/ai-broker/tenant-policies';
import type { PromptTemplateStore } from '../../../subgraphs/ai-broker/prompt-template.store';
import {
  ProviderError,
  type ChatRequest,
  type ProviderAdapter,
  type ProviderName,
} from '../../../subgraphs/ai-broker/providers/provider';
import type { RetrievalSource } from '../../../subgraphs/ai-broker/retrieval.source';
import { TenantLimits } from '../../../subgraphs/ai-broker/tenant-limits';
import { TokenVault, type TokenVaultStore } from '../../../subgraphs/ai-broker/token-vault.store';
import type { UsageAudit, UsageEvent } from '../../../subgraphs/ai-broker/ai-broker.audit';
import type { UsageStore } from '../../../subgraphs/ai-broker/usage.store';
import { Fakes, withArgs } from '../../support/recording-fake';

const TENANT = 'tenant-a';
const EMAIL = 'john.doe@example.com';
const SSN = '123-45-6789';
const caller: Caller = {
  auth: { username: 'alice', tenantId: TENANT, roles: ['user'], scopes: ['read', 'write'], isService: false },
  correlationId: 'corr-1',
};
const KEY = Buffer.alloc(32, 7);

const catalogue = parseCatalogue({
  models: [
    {
      id: 'gpt',
      provider: 'openai',
      cost_per_1k_tokens: 0.01,
      context_window: 100_000,
      tags: ['vendor'],
      expected_latency_ms: 500,
    },
  ],
});

interface Ports {
  complete?: (request: ChatRequest) => Promise<{ text: string; promptTokens: number; completionTokens: number }>;
  policy?: TenantPolicy;
  tokens?: Partial<TokenVaultStore>;
  retrieval?: Partial<RetrievalSource>;
  replies?: Partial<IdempotentReplyStore<InferenceResult>>;
}

function build(ports: Ports = {}) {
  const fakes = new Fakes();
  const off = (name: ProviderName) => fakes.make<ProviderAdapter>(name, { name, configured: () => false });
  const adapters: Record<ProviderName, ProviderAdapter> = {
    openai: fakes.make<ProviderAdapter>('openai', {
      name: 'openai',
      configured: () => true,
      ...(ports.complete ? { complete: ports.complete } : {}),
    }),
    anthropic: off('anthropic'),
    local: off('local'),
    extractive: off('extractive'),
  };
  const health = new ModelHealth(
    adapters,
    {
      probeIntervalMs: 30_000,
      probeTimeoutMs: 1_000,
      maxBackoffMs: 60_000,
      allowedFails: 3,
      cooldownMs: 30_000,
      latencyWindow: 10,
    },
    () => 1_000_000,
  );
  const tenants: Record<string, TenantPolicy> = ports.policy ? { [TENANT]: ports.policy } : {};
  const config: AiBrokerConfig = {
    requireAuth: true,
    redactionEnabled: true,
    redactionMode: 'mask',
    ragUrl: 'http://rag',
    schemaRegistryUrl: 'http://schemas',
    catalogue: { ...catalogue, tenants },
    routing: 'balanced',
    requestTimeoutMs: 5_000,
    health: {
      probeIntervalMs: 30_000,
      probeTimeoutMs: 1_000,
      maxBackoffMs: 60_000,
      allowedFails: 3,
      cooldownMs: 30_000,
      latencyWindow: 10,
    },
    defaultMaxTokens: 100,
    maxMaxTokens: 1_000,
    dailyTokenBudget: 0,
    requestsPerMinute: 100,
    vaultKey: KEY,
    ragTimeoutMs: 1_000,
    tenantConfig: { url: undefined, refreshMs: 0 },
  };
  const policies = new TenantPolicies(tenants);
  const audited: UsageEvent[] = [];
  const broker = new AiBrokerService({
    config,
    adapters,
    health,
    executor: new ModelExecutor(adapters, health, 5_000),
    guard: new PiiGuard({ enabled: true, mode: 'mask' }, new TokenVault(KEY), KEY, policies),
    policies,
    // A fixed clock: the rate bucket does not refill between calls of one case.
    limits: new TenantLimits(
      fakes.make<Pick<UsageStore, 'tokensSince'>>('usage', {}),
      { requestsPerMinute: 100, dailyTokenBudget: 0 },
      5_000,
      () => 1_000_000,
    ),
    templates: fakes.make<PromptTemplateStore>('templates', {}),
    tokens: fakes.make<TokenVaultStore>(
      'tokens',
      ports.tokens ?? { save: withArgs([TENANT, []], async () => undefined) },
    ),
    usage: fakes.make<Pick<UsageStore, 'summary'>>('usage', {}),
    audit: fakes.make<UsageAudit>('audit', {
      record: withArgs(
        [caller, TENANT, expect.any(Object)],
        async (_c: Caller, _t: string, e: UsageEvent) => void audited.push(e),
      ),
    }),
    retrieval: fakes.make<RetrievalSource>('retrieval', ports.retrieval ?? {}),
    access: new TenantAccess(async () => {
      throw new Error('no operator access expected');
    }),
    replies: fakes.make<IdempotentReplyStore<InferenceResult>>('replies', ports.replies ?? {}),
  });
  /** Everything the provider was sent (system prompt and messages). */
  const sent = () =>
    fakes
      .argsOf('openai', 'complete')
      .map(([r]) => JSON.stringify({ system: (r as ChatRequest).system, messages: (r as ChatRequest).messages }));
  return { fakes, broker, audited, sent };
}

const answer = (text: string) => async () => ({ text, promptTokens: 12, completionTokens: 8 });

describe('AiBrokerService.inference: redaction', () => {
  it('redacts personal data from the prompt before the provider sees it, and from the answer', async () => {
    const { fakes, broker, sent } = build({ complete: answer(`Write to ${EMAIL} today`) });
    const r = await broker.inference(caller, { prompt: `Email ${EMAIL} about SSN ${SSN}` });
    fakes.verify();
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).not.toContain(EMAIL);
    expect(sent()[0]).not.toContain(SSN);
    expect(r.response).not.toContain(EMAIL);
    expect(r.redactions.input).toMatchObject({ email: 1, ssn: 1 });
    expect(r.redactions.output).toMatchObject({ email: 1 });
  });

  it('in tokenize mode stores the minted tokens in the tenant before the prompt leaves', async () => {
    const { fakes, broker, sent } = build({
      policy: { redactionMode: 'tokenize' },
      complete: answer('ok'),
      tokens: {
        save: withArgs([TENANT, [expect.objectContaining({ category: 'email', value: EMAIL })]], async () => undefined),
      },
    });
    await broker.inference(caller, { prompt: `Email ${EMAIL}` });
    fakes.verify();
    expect(fakes.trail().filter((t) => t === 'tokens.save' || t === 'openai.complete')).toEqual([
      'tokens.save',
      'openai.complete',
    ]);
    expect(sent()[0]).toMatch(/\[email:tok_[0-9a-f]{20}\]/);
  });

  it("redacts retrieved context too, and asks retrieval in the caller's tenant", async () => {
    const { fakes, broker, sent } = build({
      complete: answer('ok'),
      retrieval: {
        retrieve: withArgs(
          [{ token: undefined, tenantId: TENANT, correlationId: 'corr-1' }, expect.any(String), { moduleId: 'm1' }],
          async () => ({
            available: true as const,
            chunks: [{ content: `Contact ${EMAIL}`, document_title: 'Policy', score: 0.9, heading: null }],
          }),
        ),
      },
    });
    const r = await broker.inference(caller, {
      prompt: 'Who do I contact?',
      useRag: true,
      context: { module_id: 'm1' },
    });
    fakes.verify();
    expect(sent()[0]).toContain('Policy');
    expect(sent()[0]).not.toContain(EMAIL);
    expect(r).toMatchObject({ ragChunksUsed: 1, sources: ['Policy'] });
  });
});

describe('AiBrokerService.inference: usage and limits', () => {
  it('records usage in the tenant with model, tokens, cost and redaction counts, never the text', async () => {
    const { fakes, broker, audited } = build({ complete: answer('fine') });
    await broker.inference(caller, { prompt: `Email ${EMAIL}` });
    fakes.verify();
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({
      operation: 'inference',
      status: 'ok',
      model: 'gpt',
      provider: 'openai',
      promptTokens: 12,
      completionTokens: 8,
      cost: 0.0002,
      redactions: { input: { email: 1 }, output: {} },
      redactionMode: 'mask',
    });
    expect(JSON.stringify(audited[0])).not.toContain(EMAIL);
  });

  it('records a failed call when every model fails, and answers 503 with the attempts', async () => {
    const { fakes, broker, audited } = build({
      complete: async () => {
        throw new ProviderError('overloaded', 'openai', 529);
      },
    });
    const err = await broker.inference(caller, { prompt: 'hello' }).catch((e: unknown) => e);
    fakes.verify();
    expect(err).toBeInstanceOf(AllModelsFailedError);
    expect(audited).toEqual([
      expect.objectContaining({
        status: 'failed',
        model: null,
        attempts: [expect.objectContaining({ model: 'gpt', outcome: 'overloaded' })],
      }),
    ]);
  });

  it("refuses a request over the tenant's rate before the provider is called", async () => {
    const { fakes, broker } = build({ policy: { requestsPerMinute: 1 }, complete: answer('ok') });
    await broker.inference(caller, { prompt: 'one' });
    await expect(broker.inference(caller, { prompt: 'two' })).rejects.toBeInstanceOf(RateLimitedError);
    fakes.verify();
    expect(fakes.argsOf('openai', 'complete')).toHaveLength(1);
  });

  it('checks the request before anything is spent: no provider, vault or audit call', async () => {
    const { fakes, broker } = build({});
    await expect(broker.inference(caller, { prompt: '   ', maxTokens: 0 })).rejects.toBeInstanceOf(InputError);
    fakes.verify();
    expect(fakes.calls).toEqual([]);
  });

  it('replays an answer given under the same Idempotency-Key without calling the provider', async () => {
    const first = { response: 'earlier', modelUsed: 'gpt' } as InferenceResult;
    const { fakes, broker } = build({
      replies: {
        claim: withArgs([TENANT, 'key-1', expect.stringMatching(/^[0-9a-f]{64}$/), expect.any(Number)], async () => ({
          state: 'done' as const,
          response: first,
        })),
      },
    });
    await expect(broker.inference(caller, { prompt: 'hello' }, { idempotencyKey: 'key-1' })).resolves.toMatchObject({
      response: 'earlier',
      replayed: true,
    });
    fakes.verify();
    expect(fakes.trail()).toEqual(['replies.claim']);
  });
});
