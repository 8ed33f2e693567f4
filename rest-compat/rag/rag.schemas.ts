// Route schemas of the retrieval service's REST door (TypeBox): types at the edge (FastAPI's 422
// body) and the OpenAPI document. Rules beyond types (top_k range, scope ids, levels) live in the
// domain so REST and GraphQL agree.
import { Type, type Static } from '@sinclair/typebox';

const ScopeId = (what: string) =>
  Type.Optional(Type.String({ description: `${what} id (1-100 characters: letters, digits and _ . : @ -)` }));

export const RetrieveBody = Type.Object(
  {
    query: Type.String({ description: 'The question or search text' }),
    suite_id: ScopeId('Suite'),
    module_id: ScopeId('Module'),
    entity_id: ScopeId('Entity'),
    top_k: Type.Optional(
      Type.Integer({ description: 'How many chunks (default DEFAULT_TOP_K 5, at most MAX_TOP_K 20)' }),
    ),
    use_hybrid: Type.Optional(
      Type.Boolean({
        description:
          'Vector 80% + full text 20%, merged by reciprocal rank fusion (default false on /retrieve, true on /v1/rag/search)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RetrieveBody = Static<typeof RetrieveBody>;

export const QueryBody = Type.Object(
  {
    query: Type.String(),
    suite_id: ScopeId('Suite'),
    module_id: ScopeId('Module'),
    entity_id: ScopeId('Entity'),
    top_k: Type.Optional(Type.Integer()),
    use_cache: Type.Optional(
      Type.Boolean({
        description:
          'Answer from the semantic cache when a query within cosine 0.95 was answered in this scope (default true)',
      }),
    ),
    use_hybrid: Type.Optional(Type.Boolean({ description: 'default true' })),
    max_tokens: Type.Optional(Type.Integer()),
    conversation_id: Type.Optional(
      Type.String({ description: 'Ask within a conversation: its recent turns go with the question' }),
    ),
  },
  { additionalProperties: false },
);
export type QueryBody = Static<typeof QueryBody>;

export const IngestBody = Type.Object(
  {
    title: Type.String(),
    content: Type.String({ description: "The document's text (plain text or Markdown)" }),
    level: Type.Optional(Type.String({ description: 'platform (default), suite, module or entity' })),
    suite_id: ScopeId('Suite'),
    module_id: ScopeId('Module'),
    entity_id: ScopeId('Entity'),
    description: Type.Optional(Type.String()),
    access_level: Type.Optional(Type.String({ description: 'internal (default), external or public' })),
    source: Type.Optional(Type.String({ description: 'Where the text came from (a URL, an OCR job)' })),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);
export type IngestBody = Static<typeof IngestBody>;

export const ListQuery = Type.Object(
  {
    level: Type.Optional(Type.String()),
    suite_id: Type.Optional(Type.String()),
    module_id: Type.Optional(Type.String()),
    limit: Type.Optional(Type.Integer({ description: '1-500, default 50' })),
    offset: Type.Optional(Type.Integer({ description: 'default 0' })),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuery>;

export const ChunkPageQuery = Type.Object(
  {
    after: Type.Optional(
      Type.Integer({ description: 'the last chunk ord of the previous page; -1 (default) for the first' }),
    ),
    limit: Type.Optional(Type.Integer({ description: '1-500, default 100' })),
  },
  { additionalProperties: false },
);
export type ChunkPageQuery = Static<typeof ChunkPageQuery>;

export const IdParams = Type.Object({ id: Type.String() });
export type IdParams = Static<typeof IdParams>;
