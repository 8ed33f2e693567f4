// Route schemas of the AI broker's REST door (TypeBox): input validation (FastAPI's 422 body) and
// the OpenAPI document. Field rules beyond types live in the domain, so both doors agree.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const AnyObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const InferenceBody = Type.Object(
  {
    prompt: Type.Optional(
      Type.String({ description: 'Required unless template_id is given (then it follows the rendered template)' }),
    ),
    model: Type.Optional(
      Type.String({
        description:
          'A catalogue model id; routed by cost, latency and compliance when absent (DEFAULT_MODEL when set)',
      }),
    ),
    use_rag: Type.Optional(
      Type.Boolean({ default: false, description: 'Add context from the retrieval service (threshold 0.5, top 5)' }),
    ),
    context: Type.Optional(
      Type.Object(
        {
          suite_id: Type.Optional(Type.String()),
          module_id: Type.Optional(Type.String()),
          entity_id: Type.Optional(
            Type.String({ description: "This platform's addition: retrieval's entity level, searched first" }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    max_tokens: Type.Optional(
      Type.Integer({ description: 'Most tokens of the answer (AI_DEFAULT_MAX_TOKENS when absent)' }),
    ),
    template_id: Type.Optional(Type.String()),
    template_version: Type.Optional(Type.Integer({ description: 'The newest version when absent' })),
    variables: Type.Optional(AnyObject("Values of the template's variables")),
    system: Type.Optional(Type.String({ description: "A system prompt instead of the broker's" })),
    stream: Type.Optional(
      Type.Boolean({ default: false, description: 'Answer as server-sent events: start, token (repeated), done' }),
    ),
    detokenize: Type.Optional(
      Type.Boolean({
        default: false,
        description: `Put this request's own tokenized values back into the answer (scope pii:detokenize)`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type InferenceBody = Static<typeof InferenceBody>;

const Attempt = Type.Object({
  model: Type.String(),
  provider: Type.String(),
  outcome: Type.String(),
  reason: Type.Optional(Type.String()),
  latency_ms: Type.Optional(Type.Number()),
});

export const InferenceResponse = Type.Object({
  response: Type.String(),
  model_used: Type.String(),
  tokens_used: Type.Integer(),
  rag_chunks_used: Type.Integer(),
  sources: Type.Array(Type.String()),
  correlation_id: Type.String(),
  provider: Type.String(),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  cost: Type.Number(),
  latency_ms: Type.Number(),
  rag_unavailable: Type.Boolean({
    description: 'use_rag was asked and the retrieval service could not be reached: answered without context',
  }),
  attempts: Type.Array(Attempt),
  redactions: Type.Object({ input: AnyObject('Spans per category'), output: AnyObject('Spans per category') }),
  template: Type.Union([Type.Object({ template_id: Type.String(), version: Type.Integer() }), Type.Null()]),
});

export const ExplainBody = Type.Object(
  {
    rule_id: Type.Optional(Type.String()),
    failure_data: Type.Optional(
      AnyObject('The failure as the validation service reported it (field, message, operator, expected, actual...)'),
    ),
    include_remediation: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type ExplainBody = Static<typeof ExplainBody>;

export const ExplainResponse = Type.Object({
  rule_id: Type.String(),
  explanation: Type.String(),
  remediation: Type.Union([Type.String(), Type.Null()]),
  model_used: Type.String(),
  tokens_used: Type.Integer(),
  correlation_id: Type.String(),
  attempts: Type.Array(Attempt),
});

export const GenerateWorkflowBody = Type.Object(
  {
    description: Type.Optional(Type.String()),
    domain: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type GenerateWorkflowBody = Static<typeof GenerateWorkflowBody>;

export const GenerateWorkflowResponse = Type.Object({
  workflow_pack: AnyObject(
    "The pack in spec 02's shape, `id`, `name` and `steps[{name, type}]`, beside the workflow-pack members (metadata.pack_id, metadata.name, steps[].step)",
  ),
  artifact: AnyObject(
    'The same pack exactly as the workflow-pack schema wants it (platform/contracts/workflow-pack.schema.json, as the schema registry serves it): submit this one to the packs registry',
  ),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  model_used: Type.String(),
  schema_source: Type.String({
    description: 'registry@<version>, or contract-file when the schema registry was unreachable',
  }),
  correlation_id: Type.String(),
  attempts: Type.Array(Attempt),
});

const Model = Type.Object({
  id: Type.String(),
  provider: Type.String(),
  status: Type.String(),
  cost_per_1k_tokens: Type.Number(),
  context_window: Type.Integer(),
  tags: Type.Array(Type.String()),
  description: Type.String(),
});
export const ModelsResponse = Type.Object({ models: Type.Array(Model) });
export const ModelStatusResponse = Type.Intersect([
  Model,
  Type.Object({
    latency_ms: Type.Union([Type.Number(), Type.Null()]),
    cooldown_seconds: Type.Integer(),
    last_error: Type.Union([Type.String(), Type.Null()]),
    last_checked_at: Type.Union([Type.String(), Type.Null()]),
  }),
]);
export const ModelTestResponse = Type.Object({
  model_id: Type.String(),
  available: Type.Boolean(),
  status: Type.String(),
  latency_ms: Type.Union([Type.Number(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  tested_at: Type.String(),
});
export const ModelParams = Type.Object({ model_id: Type.String({ minLength: 1, maxLength: 100 }) });
export type ModelParams = Static<typeof ModelParams>;

export const TemplateBody = Type.Object(
  {
    template_id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    template: Type.Optional(Type.String({ description: 'Text with {{variable}} placeholders' })),
    variables: Type.Optional(
      Type.Array(Type.Unknown(), {
        description:
          'Names, or {name, description, required, default} objects; every placeholder declared, every declared one used',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TemplateBody = Static<typeof TemplateBody>;

export const Template = Type.Object({
  template_id: Type.String(),
  version: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  template: Type.String(),
  variables: Type.Array(AnyObject('name, description, required, default')),
  created_at: Type.String(),
  created_by: Type.Union([Type.String(), Type.Null()]),
  versions: Type.Array(Type.Integer()),
});
export const TemplatesResponse = Type.Object({ templates: Type.Array(Template) });
export const TemplateParams = Type.Object({ template_id: Type.String({ minLength: 1, maxLength: 100 }) });
export type TemplateParams = Static<typeof TemplateParams>;
export const TemplateQuery = Type.Object({ version: Type.Optional(Type.Integer({ minimum: 1 })) });
export type TemplateQuery = Static<typeof TemplateQuery>;

export const RagSearchBody = Type.Object(
  {
    query: Type.Optional(Type.String()),
    suite_id: Type.Optional(Type.String()),
    module_id: Type.Optional(Type.String()),
    entity_id: Type.Optional(Type.String()),
    top_k: Type.Optional(Type.Integer({ default: 5 })),
    threshold: Type.Optional(Type.Number({ default: 0.5 })),
  },
  { additionalProperties: false },
);
export type RagSearchBody = Static<typeof RagSearchBody>;
export const RagSearchResponse = Type.Object({
  query: Type.String({ description: 'The query as sent to the retrieval service (redacted)' }),
  chunks: Type.Array(
    Type.Object({
      content: Type.String(),
      document_title: Type.String(),
      score: Type.Number(),
      heading: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  total: Type.Integer(),
});

export const UsageQuery = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 64 })),
  to: Type.Optional(Type.String({ maxLength: 64 })),
});
export type UsageQuery = Static<typeof UsageQuery>;
export const UsageResponse = Type.Object({
  tenant_id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  requests: Type.Integer(),
  failed: Type.Integer(),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cost: Type.Number(),
  by_model: Type.Array(
    Type.Object({ model: Type.String(), requests: Type.Integer(), total_tokens: Type.Integer(), cost: Type.Number() }),
  ),
});

export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
export type TokenParams = Static<typeof TokenParams>;
export const TokenResponse = Type.Object({ token: Type.String(), category: Type.String(), value: Type.String() });

export const ServiceInfo = Type.Object({
  service: Type.String(),
  version: Type.String(),
  description: Type.String(),
  endpoints: Type.Array(Type.String()),
});

export const Detail = Type.Object({ detail: Type.Unknown() });

export function responses(ok: TSchema): Record<number, TSchema> {
  return { 200: ok, 401: Detail, 403: Detail, 404: Detail, 422: Detail, 429: Detail, 503: Detail };
}
