// The AI broker's domain operations (spec 02, port 8085). Both doors (rest-compat/ai-broker and
// resolvers.ts) are thin adapters over these methods. Each begins with the caller's checks and
// its tenant, validates the request (422s before anything is spent), then follows spec 02's
// order: redact the input, select the model, build the prompt, fetch retrieval context, execute
// (with failover), redact the output, log usage to the ledger, answer.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import canonicalize from 'canonicalize';
import { assertScope } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { ServiceCallContext } from '../../platform/clients/service-request';
import { ConflictError, ForbiddenError, InputError, NotFoundError, UnavailableError, type InputIssue } from '../../platform/errors/domain-errors';
import { redactText } from '../../platform/redaction';
import type { Forwarding, InferenceInput, InferenceResult, PromptTemplate, RedactionCounts } from './ai-broker.types';
import type { AiBrokerConfig } from './ai-broker.config';
import type { IdempotentReplyStore } from './idempotent-reply.store';
import type { ModelHealth, ModelHealthView } from './model-health';
import type { ModelEntry, TenantPolicy } from './model-catalogue';
import { AllModelsFailedError, type ModelExecutor, type ModelRequest } from './model-executor';
import { planRoute, type Attempt } from './model-router';
import type { PiiGuard, RedactionSession } from './pii-guard';
import { checkTemplate, renderTemplate, TEMPLATE_ID, type TemplateInput } from './prompt-template.rules';
import type { PromptTemplateStore } from './prompt-template.store';
import { estimateTokens, type ProviderAdapter, type ProviderName, type StreamEvent } from './providers/provider';
import type { Retrieval, RetrievalScope, RetrievalSource, RetrievedChunk } from './retrieval.source';
import { StreamRedactor } from './stream-redactor';
import type { TenantLimits } from './tenant-limits';
import { TOKEN_PATTERN, type TokenVaultStore } from './token-vault.store';
import type { UsageAudit, UsageEvent } from './ai-broker.audit';
import type { UsageStore, UsageSummary } from './usage.store';

/** The dedicated scope that may turn tokens back into values (never implied by `admin`). */
export const DETOKENIZE_SCOPE = 'pii:detokenize';
export const MAX_PROMPT_LENGTH = 400_000;
const TENANT_FIELD = ['header', 'x-tenant-id'];
export const RAG_UNAVAILABLE_NOTE = 'The platform\'s knowledge base could not be searched for this question. Answer without it, and begin by saying that the answer is not based on the platform\'s documents.';
const SYSTEM_PROMPT = 'You are the platform\'s assistant. Values shown as [category:...] or masked with * are redacted personal data: never guess them and never ask for them.';

export interface ModelView {
  id: string;
  provider: ProviderName;
  status: ModelHealthView['status'];
  cost_per_1k_tokens: number;
  context_window: number;
  tags: string[];
  description: string;
}

export interface ModelStatusView extends ModelView {
  latency_ms: number | null;
  cooldown_seconds: number;
  last_error: string | null;
  last_checked_at: string | null;
}

export interface ModelTestResult {
  model_id: string;
  available: boolean;
  status: ModelHealthView['status'];
  latency_ms: number | null;
  error: string | null;
  tested_at: string;
}

export interface AiBrokerDeps {
  config: AiBrokerConfig;
  adapters: Record<ProviderName, ProviderAdapter>;
  health: ModelHealth;
  executor: ModelExecutor;
  guard: PiiGuard;
  limits: TenantLimits;
  templates: PromptTemplateStore;
  tokens: TokenVaultStore;
  usage: Pick<UsageStore, 'summary'>;
  audit: UsageAudit;
  retrieval: RetrievalSource;
  access: TenantAccess;
  replies: IdempotentReplyStore<InferenceResult>;
}

/** How long an answer given under an Idempotency-Key is replayed. */
const REPLAY_MS = 24 * 3600_000;

interface Prepared {
  tenantId: string;
  policy: TenantPolicy;
  input: RedactionSession;
  output: RedactionSession;
  prompt: string;
  model: ModelEntry | undefined;
  maxTokens: number;
  useRag: boolean;
  scope: RetrievalScope;
  template: { templateId: string; version: number } | null;
  system: string;
  detokenize: boolean;
}

