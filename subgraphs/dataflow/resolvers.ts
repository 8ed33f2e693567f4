// The DataFlow subgraph's resolvers: one call into run.service per field (the REST door's functions).
import { InputError } from '../../platform/errors/domain-errors';
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import type { RunRecord } from './dataflow.types';
import type { Resolvers } from './resolvers.generated';
import { progressPosition } from './dataflow.subscriptions';

/** A DataflowRun as GraphQL shows it (the generated types' mapper). */
export function runOut(r: RunRecord) {
  return {
    id: r.id,
    packId: r.packId,
    packVersion: r.packVersion,
    triggerKind: r.triggerKind,
    triggerKey: r.triggerKey,
    status: r.status.toUpperCase() as 'RUNNING' | 'PASSED' | 'FAILED' | 'ERROR',
    error: r.error,
    result: r.result,
    requestedBy: r.requestedBy,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    tenantId: r.tenantId,
  };
}
export type RunNode = ReturnType<typeof runOut>;

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    dataflowRuns: async (_, args, ctx) =>
      (
        await ctx.service.listRuns(ctx.caller, {
          packId: opt(args.packId),
          limit: opt(args.first),
          before: opt(args.before),
          tenantId: opt(args.tenantId),
        })
      ).map(runOut),
    dataflowRun: (_, args, ctx) =>
      orNull(async () =>
        runOut(await ctx.service.getRun(ctx.caller, { runId: args.id, tenantId: opt(args.tenantId) })),
      ),
  },
  Mutation: {
    runDataflowPack: async (_, { input }, ctx) =>
      runOut(
        await ctx.service.run(ctx.caller, {
          packId: input.packId,
          version: opt(input.version),
          idempotencyKey: opt(input.idempotencyKey),
          tenantId: opt(input.tenantId),
        }),
      ),
  },
  Subscription: {
    dataflowRunProgress: {
      subscribe: (_, args, ctx) => {
        if (!ctx.subscribeProgress)
          throw InputError.of(['subscription'], 'Subscriptions are served over graphql-ws on /graphql');
        return ctx.subscribeProgress(args.runId);
      },
      resolve: (run: RunRecord) => ({
        runId: run.id,
        status: runOut(run).status,
        position: progressPosition(run),
        transformsDone: run.progress.transforms_done ?? [],
        reconciliationsDone: run.progress.reconciliations_done ?? [],
        run: runOut(run),
      }),
    },
  },
  DataflowRun: {
    __resolveReference: async (ref, ctx) => {
      const run = await ctx.loaders.runById.load(ref.id);
      return run ? runOut(run) : null;
    },
    breaks: async (run, args, ctx) =>
      (
        await ctx.service.breaks(ctx.caller, {
          runId: run.id,
          tenantId: run.tenantId,
          category: opt(args.category),
          limit: opt(args.first),
          after: opt(args.after),
        })
      ).map((b) => ({
        cursor: b.seq,
        reconciliation: b.reconciliation,
        category: b.category,
        key: b.key,
        detail: b.detail,
      })),
    evidence: (run, _, ctx) =>
      orNull(async () => {
        const e = await ctx.service.evidence(ctx.caller, { runId: run.id, tenantId: run.tenantId });
        return { runId: e.runId, sha256: e.sha256, content: e.content, createdAt: e.createdAt.toISOString() };
      }),
  },
} satisfies Resolvers;
