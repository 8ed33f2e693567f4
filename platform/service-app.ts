// The one way a service becomes a running app: the kernel's Fastify bootstrap (errors, health,
// logging, OpenAPI), its REST routes in one plugin, each behind the authentication of its mode, and its
// subgraph at /graphql with the caller built the same way for every service. Services supply
// only what is theirs: routes, resolvers and the per-request context they need beyond the caller.
import type { BaseContext } from '@apollo/server';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parse, type GraphQLSchema } from 'graphql';
import { acceptingAsymmetric } from './auth/asymmetric-tokens';
import type { Caller } from './auth/caller';
import { databaseIsReady } from './db/database';
import { graphqlCallerOf } from './graphql/caller-context';
import { readSubgraphSchema } from './graphql/subgraph-schema';
import { mountSubgraph, type SubgraphResolvers } from './graphql/subgraph-server';
import { authenticateRoutes, type AuthMode, type TokenAuthenticator } from './http/auth-hooks';
import { createServiceApp } from './http/service-app';
import type { ServiceDeps, ServiceManifest } from './service';

export interface SubgraphSpec<TContext extends BaseContext> {
  /** Checked against the SDL where they are written (the generated `Resolvers` type). */
  resolvers: SubgraphResolvers;
  /** The per-request context: the verified caller plus whatever the resolvers need (loaders). */
  context(caller: Caller, request: FastifyRequest): TContext | Promise<TContext>;
  /** Accept GraphQL multipart uploads with these limits (platform/graphql/subgraph-server.ts). */
  uploads?: { maxFileSize: number; maxFiles?: number };
}

export interface ServiceAppSpec<TContext extends BaseContext> {
  title: string;
  description: string;
  tokens: TokenAuthenticator;
  /** Authentication of the REST routes unless a route declares `config.auth`. */
  restAuth: AuthMode;
  rest(routes: FastifyInstance): void | Promise<void>;
  subgraph?: SubgraphSpec<TContext>;
  /** Readiness checks besides the database (which is checked when the service uses one). */
  readiness?: Record<string, () => Promise<boolean>>;
  /** Details the service adds to /health. */
  health?: () => Promise<Record<string, unknown>>;
  /** Fields added to a ready /readyz answer. */
  readinessDetails?: () => Promise<Record<string, unknown>>;
}

export interface ServiceApp {
  app: FastifyInstance;
  /** The executable subgraph schema (for graphql-ws subscriptions on the same path). */
  schema?: GraphQLSchema;
}

export async function buildServiceApp<TContext extends BaseContext>(
  manifest: ServiceManifest,
  deps: ServiceDeps,
  spec: ServiceAppSpec<TContext>,
): Promise<ServiceApp> {
  const readiness = {
    ...(manifest.usesDatabase === false ? {} : { database: () => databaseIsReady(deps.db) }),
    ...spec.readiness,
  };
  // Every service accepts the OIDC provider's asymmetric tokens beside its HS256 ones.
  const tokens = acceptingAsymmetric(spec.tokens, deps.config.auth.oidc);
  const app = await createServiceApp({
    name: manifest.name,
    title: spec.title,
    version: manifest.version,
    description: spec.description,
    config: deps.config,
    health: { readiness, details: spec.health, readinessDetails: spec.readinessDetails },
  });
  await app.register(async (routes) => {
    authenticateRoutes(routes, tokens, spec.restAuth);
    await spec.rest(routes);
  });
  if (!spec.subgraph || !manifest.subgraph) return { app };

  const typeDefs = parse(readSubgraphSchema(manifest.subgraph));
  const { resolvers, context, uploads } = spec.subgraph;
  await mountSubgraph<TContext>(app, {
    typeDefs,
    resolvers,
    uploads,
    context: async (request) => context(await graphqlCallerOf(request, tokens), request),
  });
  return { app, schema: buildSubgraphSchema({ typeDefs, resolvers: resolvers as GraphQLResolverMap<unknown> }) };
}
