// The ingestion subgraph's resolvers: thin adapters over the pipeline and batch services.
// Progress is a subscription that follows the pipeline's batch rows (the state lives in
// ingestion_batches, so any copy of the service can serve it).
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { orNull, upper } from '../../platform/graphql/resolver-args';
import type { IngestionGraphQLContext } from './graphql.context';
import type { Batch, PipelineDefinition } from './pipeline.types';
import type { Resolvers } from './resolvers.generated';

const POLL_MS = 250;

/** Follows a pipeline's recent batches: each change once, until the client goes away. */
async function* progressOf(ctx: IngestionGraphQLContext, pipelineId: string): AsyncGenerator<Batch> {
  const seen = new Map<string, string>();
  let first = true;
  for (;;) {
    const batches = await ctx.ingestion.batches.batches(ctx.caller, pipelineId, undefined, 10);
    for (const b of batches.reverse()) {
      const key = `${b.status}:${b.rowsRead}:${b.rowsStaged}:${b.rowsQuarantined}`;
      if (seen.get(b.id) === key) continue;
      seen.set(b.id, key);
      // Batches that had ended before the subscription began are history, not progress.
      if (first && b.status !== 'running') continue;
      yield b;
    }
    first = false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    ingestionPipelines: (_, args, ctx) => ctx.ingestion.pipelines.list(ctx.caller, undefined, args.limit ?? 100),
    ingestionPipeline: (_, args, ctx) => orNull(ctx.ingestion.pipelines.get(ctx.caller, args.id)),
    ingestionBatch: (_, args, ctx) => orNull(ctx.ingestion.batches.batch(ctx.caller, args.id)),
  },
  Mutation: {
    createIngestionPipeline: (_, args, ctx) =>
      ctx.ingestion.pipelines.create(ctx.caller, { definition: args.definition }),
    updateIngestionPipeline: (_, args, ctx) =>
      ctx.ingestion.pipelines.update(ctx.caller, args.id, { definition: args.definition }),
    deleteIngestionPipeline: async (_, args, ctx) => {
      await ctx.ingestion.pipelines.remove(ctx.caller, args.id);
      return true;
    },
  },
  Subscription: {
    ingestionBatchProgress: {
      subscribe: async (_: unknown, args: { pipelineId: string }, ctx: IngestionGraphQLContext) => {
        await ctx.ingestion.pipelines.get(ctx.caller, args.pipelineId); // 404 before the stream starts
        return (async function* () {
          for await (const b of progressOf(ctx, args.pipelineId)) {
            yield {
              ingestionBatchProgress: {
                batchId: b.id,
                pipelineId: b.pipelineId,
                status: upper(b.status),
                rowsRead: b.rowsRead,
                rowsStaged: b.rowsStaged,
                rowsQuarantined: b.rowsQuarantined,
              },
            };
          }
        })();
      },
    },
  },
  IngestionPipeline: {
    __resolveReference: (ref, ctx) => ctx.loaders.pipelineById.load(ref.id),
    sourceKind: (p) => upper(p.sourceKind),
    definition: (p): PipelineDefinition => p.definition,
    createdAt: (p) => p.createdAt.toISOString(),
    updatedAt: (p) => p.updatedAt.toISOString(),
    batches: (p, args, ctx) => ctx.ingestion.batches.batches(ctx.caller, p.id, undefined, args.limit ?? 20),
    versions: (p, _args, ctx) => ctx.ingestion.pipelines.versions(ctx.caller, p.id),
    schemaChanges: (p, args, ctx) => ctx.ingestion.batches.schemaChanges(ctx.caller, p.id, undefined, args.limit ?? 20),
  },
  IngestionSchemaChange: {
    status: (c) => upper(c.status),
    createdAt: (c) => c.createdAt.toISOString(),
    decidedAt: (c) => c.decidedAt?.toISOString() ?? null,
  },
  IngestionPipelineVersion: {
    definition: (v): PipelineDefinition => v.definition,
    createdAt: (v) => v.createdAt.toISOString(),
  },
  IngestionBatch: {
    status: (b) => upper(b.status),
    manifest: (b) =>
      b.manifest && {
        rowCount: b.manifest.row_count,
        rejected: b.manifest.rejected,
        contentSha256: b.manifest.content_sha256,
        schemaHash: b.manifest.schema_hash,
        columnChecksums: b.manifest.column_checksums,
      },
    createdAt: (b) => b.createdAt.toISOString(),
    completedAt: (b) => b.completedAt?.toISOString() ?? null,
    quarantine: (b, args, ctx) => ctx.ingestion.batches.quarantine(ctx.caller, b.id, undefined, args.limit ?? 100),
    schemaChange: (b, _args, ctx) =>
      b.status === 'quarantined' ? orNull(ctx.ingestion.batches.schemaChange(ctx.caller, b.id)) : null,
  },
  IngestionQuarantinedRecord: {
    offset: (r) => r.offset,
  },
} satisfies Resolvers;