interface Grounding {
  chunks: RetrievedChunk[];
  ragUnavailable: boolean;
}

/** A caller's id echoed in an error message: shortened and redacted (an id can be PII too). */
const echo = (id: string) => redactText(id.slice(0, 100)).text;
const cost = (model: ModelEntry, tokens: number) => Math.round((model.costPer1kTokens * tokens / 1000) * 1e6) / 1e6;
const optionalString = (issues: InputIssue[], field: string, v: unknown, max: number): string | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) {
    issues.push({ loc: [field], msg: `Input should be a string of 1-${max} characters`, type: 'string_type' });
    return undefined;
  }
  return v;
};

export class AiBrokerService {
  private readonly byId: Map<string, ModelEntry>;

  constructor(private readonly deps: AiBrokerDeps) {
    this.byId = new Map(deps.config.catalogue.models.map((m) => [m.id, m]));
  }

  // --- who, and in which tenant -------------------------------------------------------------

  private async tenantOf(caller: Caller, scope: 'read' | 'write', action: string): Promise<string> {
    if (this.deps.config.requireAuth) requireAuth(caller);
    if (caller.auth) assertScope(caller.auth, scope);
    return this.deps.access.resolve(caller, undefined, TENANT_FIELD, action);
  }

  private policyOf(tenantId: string): TenantPolicy {
    return this.deps.config.catalogue.tenants[tenantId] ?? {};
  }

  private context(caller: Caller, tenantId: string, forward: Forwarding): ServiceCallContext {
    return { token: forward.token, tenantId, correlationId: caller.correlationId };
  }

  // --- models ---------------------------------------------------------------------------------

  private modelView(m: ModelEntry): ModelView {
    return { id: m.id, provider: m.provider, status: this.deps.health.view(m).status, cost_per_1k_tokens: m.costPer1kTokens, context_window: m.contextWindow, tags: m.tags, description: m.description };
  }

  private model(id: string): ModelEntry {
    const m = this.byId.get(id);
    if (!m) throw new NotFoundError(`Model '${echo(id)}' not found`);
    return m;
  }

  async models(caller: Caller): Promise<{ models: ModelView[] }> {
    await this.tenantOf(caller, 'read', 'ai.models.list');
    return { models: this.deps.config.catalogue.models.map((m) => this.modelView(m)) };
  }

  async modelStatus(caller: Caller, id: string): Promise<ModelStatusView> {
    await this.tenantOf(caller, 'read', 'ai.models.status');
    const m = this.model(id);
    const h = this.deps.health.view(m);
    return { ...this.modelView(m), latency_ms: h.latencyMs, cooldown_seconds: h.cooldownSeconds, last_error: h.lastError, last_checked_at: h.lastCheckedAt };
  }

  /** A real one-token call to the model (and a probe of its provider): is it answering now? */
  async testModel(caller: Caller, id: string): Promise<ModelTestResult> {
    const tenantId = await this.tenantOf(caller, 'write', 'ai.models.test');
    const m = this.model(id);
    const adapter = this.deps.adapters[m.provider];
    const testedAt = new Date().toISOString();
    if (!adapter.configured()) return { model_id: m.id, available: false, status: 'unconfigured', latency_ms: null, error: 'unconfigured', tested_at: testedAt };
    const started = performance.now();
    let error: string | null = null;
    let tokens = { prompt: 0, completion: 0 };
    try {
      const r = await this.deps.executor.complete({ candidates: [m], skipped: [] }, { messages: [{ role: 'user', content: 'Reply with OK.' }], maxTokens: 1 });
      tokens = { prompt: r.result.promptTokens, completion: r.result.completionTokens };
    } catch (err) {
      if (!(err instanceof AllModelsFailedError)) throw err;
      error = err.attempts.at(-1)?.outcome ?? 'unavailable';
    }
    const latency = performance.now() - started;
    await this.deps.audit.record(caller, tenantId, this.usageEvent('model-test', error ? 'failed' : 'ok', error ? null : m, tokens.prompt, tokens.completion, latency, [], { input: {}, output: {} }, 'off'));
    return { model_id: m.id, available: error === null, status: this.deps.health.view(m).status, latency_ms: error ? null : Math.round(latency * 100) / 100, error, tested_at: testedAt };
  }

