// The steps every model call shares, in spec 02's order: make the request ready (tenant, checked
// fields, model, template, a redaction session each way), admit it (rate, then budget), ground it
// (retrieval context, redacted like the prompt), build the model request and its route plan; and
// after the call, sum up sources and redactions for the answer and the usage record.
// inference.service.ts runs these for inference, streaming and the broker's own tasks.
import { performance } from 'node:perf_hooks';
import type { Caller } from '../../platform/auth/caller';
import { InputError } from '../../platform/errors/domain-errors';
import { redactText } from '../../platform/redaction';
import type { Forwarding, InferenceInput, PromptTemplate } from './ai-broker.types';
import type { AiBrokerDeps } from './ai-broker.deps';
import type { BrokerAccess } from './broker-access';
import { checkInferenceInput } from './inference-input.rules';
import type { ModelEntry, TenantPolicy } from './model-catalogue';
import { AllModelsFailedError, type ModelRequest } from './model-executor';
import { planRoute, type RoutePlan } from './model-router';
import type { ModelsService } from './models.service';
import type { RedactionSession } from './pii-guard';
import { renderTemplate } from './prompt-template.rules';
import type { PromptTemplateService } from './prompt-template.service';
import { estimateTokens } from './providers/provider';
import type { Retrieval, RetrievalScope, RetrievedChunk } from './retrieval.source';
import { requireDetokenizeScope } from './token-reveal';
import { usageEvent } from './usage-event';

export const RAG_UNAVAILABLE_NOTE =
  "The platform's knowledge base could not be searched for this question. Answer without it, and begin by saying that the answer is not based on the platform's documents.";
export const SYSTEM_PROMPT =
  "You are the platform's assistant. Values shown as [category:...] or masked with * are redacted personal data: never guess them and never ask for them.";

/** A request ready to run: everything the later steps need, with nothing spent yet. */
export interface Prepared {
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

export interface Grounding {
  chunks: RetrievedChunk[];
  ragUnavailable: boolean;
}

export type PipelineDeps = Pick<AiBrokerDeps, 'config' | 'health' | 'guard' | 'limits' | 'retrieval' | 'audit'>;

export class InferencePipeline {
  constructor(
    private readonly deps: PipelineDeps,
    private readonly access: BrokerAccess,
    private readonly models: ModelsService,
    private readonly templates: PromptTemplateService,
  ) {}

  /** `resolvedTenant`: the caller's tenant when the Idempotency-Key path has resolved it already. */
  async prepare(caller: Caller, input: InferenceInput, action: string, resolvedTenant?: string): Promise<Prepared> {
    const tenantId = resolvedTenant ?? (await this.access.tenantOf(caller, 'write', action));
    const checked = checkInferenceInput(input, this.deps.config);
    const model = checked.modelId === undefined ? undefined : this.models.find(checked.modelId);
    if (input.detokenize === true) requireDetokenizeScope(caller);

    let prompt = checked.prompt;
    let template: PromptTemplate | null = null;
    if (checked.hasTemplate) {
      template = await this.templates.load(
        tenantId,
        input.templateId as string,
        (input.templateVersion as number | undefined) ?? undefined,
      );
      const rendered = renderTemplate(template, input.variables);
      prompt = prompt ? `${rendered}\n\n${prompt}` : rendered;
    } else if (input.variables !== undefined && input.variables !== null) {
      throw InputError.of(['variables'], 'Variables apply to a template: give template_id too', 'value_error');
    }
    return {
      tenantId,
      policy: this.access.policyOf(tenantId),
      model,
      maxTokens: checked.maxTokens,
      scope: checked.scope,
      input: this.deps.guard.session(tenantId),
      output: this.deps.guard.session(tenantId),
      // The rules ensure a prompt, a template or a 422.
      prompt: prompt!,
      useRag: input.useRag === true,
      template: template ? { templateId: template.templateId, version: template.version } : null,
      system: checked.system ?? SYSTEM_PROMPT,
      detokenize: input.detokenize === true,
    };
  }

