// graphql-ws on a service's own /graphql path (same port as REST and the HTTP subgraph), for the
// subgraphs that serve subscriptions. The router connects as a graphql-ws client and passes the
// end user's credentials in connectionParams: `authorization` ("Bearer <jwt>") and the tenant
// (`x-tenant-id`, or `tenantId`); the caller is built once per connection with the same rules as
// HTTP (platform/graphql/caller-context.ts), and domain errors keep their codes over the socket.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Caller } from '../auth/caller';
import type { TokenAuthenticator } from '../http/auth-hooks';
import { graphqlCaller } from './caller-context';
import { formatGraphQLError } from './errors';

export interface SubscriptionServerOptions<C> {
  app: FastifyInstance;
  schema: GraphQLSchema;
  tokens: TokenAuthenticator;
  /** A connection without a valid token is refused. */
  requireAuth: boolean;
  path?: string;
  /** The GraphQL context of one operation on the connection (its subscribe functions). */
  context(caller: Caller, connectionParams: Readonly<Record<string, unknown>>): C;
}

/** The first non-empty string among the named connection params. */
export function connectionParam(params: Readonly<Record<string, unknown>>, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = params[n];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

export function serveSubscriptions<C>(options: SubscriptionServerOptions<C>): void {
  const { app, tokens } = options;
  const path = options.path ?? '/graphql';
  const wss = new WebSocketServer({ noServer: true });
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if ((request.url ?? '').split('?')[0] !== path) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });
  const format = (e: GraphQLError) => formatGraphQLError(e.toJSON(), e);
  const server = useServer<Record<string, unknown>, { caller?: Caller }>(
    {
      schema: options.schema,
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        try {
          const caller = await graphqlCaller(
            {
              authorization: connectionParam(params, 'authorization', 'Authorization'),
              tenantHeader: connectionParam(params, 'x-tenant-id', 'X-Tenant-ID', 'tenantId'),
              correlationId: connectionParam(params, 'x-correlation-id') ?? randomUUID(),
            },
            tokens,
          );
          if (options.requireAuth && !caller.auth) return false;
          ctx.extra.caller = caller;
          return true;
        } catch {
          return false;
        }
      },
      onError: (_ctx, _id, _payload, errors) => errors.map(format),
      onNext: (_ctx, _id, _payload, _args, result) => {
        const r = result as ExecutionResult;
        return r.errors ? ({ ...r, errors: r.errors.map(format) } as never) : undefined;
      },
      context: (ctx) =>
        options.context(ctx.extra.caller ?? { correlationId: randomUUID() }, ctx.connectionParams ?? {}) as never,
    },
    wss,
  );
  app.addHook('preClose', async () => {
    await server.dispose();
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
}