  // --- inference ------------------------------------------------------------------------------

  private async prepare(caller: Caller, input: InferenceInput, action: string, resolvedTenant?: string): Promise<Prepared> {
    const tenantId = resolvedTenant ?? (await this.tenantOf(caller, 'write', action));
    const issues: InputIssue[] = [];
    const hasTemplate = input.templateId !== undefined && input.templateId !== null;
    let prompt: string | undefined;
    if (input.prompt === undefined || input.prompt === null) {
      if (!hasTemplate) issues.push({ loc: ['prompt'], msg: 'Field required', type: 'missing' });
    } else if (typeof input.prompt !== 'string' || input.prompt.trim().length === 0) issues.push({ loc: ['prompt'], msg: 'A prompt should be non-empty text', type: 'string_type' });
    else if (input.prompt.length > MAX_PROMPT_LENGTH) issues.push({ loc: ['prompt'], msg: `String should have at most ${MAX_PROMPT_LENGTH} characters`, type: 'string_too_long' });
    else prompt = input.prompt;
    const modelId = optionalString(issues, 'model', input.model, 100) ?? this.deps.config.defaultModel;
    const system = optionalString(issues, 'system', input.system, 20_000);
    if (hasTemplate && (typeof input.templateId !== 'string' || !TEMPLATE_ID.test(input.templateId))) issues.push({ loc: ['templateId'], msg: `String should match pattern '${TEMPLATE_ID.source}'`, type: 'string_pattern_mismatch' });
    if (input.templateVersion !== undefined && input.templateVersion !== null && (!Number.isInteger(input.templateVersion) || (input.templateVersion as number) < 1)) issues.push({ loc: ['templateVersion'], msg: 'Input should be a positive integer', type: 'int_type' });
    let maxTokens = this.deps.config.defaultMaxTokens;
    if (input.maxTokens !== undefined && input.maxTokens !== null) {
      if (!Number.isInteger(input.maxTokens) || (input.maxTokens as number) < 1 || (input.maxTokens as number) > this.deps.config.maxMaxTokens) {
        issues.push({ loc: ['maxTokens'], msg: `Input should be an integer from 1 to ${this.deps.config.maxMaxTokens}`, type: 'int_type' });
      } else maxTokens = input.maxTokens as number;
    }
    if (input.useRag !== undefined && input.useRag !== null && typeof input.useRag !== 'boolean') issues.push({ loc: ['useRag'], msg: 'Input should be a valid boolean', type: 'bool_type' });
    if (input.detokenize !== undefined && input.detokenize !== null && typeof input.detokenize !== 'boolean') issues.push({ loc: ['detokenize'], msg: 'Input should be a valid boolean', type: 'bool_type' });
    // entity_id is this platform's addition to spec 02's {suite_id, module_id}: retrieval's
    // cascade has four levels, and an answer about one entity should see its own knowledge first.
    const scope: RetrievalScope = {};
    if (input.context !== undefined && input.context !== null) {
      if (typeof input.context !== 'object' || Array.isArray(input.context)) issues.push({ loc: ['context'], msg: 'Input should be an object with suite_id, module_id and entity_id', type: 'dict_type' });
      else {
        const c = input.context as Record<string, unknown>;
        const ids = { suiteId: c.suite_id ?? c.suiteId, moduleId: c.module_id ?? c.moduleId, entityId: c.entity_id ?? c.entityId };
        for (const [key, name] of [['suiteId', 'suite_id'], ['moduleId', 'module_id'], ['entityId', 'entity_id']] as const) {
          const v = ids[key];
          if (v !== undefined && v !== null && (typeof v !== 'string' || v.length === 0 || v.length > 100)) issues.push({ loc: ['context', name], msg: 'Input should be a string of 1-100 characters', type: 'string_type' });
          else if (typeof v === 'string') scope[key] = v;
        }
      }
    }
    if (issues.length > 0) throw new InputError(issues);
    const model = modelId === undefined ? undefined : this.model(modelId);
    if (input.detokenize === true && !caller.auth?.scopes.includes(DETOKENIZE_SCOPE)) throw new ForbiddenError(`Scope '${DETOKENIZE_SCOPE}' required to reveal tokenized values`);

    let template: PromptTemplate | null = null;
    if (hasTemplate) {
      template = await this.deps.templates.get(tenantId, input.templateId as string, (input.templateVersion as number | undefined) ?? undefined);
      if (!template) throw new NotFoundError(`Prompt template '${echo(input.templateId as string)}'${input.templateVersion ? ` version ${input.templateVersion as number}` : ''} not found`);
      const rendered = renderTemplate(template, input.variables);
      prompt = prompt ? `${rendered}\n\n${prompt}` : rendered;
    } else if (input.variables !== undefined && input.variables !== null) {
      throw InputError.of(['variables'], 'Variables apply to a template: give template_id too', 'value_error');
    }
    const policy = this.policyOf(tenantId);
    return {
      tenantId, policy, model, maxTokens, scope,
      input: this.deps.guard.session(tenantId),
      output: this.deps.guard.session(tenantId),
      prompt: prompt!,
      useRag: input.useRag === true,
      template: template ? { templateId: template.templateId, version: template.version } : null,
      system: system ?? SYSTEM_PROMPT,
      detokenize: input.detokenize === true,
    };
  }

