// The AI broker's domain operations (spec 02, port 8085). Both doors (rest-compat/ai-broker and
// resolvers.ts) are thin adapters over these methods, and assist.service.ts runs its tasks
// through them. This class only wires and delegates: each operation lives in the file named
// beside it. An operation begins with the caller's checks and its tenant (broker-access.ts),
// validates the request (422s before anything is spent), then, for a model call, follows spec
// 02's order in inference.pipeline.ts.
import type { Caller } from '../../platform/auth/caller';
import type { Forwarding, InferenceInput, InferenceResult, PromptTemplate, RedactionCounts } from './ai-broker.types';
import type { AiBrokerDeps } from './ai-broker.deps';
import { BrokerAccess } from './broker-access';
import { IdempotentInference } from './idempotent-inference';
import { InferencePipeline } from './inference.pipeline';
import { InferenceService, type InferenceStream, type TaskResult, type TaskSessions } from './inference.service';
import { ModelsService, type ModelStatusView, type ModelTestResult, type ModelView } from './models.service';
import type { TemplateInput } from './prompt-template.rules';
import { PromptTemplateService } from './prompt-template.service';
import { RagSearchService, type RagSearchInput } from './rag-search.service';
import { TokenRevealService } from './token-reveal';
import type { UsageSummary } from './usage.store';
import { UsageSummaryService } from './usage-summary.service';

export type { AiBrokerDeps } from './ai-broker.deps';
export type { ModelStatusView, ModelTestResult, ModelView } from './models.service';
export type { RedactionCounts };
export { MAX_PROMPT_LENGTH } from './inference-input.rules';
export { RAG_UNAVAILABLE_NOTE } from './inference.pipeline';
export { DETOKENIZE_SCOPE } from './token-reveal';

export class AiBrokerService {
  private readonly access: BrokerAccess;
  private readonly catalogue: ModelsService;
  private readonly templates: PromptTemplateService;
  private readonly inferences: InferenceService;
  private readonly idempotent: IdempotentInference;
  private readonly rag: RagSearchService;
  private readonly tokens: TokenRevealService;
  private readonly usageSummary: UsageSummaryService;

  constructor(deps: AiBrokerDeps) {
    this.access = new BrokerAccess(deps);
    this.catalogue = new ModelsService(deps, this.access);
    this.templates = new PromptTemplateService(deps, this.access);
    this.inferences = new InferenceService(
      deps,
      new InferencePipeline(deps, this.access, this.catalogue, this.templates),
    );
    this.idempotent = new IdempotentInference(deps, this.access, this.inferences);
    this.rag = new RagSearchService(deps, this.access);
    this.tokens = new TokenRevealService(deps, this.access);
    this.usageSummary = new UsageSummaryService(deps, this.access);
  }

  // --- who, and in which tenant (for assist.service.ts) ---------------------------------------

  async tenantFor(caller: Caller, scope: 'read' | 'write', action: string): Promise<string> {
    return this.access.tenantOf(caller, scope, action);
  }

  // --- models: models.service.ts ---------------------------------------------------------------

  models(caller: Caller): Promise<{ models: ModelView[] }> {
    return this.catalogue.models(caller);
  }

  modelStatus(caller: Caller, id: string): Promise<ModelStatusView> {
    return this.catalogue.modelStatus(caller, id);
  }

  /** A real one-token call to the model (and a probe of its provider): is it answering now? */
  testModel(caller: Caller, id: string): Promise<ModelTestResult> {
    return this.catalogue.testModel(caller, id);
  }

  // --- inference: idempotent-inference.ts, inference.service.ts --------------------------------

  /** POST /api/ai/inference; with an Idempotency-Key, a retry is answered with the first answer. */
  inference(caller: Caller, input: InferenceInput, forward: Forwarding = {}): Promise<InferenceResult> {
    return this.idempotent.answer(caller, input, forward);
  }

  /** Inference as a stream: `start` once a model answers, redacted `pieces`, then `done()`. */
  inferenceStream(caller: Caller, input: InferenceInput, forward: Forwarding = {}): Promise<InferenceStream> {
    return this.inferences.inferenceStream(caller, input, forward);
  }

  /** One model call for the broker's own tasks (explain, generate-workflow), audited like inference. */
  task(
    caller: Caller,
    operation: string,
    tenantId: string,
    prompt: string,
    offline: () => string,
    maxTokens: number,
    session: TaskSessions,
  ): Promise<TaskResult> {
    return this.inferences.task(caller, operation, tenantId, prompt, offline, maxTokens, session);
  }

  /** The guard's sessions for a task's own input and output. */
  sessions(tenantId: string): TaskSessions {
    return this.inferences.sessions(tenantId);
  }

  // --- retrieval: rag-search.service.ts --------------------------------------------------------

  ragSearch(caller: Caller, input: RagSearchInput, forward: Forwarding = {}) {
    return this.rag.ragSearch(caller, input, forward);
  }

  // --- templates: prompt-template.service.ts ---------------------------------------------------

  listTemplates(caller: Caller): Promise<PromptTemplate[]> {
    return this.templates.listTemplates(caller);
  }

  getTemplate(caller: Caller, templateId: string, version?: number): Promise<PromptTemplate> {
    return this.templates.getTemplate(caller, templateId, version);
  }

  /** A new template, or the next version of the tenant's template with that id. */
  createTemplate(caller: Caller, input: TemplateInput): Promise<PromptTemplate> {
    return this.templates.createTemplate(caller, input);
  }

  // --- tokens and usage: token-reveal.ts, usage-summary.service.ts -----------------------------

  /** One of the tenant's tokens and its value: the dedicated scope only; another tenant's is 404. */
  revealToken(caller: Caller, token: string): Promise<{ token: string; category: string; value: string }> {
    return this.tokens.revealToken(caller, token);
  }

  usage(
    caller: Caller,
    range: { from?: string; to?: string },
  ): Promise<UsageSummary & { tenant_id: string; from: string; to: string }> {
    return this.usageSummary.usage(caller, range);
  }
}
