// The AI broker's documented REST routes (spec 02, port 8085) as thin adapters over
// subgraphs/ai-broker's services: each builds the Caller, calls one service method and shapes the
// JSON (snake_case, the spec's names). When every model fails the 503's detail lists the
// attempts. POST /api/ai/inference with `stream: true` answers as server-sent events.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import { callerOf } from '../../platform/http/caller';
import { InputError } from '../../platform/errors/domain-errors';
import type { AiBrokerService } from '../../subgraphs/ai-broker/ai-broker.service';
import type { InferenceInput, InferenceResult, PromptTemplate } from '../../subgraphs/ai-broker/ai-broker.types';
import type { AssistService } from '../../subgraphs/ai-broker/assist.service';
import { AllModelsFailedError } from '../../subgraphs/ai-broker/model-executor';
import {
  ExplainBody,
  ExplainResponse,
  GenerateWorkflowBody,
  GenerateWorkflowResponse,
  InferenceBody,
  InferenceResponse,
  ModelParams,
  ModelsResponse,
  ModelStatusResponse,
  ModelTestResponse,
  RagSearchBody,
  RagSearchResponse,
  responses,
  ServiceInfo,
  Template,
  TemplateBody,
  TemplateParams,
  TemplateQuery,
  TemplatesResponse,
  TokenParams,
  TokenResponse,
  UsageQuery,
  UsageResponse,
} from './ai-broker.schemas';

const forwarding = (request: FastifyRequest) => ({ token: bearerToken(request.headers.authorization) });

export function inferenceJson(r: InferenceResult) {
  return {
    response: r.response,
    model_used: r.modelUsed,
    tokens_used: r.tokensUsed,
    rag_chunks_used: r.ragChunksUsed,
    sources: r.sources,
    correlation_id: r.correlationId,
    provider: r.provider,
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
    cost: r.cost,
    latency_ms: r.latencyMs,
    rag_unavailable: r.ragUnavailable,
    attempts: r.attempts,
    redactions: r.redactions,
    template: r.template ? { template_id: r.template.templateId, version: r.template.version } : null,
  };
}

export function templateJson(t: PromptTemplate) {
  return {
    template_id: t.templateId,
    version: t.version,
    name: t.name,
    description: t.description,
    template: t.template,
    variables: t.variables,
    created_at: t.createdAt,
    created_by: t.createdBy,
    versions: t.versions,
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The generated pack as spec 02 shows it, for the original service's clients: `id`, `name` and
 * `steps[{name, type}]`, beside our own members (metadata.pack_id, metadata.name, steps[].step).
 * Those extra members would fail the workflow-pack schema (it refuses unknown members), so the
 * response also carries the pack untouched as `artifact`, ready for the packs registry.
 */
export function specWorkflowPack(pack: Record<string, unknown>): Record<string, unknown> {
  const metadata = isRecord(pack.metadata) ? pack.metadata : {};
  const steps = Array.isArray(pack.steps) ? pack.steps : [];
  return {
    id: metadata.pack_id,
    name: metadata.name,
    ...pack,
    steps: steps.map((s) => (isRecord(s) ? { name: s.step, ...s } : s)),
  };
}

/** Every model failed: 503 with the attempts, so the caller sees what was tried. */
async function withAttempts<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof AllModelsFailedError)) throw err;
    return reply
      .code(503)
      .header('Retry-After', String(err.retryAfterSeconds ?? 5))
      .send({ detail: { message: err.message, attempts: err.attempts } });
  }
}

function inferenceInput(b: InferenceBody): InferenceInput {
  return {
    prompt: b.prompt,
    model: b.model,
    useRag: b.use_rag,
    context: b.context,
    maxTokens: b.max_tokens,
    templateId: b.template_id,
    templateVersion: b.template_version,
    variables: b.variables,
    system: b.system,
    detokenize: b.detokenize,
  };
}

async function streamInference(
  request: FastifyRequest<{ Body: InferenceBody }>,
  reply: FastifyReply,
  broker: AiBrokerService,
) {
  const { start, pieces, done } = await broker.inferenceStream(
    callerOf(request),
    inferenceInput(request.body),
    forwarding(request),
  );
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-correlation-id': request.id,
  });
  const send = (event: string, data: unknown) => raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('start', {
    model_used: start.modelUsed,
    correlation_id: start.correlationId,
    attempts: start.attempts,
    rag_chunks_used: start.ragChunksUsed,
    sources: start.sources,
    rag_unavailable: start.ragUnavailable,
  });
  try {
    for await (const text of pieces) send('token', { text });
    send('done', inferenceJson(done()));
  } catch (err) {
    request.log.warn({ err: (err as Error).name }, 'stream ended with an error');
    send('error', { detail: 'The model stopped answering; the answer is incomplete' });
  }
  raw.end();
}