  /** Budget and rate first (nothing spent on a refused call). */
  private async admit(p: Prepared): Promise<void> {
    this.deps.limits.takeRequest(p.tenantId, p.policy.requestsPerMinute);
    await this.deps.limits.checkBudget(p.tenantId, p.policy.dailyTokenBudget);
  }

  private async ground(caller: Caller, p: Prepared, query: string, forward: Forwarding): Promise<Grounding> {
    if (!p.useRag) return { chunks: [], ragUnavailable: false };
    const r: Retrieval = await this.deps.retrieval.retrieve(this.context(caller, p.tenantId, forward), query, p.scope);
    if (!r.available) return { chunks: [], ragUnavailable: true };
    // Retrieved text leaves the platform with the prompt: it is redacted the same way.
    return { chunks: r.chunks.map((c) => ({ ...c, content: p.input.text(c.content), heading: c.heading === null ? null : p.input.text(c.heading), document_title: p.input.text(c.document_title) })), ragUnavailable: false };
  }

  private request(p: Prepared, prompt: string, g: Grounding, offline?: () => string): ModelRequest {
    const context = g.chunks.map((c) => c.content);
    // Retrieval down: the model answers without context and is told to say so (the offline model
    // says so itself); the response's rag_unavailable says it too.
    const content = g.ragUnavailable ? `${RAG_UNAVAILABLE_NOTE}\n\nQuestion: ${prompt}`
      : context.length === 0 ? prompt
        : `Answer from this context where it helps.\n\n${g.chunks.map((c, i) => `[${i + 1}] ${c.document_title}${c.heading ? ` - ${c.heading}` : ''}\n${c.content}`).join('\n\n')}\n\nQuestion: ${prompt}`;
    return { system: p.input.text(p.system), messages: [{ role: 'user', content }], maxTokens: p.maxTokens, context, offline };
  }

  private plan(p: Prepared, request: ModelRequest) {
    const promptTokens = estimateTokens(`${request.system ?? ''}${request.messages.map((m) => m.content).join('')}`);
    return planRoute(this.deps.config.catalogue.models, this.deps.health, p.policy, { named: p.model, promptTokens, maxTokens: p.maxTokens }, this.deps.config.routing);
  }

