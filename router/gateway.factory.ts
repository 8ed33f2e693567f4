// The federated gateway: Apollo's ApolloGateway over the static supergraph.graphql, calling
// subgraphs over pooled keep-alive connections (http/keepalive.fetcher.ts says why not fetch) at
// the URL configured for each subgraph, forwarding the caller's identity.
import { ApolloGateway, RemoteGraphQLDataSource, type SupergraphManager } from '@apollo/gateway';
import type { Fetcher, FetcherResponse } from '@apollo/utils.fetcher';
import { deduplicating } from './http/dedup.fetcher';
import { caching } from './http/response-cache.fetcher';
import { createKeepAliveFetcher } from './http/keepalive.fetcher';
import { subgraphFailure } from './http/subgraph-failure';
import type { Logger } from '../platform/logging/logger';
import { forwardedHeaders, type RouterContext } from './router.context';

export interface GatewayFactoryOptions {
  supergraph: SupergraphManager;
  /** Chooses each subgraph's URL by name (env overrides), given supergraph.yaml's routing_url. */
  resolveUrl(subgraph: string, routingUrl: string): string;
  logger: Logger;
  /** Defaults to the keep-alive node:http fetcher. */
  fetcher?: Fetcher;
  /** Share identical in-flight subgraph queries of one caller (http/dedup.fetcher.ts). */
  deduplicateQueries: boolean;
  /** Reuse subgraph answers their Cache-Control allows (http/response-cache.fetcher.ts); 0 = off. */
  responseCacheEntries: number;
}

class ForwardingDataSource extends RemoteGraphQLDataSource<RouterContext> {
  constructor(
    config: ConstructorParameters<typeof RemoteGraphQLDataSource<RouterContext>>[0],
    private readonly subgraph: string,
    private readonly logger: Logger,
  ) {
    super(config);
  }

  // A failed call (no answer, an HTTP error, a body that is not a GraphQL response) reaches the
  // client as a neutral error naming the subgraph; its URL and body are only logged.
  override didEncounterError(error: Error, _request: unknown, response?: FetcherResponse): void {
    this.logger.warn({ subgraph: this.subgraph, status: response?.status, err: error.message }, 'subgraph call failed');
    throw subgraphFailure(this.subgraph, error, response?.status);
  }

  override willSendRequest({
    request,
    context,
  }: Parameters<NonNullable<RemoteGraphQLDataSource<RouterContext>['willSendRequest']>>[0]): void {
    // Health checks and schema loads carry no request context.
    if (!context || !('correlationId' in context)) return;
    for (const [key, value] of Object.entries(forwardedHeaders(context as RouterContext)))
      request.http?.headers.set(key, value);
  }
}

export function createGateway(options: GatewayFactoryOptions): ApolloGateway {
  const base = options.fetcher ?? createKeepAliveFetcher().fetcher;
  const shared = options.deduplicateQueries ? deduplicating(base) : base;
  const fetcher =
    options.responseCacheEntries > 0 ? caching(shared, { maxEntries: options.responseCacheEntries }) : shared;
  return new ApolloGateway({
    supergraphSdl: options.supergraph,
    logger: {
      debug: () => {},
      info: () => {},
      warn: (msg: unknown) => options.logger.warn(String(msg)),
      error: (msg: unknown) => options.logger.error(String(msg)),
    },
    buildService: ({ name, url }) =>
      new ForwardingDataSource(
        {
          url: options.resolveUrl(name, url ?? ''),
          fetcher,
        },
        name,
        options.logger,
      ),
  });
}
