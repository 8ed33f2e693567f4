// Job progress over graphql-ws on /graphql (the router forwards subscriptions here). The
// subscription's resolver (resolvers.ts) follows the job; this serves the socket and builds each
// connection's context, with the token checked as on HTTP.
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { serveSubscriptions } from '../../platform/graphql/subscription-server';
import { ocrContext, type OcrGraphQLContext } from './graphql.context';
import type { OcrService } from './ocr.service';

export function serveOcrSubscriptions(options: {
  app: FastifyInstance;
  schema: GraphQLSchema;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
  ocr: OcrService;
  maxBytes: number;
}): void {
  serveSubscriptions<OcrGraphQLContext>({
    app: options.app,
    schema: options.schema,
    tokens: options.tokens,
    requireAuth: options.requireAuth,
    context: (caller) => ocrContext(caller, options.ocr, options.maxBytes),
  });
}