  /** The request ready for one of the broker's own tasks: no template, no retrieval, the default model. */
  forTask(
    tenantId: string,
    prompt: string,
    maxTokens: number,
    session: { input: RedactionSession; output: RedactionSession },
  ): Prepared {
    const { defaultModel } = this.deps.config;
    return {
      tenantId,
      policy: this.access.policyOf(tenantId),
      input: session.input,
      output: session.output,
      prompt,
      model: defaultModel ? this.models.find(defaultModel) : undefined,
      maxTokens,
      useRag: false,
      scope: {},
      template: null,
      system: SYSTEM_PROMPT,
      detokenize: false,
    };
  }

  /** Budget and rate first (nothing spent on a refused call). */
  async admit(p: Prepared): Promise<void> {
    this.deps.limits.takeRequest(p.tenantId, p.policy.requestsPerMinute);
    await this.deps.limits.checkBudget(p.tenantId, p.policy.dailyTokenBudget);
  }

  async ground(caller: Caller, p: Prepared, query: string, forward: Forwarding): Promise<Grounding> {
    if (!p.useRag) return { chunks: [], ragUnavailable: false };
    const r: Retrieval = await this.deps.retrieval.retrieve(
      this.access.context(caller, p.tenantId, forward),
      query,
      p.scope,
    );
    if (!r.available) return { chunks: [], ragUnavailable: true };
    // Retrieved text leaves the platform with the prompt: it is redacted the same way.
    const chunks = r.chunks.map((c) => ({
      ...c,
      content: p.input.text(c.content),
      heading: c.heading === null ? null : p.input.text(c.heading),
      document_title: p.input.text(c.document_title),
    }));
    return { chunks, ragUnavailable: false };
  }

  /** `offline`: what the extractive model answers for a task (inference has its own). */
  request(p: Prepared, prompt: string, g: Grounding, offline?: () => string): ModelRequest {
    const context = g.chunks.map((c) => c.content);
    // Retrieval down: the model answers without context and is told to say so (the offline model
    // says so itself); the response's rag_unavailable says it too.
    const sources = () =>
      g.chunks
        .map((c, i) => `[${i + 1}] ${c.document_title}${c.heading ? ` - ${c.heading}` : ''}\n${c.content}`)
        .join('\n\n');
    const content = g.ragUnavailable
      ? `${RAG_UNAVAILABLE_NOTE}\n\nQuestion: ${prompt}`
      : context.length === 0
        ? prompt
        : `Answer from this context where it helps.\n\n${sources()}\n\nQuestion: ${prompt}`;
    return {
      // The platform's own system prompt holds no personal data: only a caller's is redacted.
      system: p.system === SYSTEM_PROMPT ? SYSTEM_PROMPT : p.input.text(p.system),
      messages: [{ role: 'user', content }],
      maxTokens: p.maxTokens,
      context,
      offline,
    };
  }

  /** The models to try, in order, for a request of this size under the tenant's policy. */
  plan(p: Prepared, request: ModelRequest): RoutePlan {
    const promptTokens = estimateTokens(`${request.system ?? ''}${request.messages.map((m) => m.content).join('')}`);
    return planRoute(
      this.deps.config.catalogue.models,
      this.deps.health,
      p.policy,
      { named: p.model, promptTokens, maxTokens: p.maxTokens },
      this.deps.config.routing,
    );
  }

  /** What the answer and the usage record say about sources, redactions and the template. */
  finish(p: Prepared, g: Grounding) {
    return {
      sources: [...new Set(g.chunks.map((c) => c.document_title))],
      redactions: { input: p.input.counts(), output: p.output.counts() },
      extra: {
        ragChunksUsed: g.chunks.length,
        ragUnavailable: g.ragUnavailable,
        // A template id is the tenant's own text: it reaches the ledger redacted.
        templateId: p.template ? redactText(p.template.templateId).text : null,
        templateVersion: p.template?.version ?? null,
      },
    };
  }

  /** Every model failed: the attempts are still recorded (nothing charged), then the error goes on. */
  async failed(
    caller: Caller,
    p: Prepared,
    operation: string,
    err: unknown,
    started: number,
    g: Grounding,
  ): Promise<never> {
    if (err instanceof AllModelsFailedError) {
      const f = this.finish(p, g);
      await this.deps.audit.record(
        caller,
        p.tenantId,
        usageEvent(
          operation,
          'failed',
          null,
          0,
          0,
          performance.now() - started,
          err.attempts,
          f.redactions,
          p.input.mode,
          f.extra,
        ),
      );
    }
    throw err;
  }
}
