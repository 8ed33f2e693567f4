// The OCR subgraph's resolvers: thin adapters over OcrService. Uploads arrive through the
// router's multipart forwarding (graphql-upload-ts); progress is a subscription that follows the
// job's row (the state lives in ocr_jobs, so any copy of the service can serve it).
import type { FileUpload } from 'graphql-upload-ts';
import { GraphQLUpload } from 'graphql-upload-ts';
import { InputError, PayloadTooLargeError } from '../../platform/errors/domain-errors';
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { opt, orNull, upper } from '../../platform/graphql/resolver-args';
import type { OcrGraphQLContext as OcrContext } from './graphql.context';
import { UnsupportedDocumentError } from './ocr.service';
import type { ExtractedFields, OcrJob } from './ocr.types';
import type { Resolvers } from './resolvers.generated';

export type { OcrGraphQLContext as OcrContext } from './graphql.context';

const FINAL = new Set(['completed', 'review', 'failed']);

async function readAll(file: FileUpload, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of file.createReadStream()) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new PayloadTooLargeError(`The file is larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** correctedFields is any JSON in the SDL; the job keeps an object of fields, as REST's schema requires. */
function correctedFieldsIn(value: unknown): ExtractedFields | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    throw InputError.of(['input', 'correctedFields'], 'Input should be a valid dictionary', 'dict_type');
  // Its entries are the reviewer's own, kept as given (REST accepts any properties too).
  return value as ExtractedFields;
}

/** Follows a job's row until it is final: each change once, then the end. */
async function* progressOf(ctx: OcrContext, id: string): AsyncGenerator<OcrJob> {
  let last = '';
  for (;;) {
    const job = await ctx.ocr.job(ctx.caller, id);
    const key = `${job.status}:${job.pagesDone}:${job.updatedAt.getTime()}`;
    if (key !== last) {
      last = key;
      yield job;
    }
    if (FINAL.has(job.status)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export const resolvers = {
  Upload: GraphQLUpload,
  JSON: JSONScalar,
  Query: {
    ocrJob: (_, args, ctx) => orNull(ctx.ocr.job(ctx.caller, args.id)),
    ocrReviewQueue: (_, args, ctx) => ctx.ocr.reviewQueue(ctx.caller, undefined, args.limit),
    ocrStats: async (_, args, ctx) => {
      const s = await ctx.ocr.stats(ctx.caller, opt(args.tenantId));
      return { ...s, cacheEntries: s.cache.entries, cacheHits: s.cache.hits };
    },
  },
  Mutation: {
    extract: async (_, args, ctx) => {
      const file = await args.file;
      const bytes = await readAll(file, ctx.maxBytes);
      try {
        return await ctx.ocr.extract(ctx.caller, {
          bytes,
          filename: file.filename || null,
          indexInRag: args.indexInRag ?? false,
          token: ctx.token,
        });
      } catch (err) {
        // GraphQL has no 415: an unsupported type is bad input naming the file.
        if (err instanceof UnsupportedDocumentError)
          throw InputError.of(['file'], err.message, 'value_error.unsupported_type');
        throw err;
      }
    },
    reviewOcrJob: (_, args, ctx) =>
      ctx.ocr.review(ctx.caller, args.id, {
        correctedText: args.input.correctedText,
        correctedFields: correctedFieldsIn(args.input.correctedFields),
        confidenceAfterReview: opt(args.input.confidenceAfterReview),
      }),
  },
  Subscription: {
    ocrJobProgress: {
      subscribe: async (_: unknown, args: { id: string }, ctx: OcrContext) => {
        await ctx.ocr.job(ctx.caller, args.id); // 404 before the stream starts
        return (async function* () {
          for await (const job of progressOf(ctx, args.id)) yield { ocrJobProgress: job };
        })();
      },
    },
  },
  OcrJob: {
    __resolveReference: (ref, ctx) => ctx.loaders.jobById.load(ref.id),
    status: (j) => upper(j.status),
    tierUsed: (j) => (j.tierUsed ? upper(j.tierUsed) : null),
    pages: (j) => j.pages.map((p) => ({ ...p, source: upper(p.source) })),
    progress: (j) => ({ pagesDone: j.pagesDone, pageCount: j.pageCount }),
    createdAt: (j) => j.createdAt.toISOString(),
    completedAt: (j) => j.completedAt?.toISOString() ?? null,
  },
} satisfies Resolvers;
