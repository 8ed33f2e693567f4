// Batch progress over graphql-ws on /graphql (the router forwards subscriptions here). The
// subscription's resolver (resolvers.ts) follows the pipeline's batch rows, so any copy of the
// service serves it; this serves the socket and builds each connection's context.
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { serveSubscriptions } from '../../platform/graphql/subscription-server';
import { ingestionContext, type IngestionGraphQLContext } from './graphql.context';
import type { IngestionModule } from './ingestion.module';

export function serveIngestionSubscriptions(options: {
  app: FastifyInstance;
  schema: GraphQLSchema;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
  ingestion: IngestionModule;
}): void {
  serveSubscriptions<IngestionGraphQLContext>({
    app: options.app,
    schema: options.schema,
    tokens: options.tokens,
    requireAuth: options.requireAuth,
    context: (caller) => ingestionContext(caller, options.ingestion),
  });
}
