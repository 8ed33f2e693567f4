// The ingestion-progress subscription over graphql-ws on /graphql (the router forwards
// subscriptions here): the job's state now, then each change this process publishes.
import { on } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Caller } from '../../platform/auth/caller';
import { bearerToken } from '../../platform/auth/jwt';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { connectionParam, serveSubscriptions } from '../../platform/graphql/subscription-server';
import type { ProgressEvent } from './document.service';
import { ragLoaders, type RagGraphQLContext } from './graphql.context';
import type { RagModule } from './rag.module';
import type { IngestJob } from './rag.types';

const final = (j: IngestJob) => j.status === 'completed' || j.status === 'failed';

/**
 * The job's state now, then each change this process publishes, until it completes or fails.
 * The job is looked up before the stream starts, so an unknown or foreign job is NOT_FOUND at
 * subscribe time (an error inside the stream would reach the client masked).
 */
async function progressOf(rag: RagModule, caller: Caller, jobId: string): Promise<AsyncIterable<IngestJob>> {
  const first = await rag.documents.job(caller, jobId);
  return progressStream(rag, caller, jobId, first.tenantId);
}

async function* progressStream(
  rag: RagModule,
  caller: Caller,
  jobId: string,
  tenantId: string,
): AsyncIterable<IngestJob> {
  const controller = new AbortController();
  const events = on(rag.documents.progress, 'progress', { signal: controller.signal });
  try {
    // Read again after listening: a change between the two reads is not lost.
    const now = await rag.documents.job(caller, jobId);
    yield now;
    if (final(now)) return;
    let lastPercent = now.percent;
    for await (const [event] of events as AsyncIterable<[ProgressEvent]>) {
      if (event.tenantId !== tenantId || event.job.id !== jobId) continue;
      if (event.job.percent < lastPercent && !final(event.job)) continue;
      lastPercent = event.job.percent;
      yield event.job;
      if (final(event.job)) return;
    }
  } finally {
    controller.abort();
  }
}

export function serveRagSubscriptions(options: {
  app: FastifyInstance;
  schema: GraphQLSchema;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
  rag: RagModule;
}): void {
  serveSubscriptions<RagGraphQLContext>({
    app: options.app,
    schema: options.schema,
    tokens: options.tokens,
    requireAuth: options.requireAuth,
    context: (caller, params) => ({
      ...options.rag,
      caller,
      forward: { token: bearerToken(connectionParam(params, 'authorization', 'Authorization')) },
      subscribeProgress: (jobId) => progressOf(options.rag, caller, jobId),
      loaders: ragLoaders(options.rag, caller),
    }),
  });
}
