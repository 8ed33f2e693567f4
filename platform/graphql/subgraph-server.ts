// Serves a service's Apollo subgraph at POST/GET /graphql on the service's own Fastify app, so
// each process answers REST and GraphQL on one port. Apollo Server is driven through its
// framework-neutral `executeHTTPGraphQLRequest`, which needs no extra integration package.
import { ApolloServer, HeaderMap, type ApolloServerPlugin, type BaseContext } from '@apollo/server';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DocumentNode } from 'graphql';
import { formatGraphQLError } from './errors';

export interface SubgraphOptions<TContext extends BaseContext> {
  typeDefs: DocumentNode;
  resolvers: GraphQLResolverMap<TContext>;
  /** Builds the per-request context (auth, tenant, DataLoaders) from the HTTP request. */
  context: (request: FastifyRequest) => Promise<TContext>;
  introspection?: boolean;
  plugins?: ApolloServerPlugin<TContext>[];
  /** Development only: masked errors carry their own message as `extensions.detail`. */
  exposeErrorDetails?: boolean;
}

export async function mountSubgraph<TContext extends BaseContext>(app: FastifyInstance, options: SubgraphOptions<TContext>): Promise<ApolloServer<TContext>> {
  const server = new ApolloServer<TContext>({
    schema: buildSubgraphSchema({ typeDefs: options.typeDefs, resolvers: options.resolvers as GraphQLResolverMap<unknown> }),
    formatError: (formatted, error) => formatGraphQLError(formatted, error, { exposeDetails: options.exposeErrorDetails }),
    introspection: options.introspection ?? true,
    includeStacktraceInErrorResponses: false,
    plugins: options.plugins ?? [],
    // The launcher owns SIGTERM/SIGINT (drain, close in order, log 'stopped'); Apollo's own handler
    // would stop this server first and re-raise the signal, ending the process mid-drain.
    stopOnTerminationSignals: false,
    logger: {
      debug: () => {},
      info: () => {},
      warn: (msg) => app.log.warn(msg),
      error: (msg) => app.log.error(msg),
    },
  });
  await server.start();
  app.addHook('onClose', async () => server.stop());

  const handler = async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const queryIndex = request.url.indexOf('?');
    const response = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: {
        method: request.method.toUpperCase(),
        headers,
        search: queryIndex >= 0 ? request.url.slice(queryIndex) : '',
        body: request.body,
      },
      context: () => options.context(request),
    });
    for (const [key, value] of response.headers) reply.header(key, value);
    reply.code(response.status ?? 200);
    if (response.body.kind === 'complete') return reply.send(response.body.string);
    // Incremental delivery (@defer): stream the chunks as they come.
    const { Readable } = await import('node:stream');
    return reply.send(Readable.from(response.body.asyncIterator));
  };
  app.route({ method: ['GET', 'POST'], url: '/graphql', schema: { hide: true }, handler });
  return server;
}