  private usageEvent(operation: string, status: 'ok' | 'failed', model: ModelEntry | null, promptTokens: number, completionTokens: number, latencyMs: number, attempts: Attempt[], redactions: UsageEvent['redactions'], mode: string, extra: Partial<UsageEvent> = {}): UsageEvent {
    return {
      operation, status, model: model?.id ?? null, provider: model?.provider ?? null, promptTokens, completionTokens,
      cost: model ? cost(model, promptTokens + completionTokens) : 0, latencyMs, attempts, redactions, redactionMode: mode,
      ragChunksUsed: 0, ragUnavailable: false, templateId: null, templateVersion: null, detokenized: 0, ...extra,
    };
  }

  /** The answer with this request's own tokens turned back into values (scope checked in prepare). */
  private async reveal(p: Prepared, text: string): Promise<{ text: string; revealed: number }> {
    const own = new Map(p.input.minted().map((t) => [t.token, t.value]));
    let revealed = 0;
    const out = text.replace(TOKEN_PATTERN, (token) => {
      const value = own.get(token);
      if (value === undefined) return token;
      revealed++;
      return value;
    });
    return { text: out, revealed };
  }

  private finish(p: Prepared, g: Grounding) {
    return {
      sources: [...new Set(g.chunks.map((c) => c.document_title))],
      redactions: { input: p.input.counts(), output: p.output.counts() },
      extra: { ragChunksUsed: g.chunks.length, ragUnavailable: g.ragUnavailable, templateId: p.template ? redactText(p.template.templateId).text : null, templateVersion: p.template?.version ?? null },
    };
  }

  private async failed(caller: Caller, p: Prepared, operation: string, err: unknown, started: number, g: Grounding): Promise<never> {
    if (err instanceof AllModelsFailedError) {
      const f = this.finish(p, g);
      await this.deps.audit.record(caller, p.tenantId, this.usageEvent(operation, 'failed', null, 0, 0, performance.now() - started, err.attempts, f.redactions, p.input.mode, f.extra));
    }
    throw err;
  }

  /**
   * POST /api/ai/inference. With an Idempotency-Key, a retried request (same key, same body) is
   * answered with the first answer instead of running the model again (docs/ai-broker.md):
   * 409 while the first is still running, 422 when the key came with another body. An answer
   * with revealed values (detokenize) is never stored, so such a request runs each time.
   */
  async inference(caller: Caller, input: InferenceInput, forward: Forwarding = {}): Promise<InferenceResult> {
    const key = forward.idempotencyKey;
    if (key === undefined || input.detokenize === true) return this.infer(caller, input, forward);
    if (key.length === 0 || key.length > 255 || /[^\x21-\x7e]/.test(key)) throw InputError.of(['idempotencyKey'], 'An Idempotency-Key is 1-255 visible ASCII characters', 'value_error');
    const tenantId = await this.tenantOf(caller, 'write', 'ai.inference');
    const requestHash = createHash('sha256').update(canonicalize(input) ?? '').digest('hex');
    // A claim outlives the longest answer: every model's timeout, as failover may try each.
    const runningMs = this.deps.config.requestTimeoutMs * Math.max(1, this.deps.config.catalogue.models.length) + 30_000;
    const claim = await this.deps.replies.claim(tenantId, key, requestHash, runningMs);
    if (claim.state === 'done') return { ...claim.response, replayed: true };
    if (claim.state === 'running') throw new ConflictError('A request with this Idempotency-Key is still being answered; retry shortly');
    if (claim.state === 'other-request') throw InputError.of(['idempotencyKey'], 'This Idempotency-Key was used with a different request', 'value_error');
    try {
      const result = await this.infer(caller, input, forward, tenantId);
      await this.deps.replies.complete(tenantId, key, result, REPLAY_MS);
      return result;
    } catch (err) {
      await this.deps.replies.release(tenantId, key).catch(() => undefined);
      throw err;
    }
  }

