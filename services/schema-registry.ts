// The schema registry (spec 01, port 8084): JSON Schema (draft-07) subjects of kind rule-pack,
// workflow-pack or data with semantic versions and compatibility modes; REST routes
// (rest-compat/schema-registry) and the subgraph at /graphql over one domain service. The
// built-in schemas of platform/contracts (the *.schema.json files and the event catalogue's topics)
// are seeded at every start (idempotently).
import { AccessTokens } from '../platform/auth/jwt';
import { EVENT_CATALOGUE } from '../platform/contracts/events.catalogue';
import type { EventContract } from '../platform/contracts/event-contract';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerSchemaRegistryRoutes } from '../rest-compat/schema-registry';
import { CONTRACTS_DIR, seedPlatformSchemas } from '../subgraphs/schema-registry/platform-schemas.seed';
import { resolvers } from '../subgraphs/schema-registry/resolvers';
import { schemaRegistryContext, type SchemaRegistryGraphQLContext } from '../subgraphs/schema-registry/graphql.context';
import { loadSchemaRegistryConfig } from '../subgraphs/schema-registry/schema-registry.config';
import { createSchemaRegistryService } from '../subgraphs/schema-registry/schema-registry.module';

export interface SchemaRegistryOptions {
  /** Where the built-in schemas are read from (tests); platform/contracts by default. */
  contractsDir?: string;
  /** The event contracts seeded as `events.<topic>` (tests); platform/contracts/events.catalogue.ts by default. */
  eventCatalogue?: readonly EventContract[];
}

export function defineSchemaRegistryService(options: SchemaRegistryOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'schema-registry',
    version: '1.0.0',
    port: 8084,
    subgraph: 'subgraphs/schema-registry/schema.graphql',
    producesAudit: true,
    usesDatabase: true,
    async build(deps) {
      const { config, db, env, logger } = deps;
      // SCHEMA_REGISTRY_REQUIRE_AUTH, else REQUIRE_AUTH, else a token. Without one, reads act in
      // X-Tenant-ID's tenant; registrations always need a token.
      const { requireAuth } = loadSchemaRegistryConfig(env);
      const service = createSchemaRegistryService(db.prisma, requireAuth);
      await seedPlatformSchemas(
        service,
        logger,
        options.contractsDir ?? CONTRACTS_DIR,
        options.eventCatalogue ?? EVENT_CATALOGUE,
      );
      const { app } = await buildServiceApp<SchemaRegistryGraphQLContext>(definition, deps, {
        title: 'Schema registry',
        description:
          'JSON Schema (draft-07) registry of rule-pack, workflow-pack and data schemas with semantic versions and ' +
          'BACKWARD/FORWARD/FULL/NONE compatibility checks. Built-in platform schemas (owner `platform`) are readable by every tenant. ' +
          'Errors use FastAPI shapes; an incompatible version is 409 with detail {message, reasons}.',
        tokens: new AccessTokens(config.auth.jwtSecret, config.auth.accessTokenExpireMinutes * 60),
        restAuth: requireAuth ? 'required' : 'optional',
        rest: (routes) => registerSchemaRegistryRoutes(routes, service),
        subgraph: { resolvers, context: (caller) => schemaRegistryContext(caller, service) },
      });
      return { app };
    },
  });
  return definition;
}

export const schemaRegistryService: ServiceDefinition = defineSchemaRegistryService();
