// The packs registry (spec 01, port 8089): the catalog of workflow packs (stored here) and rule
// packs (pointers into the rule-pack registry, learned from its notices on the events backbone), with versions,
// status, ownership, artifacts and dependency graphs. REST routes (rest-compat/packs-registry)
// and the subgraph at /graphql over one domain service.
import { ServiceIdentity } from '../platform/auth/service-identity';
import { AccessTokens } from '../platform/auth/jwt';
import { serviceBus } from '../platform/events/service-bus';
import type { EventBus } from '../platform/events/event-bus';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerPacksRegistryRoutes } from '../rest-compat/packs-registry';
import { packsRegistryContext, type PacksRegistryGraphQLContext } from '../subgraphs/packs-registry/graphql.context';
import { loadPacksRegistryConfig } from '../subgraphs/packs-registry/packs-registry.config';
import { createPacksModule } from '../subgraphs/packs-registry/packs-registry.module';
import { resolvers } from '../subgraphs/packs-registry/resolvers';
import { RulePackCatalogConsumer } from '../subgraphs/packs-registry/rulepack-catalog.consumer';

export interface PacksRegistryOptions {
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
  /** The catalog consumers' fallback poll and retry backoff (tests). */
  consumer?: { pollMs?: number; backoffMs?: number };
}

export function definePacksRegistryService(options: PacksRegistryOptions = {}): ServiceDefinition {
  const packsRegistry: ServiceDefinition = defineService({
    name: 'packs-registry',
    version: '0.1.0',
    port: 8089,
    subgraph: 'subgraphs/packs-registry/schema.graphql',
    producesAudit: true,
    gatewayRoutes: [
      {
        method: ['GET', 'POST'],
        url: '/api/v1/packs',
        upstreamPath: '/packs',
        summary: 'Pack catalog: list (GET) or submit a workflow pack (POST) (packs registry /packs)',
      },
      {
        method: ['GET', 'POST'],
        url: '/api/v1/packs/*',
        upstreamPath: '/packs/',
        wildcard: true,
        summary: 'Pack versions, dependencies, certification and deprecation (packs registry /packs/...)',
      },
    ],
    async build(deps) {
      const { config, db, env, logger, registry } = deps;
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      // PACKS_REGISTRY_REQUIRE_AUTH, else REQUIRE_AUTH, else a token. Without one, reads act in
      // X-Tenant-ID's tenant; submissions and promotions always need a token (they name a person).
      const { requireAuth } = loadPacksRegistryConfig(env);
      const { service, stores } = createPacksModule(
        db,
        env,
        registry,
        new ServiceIdentity(config.auth.jwtSecret, 'packs-registry'),
        requireAuth,
        config.auth.mfa,
      );
      const consumer = new RulePackCatalogConsumer(stores, logger);
      const tokens = new AccessTokens(config.auth.jwtSecret, config.auth.accessTokenExpireMinutes * 60);
      const { app } = await buildServiceApp<PacksRegistryGraphQLContext>(packsRegistry, deps, {
        title: 'Packs registry',
        description:
          'Catalog of workflow packs and rule packs (spec 01, "Pack catalog"): versions, status draft/certified/deprecated, ' +
          'ownership, artifacts (JSON or YAML, SHA-256 of canonical JSON) and resolved dependency graphs. Drafts are visible to their owner ' +
          'tenant only; certified and deprecated versions to every tenant. Errors use FastAPI shapes.',
        tokens,
        restAuth: requireAuth ? 'required' : 'optional',
        rest: (routes) => registerPacksRegistryRoutes(routes, service),
        subgraph: { resolvers, context: (caller, request) => packsRegistryContext(caller, request, service) },
      });
      let stopConsumer: (() => Promise<void>) | undefined;
      return {
        app,
        async start() {
          // The rule-pack registry's notices, from the events backbone (durable, every tenant's stream).
          stopConsumer = await consumer.consume(db, bus, options.consumer);
        },
        async stop() {
          await stopConsumer?.();
          await releaseBus();
        },
      };
    },
  });
  return packsRegistry;
}

export const packsRegistryService: ServiceDefinition = definePacksRegistryService();
