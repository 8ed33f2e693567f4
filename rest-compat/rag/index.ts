// The retrieval service's documented REST routes (spec 02, port 8138), both route sets, as thin
// adapters over subgraphs/rag's services: each builds the Caller, calls one domain method and
// shapes the JSON (snake_case, the spec's names). Uploads are multipart (@fastify/multipart):
// one `file` part plus the form fields; an oversized file is 413, an unsupported type 415.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import { InputError } from '../../platform/errors/domain-errors';
import { callerOf } from '../../platform/http/caller';
import type { AnswerService } from '../../subgraphs/rag/answer.service';
import type { DocumentService } from '../../subgraphs/rag/document.service';
import type { Conversation, IngestJob, RagDocument, RetrievedChunk } from '../../subgraphs/rag/rag.types';
import type { RetrievalService } from '../../subgraphs/rag/retrieval.service';
import { ChunkPageQuery, IdParams, IngestBody, ListQuery, QueryBody, RetrieveBody } from './rag.schemas';

const forwarding = (request: FastifyRequest) => ({ token: bearerToken(request.headers.authorization) });

/**
 * The domain's field `query` would read as a location (["query"]) to the error handler: name
 * it in the body explicitly.
 */
async function bodyField<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof InputError)
      throw new InputError(
        err.issues.map((i) => (i.loc.length === 1 && i.loc[0] === 'query' ? { ...i, loc: ['body', 'query'] } : i)),
      );
    throw err;
  }
}
const tags = ['rag'];

