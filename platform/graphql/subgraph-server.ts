// Serves a service's Apollo subgraph at POST/GET /graphql on the service's own Fastify app, so
// each process answers REST and GraphQL on one port. Apollo Server is driven through its
// framework-neutral `executeHTTPGraphQLRequest`, which needs no extra integration package.
import { ApolloServer, HeaderMap, type ApolloServerPlugin, type BaseContext } from '@apollo/server';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DocumentNode } from 'graphql';
// Static, never `await import()`: in the CommonJS build a dynamic import stays a real ES import
// and loads the package's ESM build, while the resolvers' GraphQLUpload is required from its
// CommonJS build; the Upload made by one then fails the other's instanceof check ("Upload value
// invalid") and every upload on the built platform was an INTERNAL_SERVER_ERROR. One module
// instance: docs/decisions.md, "Dual-package hazards".
import { processRequest } from 'graphql-upload-ts';
import { formatGraphQLError } from './errors';

/**
 * A subgraph's resolver map. Each subgraph checks its own against its SDL (`satisfies Resolvers`,
 * the types scripts/codegen generates), so the kernel asks only for a map: GraphQLResolverMap
 * would mistype `__resolveReference`, which Apollo calls as (reference, context, info), as a
 * field resolver (source, args, context, info).
 */
export type SubgraphResolvers = Readonly<Record<string, object>>;

export interface SubgraphOptions<TContext extends BaseContext> {
  typeDefs: DocumentNode;
  resolvers: SubgraphResolvers;
  /** Builds the per-request context (auth, tenant, DataLoaders) from the HTTP request. */
  context: (request: FastifyRequest) => Promise<TContext>;
  introspection?: boolean;
  plugins?: ApolloServerPlugin<TContext>[];
  /** Development only: masked errors carry their own message as `extensions.detail`. */
  exposeErrorDetails?: boolean;
  /**
   * Accepts GraphQL multipart requests (uploads, as the router forwards them) with these limits;
   * such a request must carry `apollo-require-preflight` or `x-apollo-operation-name`, as
   * Apollo's CSRF prevention asks of every non-JSON request.
   */
  uploads?: { maxFileSize: number; maxFiles?: number };
}

export async function mountSubgraph<TContext extends BaseContext>(
  app: FastifyInstance,
  options: SubgraphOptions<TContext>,
): Promise<ApolloServer<TContext>> {
  const server = new ApolloServer<TContext>({
    schema: buildSubgraphSchema({
      typeDefs: options.typeDefs,
      resolvers: options.resolvers as GraphQLResolverMap<unknown>,
    }),
    formatError: (formatted, error) =>
      formatGraphQLError(formatted, error, { exposeDetails: options.exposeErrorDetails }),
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

  const uploads = options.uploads;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    let body: unknown = request.body;
    if (uploads && request.method === 'POST' && request.headers['content-type']?.startsWith('multipart/form-data')) {
      if (!request.headers['apollo-require-preflight'] && !request.headers['x-apollo-operation-name']) {
        return reply.code(400).send({
          errors: [
            {
              message: 'A multipart request needs the apollo-require-preflight header',
              extensions: { code: 'BAD_REQUEST' },
            },
          ],
        });
      }
      try {
        body = await processRequest(request.raw, reply.raw, {
          maxFileSize: uploads.maxFileSize,
          maxFiles: uploads.maxFiles ?? 1,
        });
      } catch (err) {
        const status = (err as { status?: number }).status ?? 400;
        return reply.code(status).send({
          errors: [
            {
              message: (err as Error).message,
              extensions: { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST' },
            },
          ],
        });
      }
      // Parsed: from here Apollo sees the operation as it would a JSON body.
      headers.set('content-type', 'application/json');
    }
    const queryIndex = request.url.indexOf('?');
    const response = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: {
        method: request.method.toUpperCase(),
        headers,
        search: queryIndex >= 0 ? request.url.slice(queryIndex) : '',
        body,
      },
      context: () => options.context(request),
    });
    for (const [key, value] of response.headers) reply.header(key, value);
    reply.code(response.status ?? 200);
    if (response.body.kind === 'complete') return reply.send(response.body.string);
    // Incremental delivery (@defer): stream the chunks as they come.
    return reply.send(Readable.from(response.body.asyncIterator));
  };
  if (uploads) {
    // Its own scope: the multipart parser here leaves the service's REST routes alone.
    await app.register(async (scope) => {
      scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
      scope.route({ method: ['GET', 'POST'], url: '/graphql', schema: { hide: true }, handler });
    });
  } else {
    app.route({ method: ['GET', 'POST'], url: '/graphql', schema: { hide: true }, handler });
  }
  return server;
}
