// The OCR subgraph's resolvers: thin adapters over OcrService. Uploads arrive through the
// router's multipart forwarding (graphql-upload-ts); progress is a subscription that follows the
// job's row (the state lives in ocr_jobs, so any copy of the service can serve it).
import type { FileUpload } from 'graphql-upload-ts';
import { GraphQLUpload } from 'graphql-upload-ts';
import { PayloadTooLargeError } from '../../platform/errors/domain-errors';
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { InputError } from '../../platform/errors/domain-errors';
import type { OcrContext } from './graphql.context';
import { UnsupportedDocumentError } from './ocr.service';
import type { OcrJob, Tier } from './ocr.types';
import { orNull } from '../../platform/graphql/resolver-args';
import type { Resolvers } from './resolvers.generated';

export type { OcrContext } from './graphql.context';

const upper = (s: string) => s.toUpperCase();
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
    ocrJob: (_: unknown, args: { id: string }, ctx: OcrContext) => orNull(ctx.ocr.job(ctx.caller, args.id)),
    ocrReviewQueue: (_: unknown, args: { limit?: number | null }, ctx: OcrContext) => ctx.ocr.reviewQueue(ctx.caller, undefined, args.limit ?? 50),
    ocrStats: async (_: unknown, args: { tenantId?: string | null }, ctx: OcrContext) => {
      const s = await ctx.ocr.stats(ctx.caller, args.tenantId ?? undefined);
      return { ...s, cacheEntries: s.cache.entries, cacheHits: s.cache.hits };
    },
  },
  Mutation: {
    extract: async (_: unknown, args: { file: Promise<FileUpload>; indexInRag?: boolean | null }, ctx: OcrContext) => {
      const file = await args.file;
      const bytes = await readAll(file, ctx.maxBytes);
      try {
        return await ctx.ocr.extract(ctx.caller, { bytes, filename: file.filename || null, indexInRag: args.indexInRag ?? false, token: ctx.token });
      } catch (err) {
        // GraphQL has no 415: an unsupported type is bad input naming the file.
        if (err instanceof UnsupportedDocumentError) throw InputError.of(['file'], err.message, 'value_error.unsupported_type');
        throw err;
      }
    },
    reviewOcrJob: (_: unknown, args: { id: string; input: { correctedText: string; correctedFields?: unknown; confidenceAfterReview?: number | null } }, ctx: OcrContext) =>
      ctx.ocr.review(ctx.caller, args.id, {
        correctedText: args.input.correctedText, correctedFields: (args.input.correctedFields ?? null) as never, confidenceAfterReview: args.input.confidenceAfterReview ?? undefined,
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
    __resolveReference: (ref: { id: string }, ctx: OcrContext) => ctx.loaders.jobById.load(ref.id),
    status: (j: OcrJob) => upper(j.status),
    tierUsed: (j: OcrJob) => (j.tierUsed ? upper(j.tierUsed) : null),
    pages: (j: OcrJob) => j.pages.map((p) => ({ ...p, source: upper(p.source as Tier) })),
    progress: (j: OcrJob) => ({ pagesDone: j.pagesDone, pageCount: j.pageCount }),
    createdAt: (j: OcrJob) => j.createdAt.toISOString(),
    completedAt: (j: OcrJob) => j.completedAt?.toISOString() ?? null,
  },
} satisfies Resolvers;