export function documentJson(d: RagDocument) {
  return {
    id: d.id,
    title: d.title,
    level: d.level,
    suite_id: d.suiteId,
    module_id: d.moduleId,
    entity_id: d.entityId,
    description: d.description,
    source_type: d.sourceType,
    file_size: d.fileSize,
    access_level: d.accessLevel,
    status: d.status,
    doc_metadata: d.docMetadata,
    chunks_count: d.chunksCount,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

export function chunkJson(c: RetrievedChunk) {
  return {
    content: c.content,
    document_title: c.documentTitle,
    score: c.score,
    heading: c.heading,
    document_id: c.documentId,
    level: c.level,
    similarity: Math.round(c.similarity * 1e6) / 1e6,
  };
}

export function jobJson(j: IngestJob) {
  return {
    job_id: j.id,
    status: j.status,
    percent: j.percent,
    stage: j.stage,
    document_id: j.documentId,
    error: j.error,
    created_at: j.createdAt.toISOString(),
    updated_at: j.updatedAt.toISOString(),
  };
}

export function conversationJson(c: Conversation) {
  return {
    conversation_id: c.id,
    id: c.id,
    status: c.status,
    user_id: c.userId,
    context: {
      suite_id: c.context.suiteId ?? null,
      module_id: c.context.moduleId ?? null,
      entity_id: c.context.entityId ?? null,
    },
    messages: c.messages.map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      chunks_used: m.chunksUsed,
      created_at: m.createdAt.toISOString(),
    })),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

const scopeOf = (b: { suite_id?: string; module_id?: string; entity_id?: string }) => ({
  suiteId: b.suite_id,
  moduleId: b.module_id,
  entityId: b.entity_id,
});

export interface RagRouteDeps {
  documents: DocumentService;
  retrieval: RetrievalService;
  answers: AnswerService;
  version: string;
  maxUploadBytes: number;
}

export async function registerRagRoutes(routes: FastifyInstance, deps: RagRouteDeps): Promise<void> {
  const { documents, retrieval, answers } = deps;
  await routes.register(multipart, {
    limits: { fileSize: deps.maxUploadBytes, files: 1, fields: 20, fieldSize: 100_000, parts: 25 },
  });

  routes.get(
    '/',
    { config: { auth: 'public' }, schema: { tags, summary: 'Service metadata and features' } },
    async () => ({
      service: 'rag',
      version: deps.version,
      description:
        'Knowledge retrieval: documents in a four-level hierarchy (platform, suite, module, entity), cascading semantic and hybrid search, answers through the AI broker with a semantic cache, conversations, tenant isolation, soft delete',
      features: [
        'semantic_search',
        'hybrid_search',
        'cascading_context',
        'semantic_cache',
        'conversation_history',
        'document_upload',
        'automatic_chunking',
        'tenant_isolation',
        'soft_delete',
      ],
      embedding_model: retrieval.embedder.name,
    }),
  );

  const retrieve = (request: FastifyRequest<{ Body: RetrieveBody }>, useHybrid: boolean) =>
    bodyField(async () => {
      const b = request.body;
      const caller = callerOf(request);
      const tenantId = await documents.tenant(caller, 'search documents');
      const parsed = retrieval.parse(
        { query: b.query, ...scopeOf(b), topK: b.top_k, useHybrid: b.use_hybrid },
        { useHybrid },
      );
      const r = await retrieval.retrieve(caller, tenantId, parsed);
      return {
        query: r.query,
        chunks: r.chunks.map(chunkJson),
        retrieval_time_ms: r.retrievalTimeMs,
        hierarchy_levels: r.levels,
        use_hybrid: parsed.useHybrid,
      };
    });

  routes.post<{ Body: RetrieveBody }>(
    '/retrieve',
    {
      schema: {
        tags,
        summary: 'Ranked chunks for a query in a cascading scope (most specific context first)',
        body: RetrieveBody,
      },
    },
    (request) => retrieve(request, false),
  );

  routes.post<{ Body: RetrieveBody }>(
    '/v1/rag/search',
    {
      schema: {
        tags,
        summary: 'Hierarchical search (hybrid by default): `results` and `chunks` carry the same ranked chunks',
        body: RetrieveBody,
      },
    },
    async (request) => {
      const r = await retrieve(request, true);
      return { ...r, results: r.chunks };
    },
  );

  routes.post<{ Body: QueryBody }>(
    '/query',
    {
      schema: {
        tags,
        summary:
          'An answer through the AI broker from the retrieved context, with its sources; semantic cache; conversations',
        body: QueryBody,
      },
    },
    async (request) => {
      const b = request.body;
      const a = await bodyField(() =>
        answers.query(
          callerOf(request),
          {
            query: b.query,
            ...scopeOf(b),
            topK: b.top_k,
            useHybrid: b.use_hybrid,
            useCache: b.use_cache,
            maxTokens: b.max_tokens,
            conversationId: b.conversation_id,
          },
          forwarding(request),
        ),
      );
      return {
        query: a.query,
        answer: a.answer,
        chunks_used: a.chunksUsed,
        document_sources: a.documentSources,
        model: a.model,
        tokens_used: a.tokensUsed,
        cache_hit: a.cacheHit,
        correlation_id: a.correlationId,
        conversation_id: a.conversationId,
      };
    },
  );

  routes.post(
    '/documents/upload',
    {
      schema: {
        tags,
        summary:
          'Upload a document (multipart: file, title, level, suite_id, module_id, entity_id, description, access_level); text, Markdown, HTML, PDF; scans and images through OCR',
        consumes: ['multipart/form-data'],
      },
    },
    async (request, reply) => {
      if (!request.isMultipart())
        return reply.code(415).send({ detail: 'Send the document as multipart/form-data with a `file` part' });
      const fields: Record<string, string> = {};
      let file: { bytes: Buffer; filename: string; mimeType?: string } | undefined;
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file' || file) {
            await part.toBuffer();
            continue;
          }
          file = { bytes: await part.toBuffer(), filename: part.filename ?? 'upload', mimeType: part.mimetype };
        } else if (typeof part.value === 'string') {
          fields[part.fieldname] = part.value;
        }
      }
      const { document, duplicate } = await documents.upload(
        callerOf(request),
        file,
        {
          title: fields.title,
          level: fields.level,
          suiteId: fields.suite_id,
          moduleId: fields.module_id,
          entityId: fields.entity_id,
          description: fields.description,
          accessLevel: fields.access_level,
        },
        forwarding(request),
      );
      return {
        id: document.id,
        title: document.title,
        level: document.level,
        chunks_count: document.chunksCount,
        status: document.status,
        duplicate,
      };
    },
  );

  const list = async (request: FastifyRequest<{ Querystring: ListQuery }>) => {
    const q = request.query;
    const page = await documents.list(callerOf(request), {
      level: q.level,
      suiteId: q.suite_id,
      moduleId: q.module_id,
      limit: q.limit,
      offset: q.offset,
    });
    return { documents: page.items.map(documentJson), total: page.total, limit: page.limit, offset: page.offset };
  };
  routes.get<{ Querystring: ListQuery }>(
    '/documents',
    {
      config: { inputLocation: 'query' },
      schema: {
        tags,
        summary: "The tenant's active documents, newest first (filters level, suite_id, module_id; limit, offset)",
        querystring: ListQuery,
      },
    },
    list,
  );
  routes.get<{ Querystring: ListQuery }>(
    '/v1/rag/knowledge',
    {
      config: { inputLocation: 'query' },
      schema: {
        tags,
        summary: 'The knowledge base (as GET /documents, items under `items` too)',
        querystring: ListQuery,
      },
    },
    async (request) => {
      const page = await list(request);
      return { ...page, items: page.documents };
    },
  );

  routes.get<{ Params: IdParams }>(
    '/documents/:id',
    {
      config: { inputLocation: 'path' },
      schema: { tags, summary: 'One active document', params: IdParams },
    },
    async (request) => documentJson(await documents.get(callerOf(request), request.params.id)),
  );

  routes.get<{ Params: IdParams; Querystring: ChunkPageQuery }>(
    '/documents/:id/chunks',
    {
      config: { inputLocation: 'query' },
      schema: {
        tags,
        summary:
          "One active document's text as its chunks in order, paged (after, limit); next_after null on the last page",
        params: IdParams,
        querystring: ChunkPageQuery,
      },
    },
    async (request) => {
      const page = await documents.chunks(callerOf(request), request.params.id, request.query);
      return {
        document_id: request.params.id,
        chunks: page.chunks.map((c) => ({ ord: c.ord, heading: c.heading, content: c.content })),
        next_after: page.nextAfter,
      };
    },
  );

  const remove = async (request: FastifyRequest<{ Params: IdParams }>) => {
    const d = await documents.delete(callerOf(request), request.params.id);
    return {
      id: d.id,
      status: 'deleted',
      message: 'Document soft-deleted: kept for audit, no longer listed or retrieved',
    };
  };
  routes.delete<{ Params: IdParams }>(
    '/documents/:id',
    { config: { inputLocation: 'path' }, schema: { tags, summary: 'Soft-delete a document', params: IdParams } },
    remove,
  );
  routes.delete<{ Params: IdParams }>(
    '/v1/rag/knowledge/:id',
    { config: { inputLocation: 'path' }, schema: { tags, summary: 'Soft-delete a document', params: IdParams } },
    remove,
  );

  routes.post<{ Body: IngestBody }>(
    '/v1/rag/ingest',
    {
      schema: {
        tags,
        summary: 'Ingest a text with its scope as a job (202); follow it at GET /v1/rag/progress/{job_id}',
        body: IngestBody,
      },
    },
    async (request, reply) => {
      const b = request.body;
      const job = await documents.startIngest(callerOf(request), {
        title: b.title,
        content: b.content,
        level: b.level,
        ...scopeOf(b),
        description: b.description,
        accessLevel: b.access_level,
        source: b.source,
        metadata: b.metadata,
      });
      return reply.code(202).send(jobJson(job));
    },
  );

  routes.get<{ Params: { job_id: string } }>(
    '/v1/rag/progress/:job_id',
    {
      config: { inputLocation: 'path' },
      schema: {
        tags,
        summary: 'An ingestion job: queued, processing (percent, stage), completed (document_id) or failed (error)',
      },
    },
    async (request) => jobJson(await documents.job(callerOf(request), request.params.job_id)),
  );

  routes.post(
    '/conversations',
    {
      schema: {
        tags,
        summary:
          'Start a conversation (optional JSON body: suite_id, module_id, entity_id); ask in it with POST /query conversation_id',
      },
    },
    async (request, reply) => {
      const b = (request.body ?? {}) as Record<string, unknown>;
      return reply.code(201).send(
        conversationJson(
          await answers.startConversation(callerOf(request), {
            suiteId: b.suite_id,
            moduleId: b.module_id,
            entityId: b.entity_id,
          }),
        ),
      );
    },
  );

  routes.get<{ Params: IdParams }>(
    '/conversations/:id',
    {
      config: { inputLocation: 'path' },
      schema: { tags, summary: 'A conversation and its history', params: IdParams },
    },
    async (request) => conversationJson(await answers.conversation(callerOf(request), request.params.id)),
  );

  routes.delete<{ Params: IdParams }>(
    '/conversations/:id',
    {
      config: { inputLocation: 'path' },
      schema: { tags, summary: 'End a conversation (its history is removed)', params: IdParams },
    },
    async (request) => {
      await answers.endConversation(callerOf(request), request.params.id);
      return { conversation_id: request.params.id, status: 'ended' };
    },
  );
}
