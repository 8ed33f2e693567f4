// The rag subgraph's resolvers: thin adapters over the same services as REST. Input problems are
// BAD_USER_INPUT with extensions.field in GraphQL names (topK, suiteId...), as the domain names them.
import { GraphQLUpload, type FileUpload } from 'graphql-upload-ts';
import { InputError, PayloadTooLargeError } from '../../platform/errors/domain-errors';
import { JSONScalar } from '../../platform/graphql/json-scalar';
import type { Conversation, IngestJob, RagDocument, RetrievedChunk } from './rag.types';
import { type Opt, opt, orNull } from '../../platform/graphql/resolver-args';
import type { Resolvers } from './resolvers.generated';

const MAX_UPLOAD_BYTES_FALLBACK = 20 * 1024 * 1024;

function documentNode(d: RagDocument) {
  return { ...d, metadata: d.docMetadata, createdAt: d.createdAt.toISOString(), updatedAt: d.updatedAt.toISOString() };
}

function chunkNode(c: RetrievedChunk) {
  return {
    content: c.content,
    documentTitle: c.documentTitle,
    heading: c.heading,
    score: c.score,
    level: c.level,
    documentId: c.documentId,
  };
}

function conversationNode(c: Conversation) {
  return {
    id: c.id,
    suiteId: c.context.suiteId ?? null,
    moduleId: c.context.moduleId ?? null,
    entityId: c.context.entityId ?? null,
    status: c.status,
    messages: c.messages.map((m) => ({ ...m, createdAt: m.createdAt.toISOString() })),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

const jobNode = (j: IngestJob) => ({
  jobId: j.id,
  status: j.status,
  percent: j.percent,
  stage: j.stage,
  documentId: j.documentId,
  error: j.error,
});

/** What a Chunk and an IngestJob resolve from (the generated types' mappers): their document's id. */
export type ChunkNode = ReturnType<typeof chunkNode>;
export type IngestJobNode = ReturnType<typeof jobNode>;

async function readUpload(
  upload: Promise<FileUpload>,
  maxBytes: number,
): Promise<{ bytes: Buffer; filename: string; mimeType: string }> {
  const file = await upload;
  const parts: Buffer[] = [];
  let size = 0;
  for await (const piece of file.createReadStream()) {
    size += (piece as Buffer).length;
    if (size > maxBytes) throw new PayloadTooLargeError(`The file is larger than ${maxBytes} bytes`);
    parts.push(piece as Buffer);
  }
  return { bytes: Buffer.concat(parts), filename: file.filename, mimeType: file.mimetype };
}

interface ScopeArgs {
  suiteId?: Opt<string>;
  moduleId?: Opt<string>;
  entityId?: Opt<string>;
}
const scope = (a: ScopeArgs) => ({ suiteId: opt(a.suiteId), moduleId: opt(a.moduleId), entityId: opt(a.entityId) });

export const resolvers = {
  JSON: JSONScalar,
  Upload: GraphQLUpload,
  Document: {
    __resolveReference: async (ref, ctx) => {
      const doc = await ctx.loaders.documentById.load(ref.id);
      return doc ? documentNode(doc) : null;
    },
  },
  Chunk: {
    document: (c, _, ctx) => ctx.documents.get(ctx.caller, c.documentId).then(documentNode),
  },
  IngestJob: {
    document: (j, _, ctx) =>
      j.documentId ? orNull(ctx.documents.get(ctx.caller, j.documentId).then(documentNode)) : null,
  },
  Query: {
    search: async (_, a, ctx) => {
      const tenantId = await ctx.documents.tenant(ctx.caller, 'search documents');
      const parsed = ctx.retrieval.parse(
        { query: a.query, ...scope(a), topK: opt(a.topK), useHybrid: opt(a.useHybrid) },
        { useHybrid: true },
      );
      const r = await ctx.retrieval.retrieve(ctx.caller, tenantId, parsed);
      return {
        query: r.query,
        chunks: r.chunks.map(chunkNode),
        retrievalTimeMs: r.retrievalTimeMs,
        hierarchyLevels: r.levels,
      };
    },
    documents: async (_, a, ctx) => {
      const page = await ctx.documents.list(ctx.caller, {
        level: opt(a.level),
        suiteId: opt(a.suiteId),
        moduleId: opt(a.moduleId),
        limit: opt(a.limit),
        offset: opt(a.offset),
      });
      return { ...page, items: page.items.map(documentNode) };
    },
    document: (_, a, ctx) => orNull(ctx.documents.get(ctx.caller, a.id).then(documentNode)),
    conversation: (_, a, ctx) => orNull(ctx.answers.conversation(ctx.caller, a.id).then(conversationNode)),
    ingestJob: (_, a, ctx) => orNull(ctx.documents.job(ctx.caller, a.jobId).then(jobNode)),
  },
  Mutation: {
    uploadDocument: async (_, a, ctx) => {
      const file = await readUpload(a.file, ctx.maxUploadBytes ?? MAX_UPLOAD_BYTES_FALLBACK);
      const r = await ctx.documents.upload(
        ctx.caller,
        file,
        {
          title: a.title,
          level: opt(a.level),
          ...scope(a),
          description: opt(a.description),
          accessLevel: opt(a.accessLevel),
        },
        ctx.forward,
      );
      return { document: documentNode(r.document), duplicate: r.duplicate };
    },
    ingestDocument: async (_, a, ctx) =>
      jobNode(
        await ctx.documents.startIngest(ctx.caller, {
          title: a.title,
          content: a.content,
          level: opt(a.level),
          ...scope(a),
          description: opt(a.description),
          accessLevel: opt(a.accessLevel),
        }),
      ),
    deleteDocument: async (_, a, ctx) => documentNode(await ctx.documents.delete(ctx.caller, a.id)),
    ask: async (_, a, ctx) =>
      ctx.answers.query(
        ctx.caller,
        {
          query: a.query,
          ...scope(a),
          topK: opt(a.topK),
          useCache: opt(a.useCache),
          useHybrid: opt(a.useHybrid),
          maxTokens: opt(a.maxTokens),
          conversationId: opt(a.conversationId),
        },
        ctx.forward,
      ),
    startConversation: async (_, a, ctx) => conversationNode(await ctx.answers.startConversation(ctx.caller, scope(a))),
    endConversation: async (_, a, ctx) => {
      await ctx.answers.endConversation(ctx.caller, a.id);
      return true;
    },
  },
  Subscription: {
    ingestionProgress: {
      subscribe: (_, a, ctx) => {
        if (!ctx.subscribeProgress)
          throw InputError.of(['subscription'], 'Subscriptions are served over graphql-ws on /graphql');
        return ctx.subscribeProgress(a.jobId);
      },
      resolve: (j: IngestJob) => jobNode(j),
    },
  },
} satisfies Resolvers;
