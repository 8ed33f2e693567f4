// The ingestion service (spec 01, port 8092; issue 32): pipelines as versioned data checked
// against the schema registry, REST push of CSV, JSON and NDJSON sources streamed through a
// spool, normalisation by JSONata mappings checked against a target schema, PII scrubbing per
// field, staged records with lineage, a quarantine, resumable batches (checkpoints commit with
// the staged rows), a manifest per batch in the ledger (the outbox) and ingestion.completed /
// ingestion.failed on the events backbone (the notice outbox). REST under /api/ingestion/...
// (rest-compat/ingestion, proxied by the gateway) and the subgraph at /graphql. docs/ingestion.md.
import { acceptingAsymmetric } from '../platform/auth/asymmetric-tokens';
import { AccessTokens } from '../platform/auth/jwt';
import { ServiceIdentity } from '../platform/auth/service-identity';
import type { EventBus } from '../platform/events/event-bus';
import { serviceBus } from '../platform/events/service-bus';
import { startServiceNotices } from '../platform/outbox/service-notices';
import { defineService, type ServiceDefinition } from '../platform/service';
import { serviceRetention } from '../platform/retention/retention-sweeper';
import { buildServiceApp } from '../platform/service-app';
import { registerIngestionRoutes } from '../rest-compat/ingestion';
import { ingestionContext, type IngestionGraphQLContext } from '../subgraphs/ingestion/graphql.context';
import { loadIngestionConfig, type IngestionConfig } from '../subgraphs/ingestion/ingestion.config';
import { purgeIngestionBatches } from '../subgraphs/ingestion/batch-retention.store';
import { createIngestionModule } from '../subgraphs/ingestion/ingestion.module';
import { serveIngestionSubscriptions } from '../subgraphs/ingestion/ingestion.subscriptions';
import { resolvers } from '../subgraphs/ingestion/resolvers';

export interface IngestionServiceOptions {
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
  /** Settings over the environment's (tests). */
  config?: Partial<IngestionConfig>;
}

export function defineIngestionService(options: IngestionServiceOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'ingestion',
    version: '0.1.0',
    port: 8092,
    subgraph: 'subgraphs/ingestion/schema.graphql',
    producesAudit: true,
    gatewayRoutes: [
      {
        method: ['GET', 'POST', 'PUT', 'DELETE'],
        url: '/api/ingestion/*',
        upstreamPath: '/api/ingestion/',
        wildcard: true,
        summary:
          'Ingestion pipelines, pushed sources, batches with progress, quarantine, staged records and lineage (ingestion service)',
      },
    ],
    async build(deps) {
      const { config: platform, db, env } = deps;
      const config = { ...loadIngestionConfig(env, platform.auth.jwtSecret), ...options.config };
      // ingestion.completed / ingestion.failed are written with each batch's end (the notice outbox); this relay publishes them.
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      const notices = startServiceNotices(deps, bus, definition.name);
      const ingestion = createIngestionModule({
        db,
        config,
        identity: new ServiceIdentity(platform.auth.jwtSecret, 'ingestion'),
        logger: deps.logger,
        env,
      });
      // HTTP and graphql-ws alike: HS256 and the OIDC provider's tokens (the router forwards the caller's).
      const tokens = acceptingAsymmetric(
        new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60),
        platform.auth.oidc,
      );
      const { app, schema } = await buildServiceApp<IngestionGraphQLContext>(definition, deps, {
        title: 'Ingestion',
        description:
          'Ingestion (spec 01, port 8092): pipelines as versioned data, pushed CSV/JSON/NDJSON sources normalised by JSONata mappings, ' +
          'checked against a target schema, PII scrubbed per field, staged with lineage; resumable batches, a manifest per batch in the ledger, ' +
          'ingestion.completed / ingestion.failed on the events backbone. Errors use FastAPI shapes.',
        tokens,
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) => registerIngestionRoutes(routes, ingestion),
        subgraph: { resolvers, context: (caller) => ingestionContext(caller, ingestion) },
      });
      serveIngestionSubscriptions({ app, schema: schema!, tokens, requireAuth: config.requireAuth, ingestion });
      // Retention (docs/ingestion.md, docs/compliance.md): the tenants' ingestion_batch policies, enforced here.
      const retention = serviceRetention(deps, [
        { recordType: 'ingestion_batch', service: definition.name, purge: purgeIngestionBatches },
      ]);
      return {
        app,
        async start() {
          await ingestion.fileDrop?.start();
          ingestion.scheduler?.start();
          ingestion.replication?.start();
          retention.start();
        },
        async stop() {
          await retention.stop();
          await ingestion.scheduler?.stop();
          await ingestion.replication?.stop();
          await ingestion.fileDrop?.stop();
          await notices.stop();
          await releaseBus();
        },
      };
    },
  });
  return definition;
}

export const ingestionService: ServiceDefinition = defineIngestionService();