  private async infer(caller: Caller, input: InferenceInput, forward: Forwarding, tenantId?: string): Promise<InferenceResult> {
    const p = await this.prepare(caller, input, 'ai.inference', tenantId);
    await this.admit(p);
    const started = performance.now();
    const prompt = p.input.text(p.prompt);
    const g = await this.ground(caller, p, prompt, forward);
    const request = this.request(p, prompt, g);
    const plan = this.plan(p, request);
    await this.deps.tokens.save(p.tenantId, p.input.minted());
    let execution;
    try {
      execution = await this.deps.executor.complete(plan, request);
    } catch (err) {
      return this.failed(caller, p, 'inference', err, started, g);
    }
    let response = p.output.text(execution.result.text);
    let revealed = 0;
    if (p.detokenize) ({ text: response, revealed } = await this.reveal(p, response));
    const latencyMs = performance.now() - started;
    const { model, result, attempts } = execution;
    const f = this.finish(p, g);
    await this.deps.audit.record(caller, p.tenantId, this.usageEvent('inference', 'ok', model, result.promptTokens, result.completionTokens, latencyMs, attempts, f.redactions, p.input.mode, { ...f.extra, detokenized: revealed }));
    this.deps.limits.spent(p.tenantId, result.promptTokens + result.completionTokens);
    return {
      response,
      modelUsed: model.id,
      provider: model.provider,
      tokensUsed: result.promptTokens + result.completionTokens,
      promptTokens: result.promptTokens,
      completionTokens: result.completionTokens,
      cost: cost(model, result.promptTokens + result.completionTokens),
      latencyMs: Math.round(latencyMs * 100) / 100,
      ragChunksUsed: g.chunks.length,
      sources: f.sources,
      ragUnavailable: g.ragUnavailable,
      correlationId: caller.correlationId,
      attempts,
      redactions: f.redactions,
      template: p.template,
    };
  }

  /**
   * Inference as a stream: `start` is known once a model has begun answering (failover happens
   * before that); `pieces` yields redacted text; `done` resolves with the full result once the
   * stream ends and its usage is recorded.
   */
  async inferenceStream(caller: Caller, input: InferenceInput, forward: Forwarding = {}): Promise<{ start: { modelUsed: string; correlationId: string; attempts: Attempt[]; ragChunksUsed: number; sources: string[]; ragUnavailable: boolean }; pieces: AsyncIterable<string>; done: () => InferenceResult }> {
    const p = await this.prepare(caller, input, 'ai.inference');
    if (p.detokenize) throw InputError.of(['detokenize'], 'detokenize applies to answers that are not streamed', 'value_error');
    await this.admit(p);
    const started = performance.now();
    const prompt = p.input.text(p.prompt);
    const g = await this.ground(caller, p, prompt, forward);
    const request = this.request(p, prompt, g);
    const plan = this.plan(p, request);
    await this.deps.tokens.save(p.tenantId, p.input.minted());
    let opened;
    try {
      opened = await this.deps.executor.stream(plan, request);
    } catch (err) {
      return this.failed(caller, p, 'inference', err, started, g);
    }
    const { model, attempts, events } = opened;
    const f0 = this.finish(p, g);
    let result: InferenceResult | undefined;
    const self = this;
    const pieces = (async function* () {
      const redactor = new StreamRedactor({ redact: (t) => p.output.text(t), preview: (t) => p.output.preview(t) });
      let text = '';
      let usage = { promptTokens: 0, completionTokens: 0 };
      let status: 'ok' | 'failed' = 'ok';
      try {
        for await (const e of events as AsyncIterable<StreamEvent>) {
          if (e.type === 'usage') usage = { promptTokens: e.promptTokens, completionTokens: e.completionTokens };
          else {
            const safe = redactor.push(e.text);
            if (safe) {
              text += safe;
              yield safe;
            }
          }
        }
        const rest = redactor.end();
        if (rest) {
          text += rest;
          yield rest;
        }
      } catch (err) {
        status = 'failed';
        throw err;
      } finally {
        const latencyMs = performance.now() - started;
        const f = self.finish(p, g);
        await self.deps.audit.record(caller, p.tenantId, self.usageEvent('inference', status, model, usage.promptTokens, usage.completionTokens, latencyMs, attempts, f.redactions, p.input.mode, f.extra));
        self.deps.limits.spent(p.tenantId, usage.promptTokens + usage.completionTokens);
        result = {
          response: text, modelUsed: model.id, provider: model.provider, tokensUsed: usage.promptTokens + usage.completionTokens, promptTokens: usage.promptTokens, completionTokens: usage.completionTokens,
          cost: cost(model, usage.promptTokens + usage.completionTokens), latencyMs: Math.round(latencyMs * 100) / 100, ragChunksUsed: g.chunks.length, sources: f.sources,
          ragUnavailable: g.ragUnavailable, correlationId: caller.correlationId, attempts, redactions: f.redactions, template: p.template,
        };
      }
    })();
    return {
      start: { modelUsed: model.id, correlationId: caller.correlationId, attempts, ragChunksUsed: g.chunks.length, sources: f0.sources, ragUnavailable: g.ragUnavailable },
      pieces,
      done: () => result!,
    };
  }