export function registerAiBrokerRoutes(
  routes: FastifyInstance,
  broker: AiBrokerService,
  assist: AssistService,
  options: { version: string },
): void {
  routes.get(
    '/',
    {
      config: { auth: 'public' },
      schema: { tags: ['ai-broker'], summary: 'Service metadata', response: { 200: ServiceInfo } },
    },
    async () => ({
      service: 'ai-broker',
      version: options.version,
      description:
        'One interface to several language models: PII redaction both ways, routing by cost, latency and compliance with failover, prompt templates, retrieval context, usage audited per tenant',
      endpoints: [
        'POST /api/ai/inference',
        'POST /api/ai/explain',
        'POST /api/ai/generate-workflow',
        'GET /api/ai/models',
        'GET /api/ai/models/{model_id}/status',
        'POST /api/ai/models/{model_id}/test',
        'GET /api/ai/prompts',
        'POST /api/ai/prompts',
        'GET /api/ai/prompts/{template_id}',
        'POST /api/ai/rag/search',
        'GET /api/ai/usage',
        'GET /api/ai/tokens/{token}',
        'GET /healthz',
        'GET /readyz',
        'POST /graphql',
      ],
    }),
  );

  routes.post<{ Body: InferenceBody }>(
    '/api/ai/inference',
    {
      schema: {
        tags: ['ai-broker'],
        summary: 'Run a prompt (or a template) on the best available model',
        description:
          'Redacts the prompt, picks a model (the named one when available), adds retrieval context when use_rag, fails over on errors, timeouts and 429s, ' +
          "redacts the answer and audits usage. 404 unknown model or template; 422 bad input, missing template variables, or a prompt over the named model's context window; " +
          '429 rate limit or daily token budget; 503 when no model answered (detail.attempts lists them). stream: true answers as text/event-stream.',
        body: InferenceBody,
        response: responses(InferenceResponse),
      },
      config: { inputHeaders: { idempotencyKey: 'idempotency-key' } },
    },
    async (request, reply) =>
      withAttempts(reply, async () => {
        if (request.body.stream === true) return streamInference(request, reply, broker);
        const key = request.headers['idempotency-key'];
        if (Array.isArray(key)) throw InputError.of(['idempotencyKey'], 'Send one Idempotency-Key', 'value_error');
        const result = await broker.inference(callerOf(request), inferenceInput(request.body), {
          ...forwarding(request),
          idempotencyKey: key,
        });
        if (result.replayed) void reply.header('idempotent-replayed', 'true');
        return inferenceJson(result);
      }),
  );

  routes.post<{ Body: ExplainBody }>(
    '/api/ai/explain',
    {
      schema: {
        tags: ['ai-broker'],
        summary: 'Explain a rule-validation failure (and how to fix it when include_remediation)',
        body: ExplainBody,
        response: responses(ExplainResponse),
      },
    },
    async (request, reply) =>
      withAttempts(reply, async () => {
        const b = request.body;
        const r = await assist.explain(callerOf(request), {
          ruleId: b.rule_id,
          failureData: b.failure_data,
          includeRemediation: b.include_remediation,
        });
        return {
          rule_id: r.ruleId,
          explanation: r.explanation,
          remediation: r.remediation,
          model_used: r.modelUsed,
          tokens_used: r.tokensUsed,
          correlation_id: r.correlationId,
          attempts: r.attempts,
        };
      }),
  );

  routes.post<{ Body: GenerateWorkflowBody }>(
    '/api/ai/generate-workflow',
    {
      schema: {
        tags: ['ai-broker'],
        summary: 'A workflow pack from a natural-language description (passes the workflow-pack schema)',
        body: GenerateWorkflowBody,
        response: responses(GenerateWorkflowResponse),
      },
    },
    async (request, reply) =>
      withAttempts(reply, async () => {
        const r = await assist.generateWorkflow(
          callerOf(request),
          { description: request.body.description, domain: request.body.domain },
          forwarding(request),
        );
        return {
          workflow_pack: specWorkflowPack(r.workflowPack),
          artifact: r.workflowPack,
          confidence: r.confidence,
          model_used: r.modelUsed,
          schema_source: r.schemaSource,
          correlation_id: r.correlationId,
          attempts: r.attempts,
        };
      }),
  );

  routes.get(
    '/api/ai/models',
    {
      schema: {
        tags: ['ai-broker'],
        summary: "The model catalogue with each model's honest status",
        response: responses(ModelsResponse),
      },
    },
    async (request) => broker.models(callerOf(request)),
  );

  routes.get<{ Params: ModelParams }>(
    '/api/ai/models/:model_id/status',
    {
      schema: {
        tags: ['ai-broker'],
        summary: "One model's status, measured latency, cooldown and last error",
        params: ModelParams,
        response: responses(ModelStatusResponse),
      },
    },
    async (request) => broker.modelStatus(callerOf(request), request.params.model_id),
  );

  routes.post<{ Params: ModelParams }>(
    '/api/ai/models/:model_id/test',
    {
      schema: {
        tags: ['ai-broker'],
        summary: 'Call the model now with a one-token prompt: is it answering?',
        params: ModelParams,
        response: responses(ModelTestResponse),
      },
    },
    async (request) => broker.testModel(callerOf(request), request.params.model_id),
  );

  routes.get(
    '/api/ai/prompts',
    {
      schema: {
        tags: ['ai-broker'],
        summary: "The tenant's prompt templates (newest version of each)",
        response: responses(TemplatesResponse),
      },
    },
    async (request) => ({ templates: (await broker.listTemplates(callerOf(request))).map(templateJson) }),
  );

  routes.post<{ Body: TemplateBody }>(
    '/api/ai/prompts',
    {
      schema: {
        tags: ['ai-broker'],
        summary: 'Create a template, or the next version of one (same template_id)',
        body: TemplateBody,
        response: { ...responses(Template), 201: Template },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const t = await broker.createTemplate(callerOf(request), {
        templateId: b.template_id,
        name: b.name,
        description: b.description,
        template: b.template,
        variables: b.variables,
      });
      return reply.code(201).send(templateJson(t));
    },
  );

  routes.get<{ Params: TemplateParams; Querystring: TemplateQuery }>(
    '/api/ai/prompts/:template_id',
    {
      config: { inputLocation: 'path' },
      schema: {
        tags: ['ai-broker'],
        summary: 'One template (the newest version, or ?version=)',
        params: TemplateParams,
        querystring: TemplateQuery,
        response: responses(Template),
      },
    },
    async (request) =>
      templateJson(await broker.getTemplate(callerOf(request), request.params.template_id, request.query.version)),
  );

  routes.post<{ Body: RagSearchBody }>(
    '/api/ai/rag/search',
    {
      config: { inputNames: { searchQuery: 'query' } },
      schema: {
        tags: ['ai-broker'],
        summary: 'Search the knowledge base through the retrieval service (query redacted first); 503 when it is down',
        body: RagSearchBody,
        response: responses(RagSearchResponse),
      },
    },
    async (request) => {
      const b = request.body;
      return broker.ragSearch(
        callerOf(request),
        {
          query: b.query,
          suiteId: b.suite_id,
          moduleId: b.module_id,
          entityId: b.entity_id,
          topK: b.top_k,
          threshold: b.threshold,
        },
        forwarding(request),
      );
    },
  );

  routes.get<{ Querystring: UsageQuery }>(
    '/api/ai/usage',
    {
      schema: {
        tags: ['ai-broker'],
        summary:
          "The tenant's usage (requests, tokens, cost by model) from `from` (default today 00:00 UTC) to `to` (default now)",
        querystring: UsageQuery,
        response: responses(UsageResponse),
      },
    },
    async (request) => {
      const u = await broker.usage(callerOf(request), request.query);
      return {
        ...u,
        prompt_tokens: u.promptTokens,
        completion_tokens: u.completionTokens,
        total_tokens: u.totalTokens,
        by_model: u.byModel.map((m) => ({
          model: m.model,
          requests: m.requests,
          total_tokens: m.totalTokens,
          cost: m.cost,
        })),
      };
    },
  );

  routes.get<{ Params: TokenParams }>(
    '/api/ai/tokens/:token',
    {
      config: { inputLocation: 'path' },
      schema: {
        tags: ['ai-broker'],
        summary:
          "The value behind one of the tenant's PII tokens (scope pii:detokenize only; another tenant's token is 404)",
        params: TokenParams,
        response: responses(TokenResponse),
      },
    },
    async (request) => broker.revealToken(callerOf(request), request.params.token),
  );
}