  /** One model call for the broker's own tasks (explain, generate-workflow), audited like inference. */
  async task(caller: Caller, operation: string, tenantId: string, prompt: string, offline: () => string, maxTokens: number, session: { input: RedactionSession; output: RedactionSession }): Promise<{ text: string; model: ModelEntry; tokens: number; attempts: Attempt[] }> {
    const p: Prepared = {
      tenantId, policy: this.policyOf(tenantId), input: session.input, output: session.output, prompt, model: this.deps.config.defaultModel ? this.model(this.deps.config.defaultModel) : undefined,
      maxTokens, useRag: false, scope: {}, template: null, system: SYSTEM_PROMPT, detokenize: false,
    };
    await this.admit(p);
    const started = performance.now();
    const g: Grounding = { chunks: [], ragUnavailable: false };
    const request = this.request(p, prompt, g, offline);
    const plan = this.plan(p, request);
    await this.deps.tokens.save(tenantId, p.input.minted());
    let execution;
    try {
      execution = await this.deps.executor.complete(plan, request);
    } catch (err) {
      return this.failed(caller, p, operation, err, started, g);
    }
    const text = p.output.text(execution.result.text);
    const { model, result, attempts } = execution;
    const f = this.finish(p, g);
    await this.deps.audit.record(caller, tenantId, this.usageEvent(operation, 'ok', model, result.promptTokens, result.completionTokens, performance.now() - started, attempts, f.redactions, p.input.mode));
    this.deps.limits.spent(tenantId, result.promptTokens + result.completionTokens);
    return { text, model, tokens: result.promptTokens + result.completionTokens, attempts };
  }

  /** The guard's sessions for a task's own input and output. */
  sessions(tenantId: string) {
    return { input: this.deps.guard.session(tenantId), output: this.deps.guard.session(tenantId) };
  }

  async tenantFor(caller: Caller, scope: 'read' | 'write', action: string): Promise<string> {
    return this.tenantOf(caller, scope, action);
  }

  // --- retrieval --------------------------------------------------------------------------------

  async ragSearch(caller: Caller, input: { query?: unknown; suiteId?: unknown; moduleId?: unknown; entityId?: unknown; topK?: unknown; threshold?: unknown }, forward: Forwarding = {}) {
    const tenantId = await this.tenantOf(caller, 'read', 'ai.rag.search');
    const issues: InputIssue[] = [];
    // `searchQuery`: a field named `query` would read as a location (REST's ["query", ...]); the route maps it back.
    if (input.query === undefined || input.query === null) issues.push({ loc: ['searchQuery'], msg: 'Field required', type: 'missing' });
    else if (typeof input.query !== 'string' || input.query.trim().length === 0 || input.query.length > 10_000) issues.push({ loc: ['searchQuery'], msg: 'A query should be 1-10000 characters of text', type: 'string_type' });
    const suiteId = optionalString(issues, 'suiteId', input.suiteId, 100);
    const moduleId = optionalString(issues, 'moduleId', input.moduleId, 100);
    const entityId = optionalString(issues, 'entityId', input.entityId, 100);
    const topK = input.topK ?? 5;
    if (!Number.isInteger(topK) || (topK as number) < 1 || (topK as number) > 20) issues.push({ loc: ['topK'], msg: 'Input should be an integer from 1 to 20', type: 'int_type' });
    const threshold = input.threshold ?? 0.5;
    if (typeof threshold !== 'number' || threshold < 0 || threshold > 1) issues.push({ loc: ['threshold'], msg: 'Input should be a number from 0 to 1', type: 'float_type' });
    if (issues.length > 0) throw new InputError(issues);
    const session = this.deps.guard.session(tenantId);
    const query = session.text(input.query as string);
    await this.deps.tokens.save(tenantId, session.minted());
    const r = await this.deps.retrieval.retrieve(this.context(caller, tenantId, forward), query, { suiteId, moduleId, entityId }, topK as number, threshold as number);
    if (!r.available) throw new UnavailableError('The knowledge retrieval service is unavailable, retry shortly', 5);
    return { query, chunks: r.chunks.map((c) => ({ ...c, content: session.text(c.content) })), total: r.chunks.length };
  }

  // --- templates --------------------------------------------------------------------------------

  async listTemplates(caller: Caller): Promise<PromptTemplate[]> {
    const tenantId = await this.tenantOf(caller, 'read', 'ai.prompts.list');
    return this.deps.templates.list(tenantId);
  }

  async getTemplate(caller: Caller, templateId: string, version?: number): Promise<PromptTemplate> {
    const tenantId = await this.tenantOf(caller, 'read', 'ai.prompts.get');
    const t = TEMPLATE_ID.test(templateId) ? await this.deps.templates.get(tenantId, templateId, version) : null;
    if (!t) throw new NotFoundError(`Prompt template '${echo(templateId)}'${version ? ` version ${version}` : ''} not found`);
    return t;
  }

  /** A new template, or the next version of the tenant's template with that id. */
  async createTemplate(caller: Caller, input: TemplateInput): Promise<PromptTemplate> {
    const tenantId = await this.tenantOf(caller, 'write', 'ai.prompts.create');
    const checked = checkTemplate(input);
    return this.deps.templates.append(tenantId, { ...checked, createdBy: caller.auth?.username ?? null });
  }

  // --- tokens and usage -------------------------------------------------------------------------

  /** One of the tenant's tokens and its value: the dedicated scope only; another tenant's is 404. */
  async revealToken(caller: Caller, token: string): Promise<{ token: string; category: string; value: string }> {
    const tenantId = await this.tenantOf(caller, 'read', 'ai.tokens.reveal');
    if (!caller.auth?.scopes.includes(DETOKENIZE_SCOPE)) throw new ForbiddenError(`Scope '${DETOKENIZE_SCOPE}' required to reveal tokenized values`);
    const m = /^\[([a-z][a-z0-9_]{0,49}):tok_([0-9a-f]{20})\]$/.exec(token);
    const values = m ? await this.deps.tokens.reveal(tenantId, [token]) : new Map<string, string>();
    const value = values.get(token);
    if (value === undefined || !m) throw new NotFoundError('Token not found');
    return { token, category: m[1]!, value };
  }

  async usage(caller: Caller, range: { from?: string; to?: string }): Promise<UsageSummary & { tenant_id: string; from: string; to: string }> {
    const tenantId = await this.tenantOf(caller, 'read', 'ai.usage');
    const issues: InputIssue[] = [];
    const parse = (field: string, v: string | undefined, fallback: Date) => {
      if (v === undefined) return fallback;
      const d = new Date(v);
      // ISO 8601 dates from 1970 to 9999 only: year 0 and its like parse in JS but not in the database.
      if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1970 || d.getUTCFullYear() > 9999) {
        issues.push({ loc: [field], msg: 'Input should be a valid ISO 8601 datetime from 1970 on', type: 'datetime_parsing' });
        return fallback;
      }
      return d;
    };
    const now = new Date();
    const to = parse('to', range.to, new Date(now.getTime() + 1000));
    const from = parse('from', range.from, new Date(`${now.toISOString().slice(0, 10)}T00:00:00Z`));
    if (issues.length > 0) throw new InputError(issues);
    return { tenant_id: tenantId, from: from.toISOString(), to: to.toISOString(), ...(await this.deps.usage.summary(tenantId, from, to)) };
  }
}

export type { RedactionCounts };
