// The config service (spec 01, port 8086): the hierarchical configuration registry (platform,
// suite, module, tenant), immutable content-addressed bundles validated against their
// namespace's schema, rollouts approved by a second person through the workflow service and
// signed (Ed25519, JWKS at /.well-known/config-keys.json), rollbacks, feature flags over OFREP
// and secret references. REST (rest-compat/config) and the subgraph at /graphql over one domain,
// with the `configChanged` subscription over graphql-ws on the same path.
import { AccessTokens } from '../platform/auth/jwt';
import { ServiceIdentity } from '../platform/auth/service-identity';
import { CONFIG_CHANGED } from '../platform/contracts/config.events';
import { contractBus } from '../platform/events/contract-bus';
import type { EventBus } from '../platform/events/event-bus';
import { serviceBus } from '../platform/events/service-bus';
import { startServiceNotices } from '../platform/outbox/service-notices';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerConfigRoutes } from '../rest-compat/config';
import { loadConfigConfig, type ConfigConfig } from '../subgraphs/config/config.config';
import { createConfigModule, type ConfigModuleOptions } from '../subgraphs/config/config.module';
import { configContext, type ConfigGraphQLContext } from '../subgraphs/config/graphql.context';
import { serveConfigSubscriptions } from '../subgraphs/config/config.subscriptions';
import { resolvers } from '../subgraphs/config/resolvers';

export interface ConfigServiceOptions {
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
  /** Settings over the environment's (tests). */
  config?: Partial<ConfigConfig>;
  /** Stand-ins for the schema registry, the workflow service or the secret backend (tests). */
  module?: Pick<ConfigModuleOptions, 'schemas' | 'workflow' | 'secretBackend'>;
}

export function defineConfigService(options: ConfigServiceOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'config',
    version: '0.1.0',
    port: 8086,
    subgraph: 'subgraphs/config/schema.graphql',
    producesAudit: true,
    gatewayRoutes: [
      {
        method: 'GET',
        url: '/api/v1/config/*',
        upstreamPath: '/api/config/',
        wildcard: true,
        summary: 'Effective configuration, bundles, versions, diffs and rollouts (config /api/config/...)',
      },
      {
        method: 'POST',
        url: '/api/v1/config/*',
        upstreamPath: '/api/config/',
        wildcard: true,
        summary: 'Publish bundles, promote rollouts, roll back (config /api/config/...)',
      },
      {
        method: 'POST',
        url: '/api/v1/ofrep/*',
        upstreamPath: '/ofrep/',
        wildcard: true,
        scope: 'read',
        summary: 'OpenFeature remote evaluation of the tenant’s flags (config /ofrep/v1/...)',
      },
    ],
    async build(deps) {
      const { db, env, logger, registry } = deps;
      const settings = { ...loadConfigConfig(env, registry), ...options.config };
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      // config.changed is written with each change (the notice outbox) and published by this relay.
      const notices = startServiceNotices(deps, bus, definition.name);
      const config = createConfigModule(db, settings, {
        identity: new ServiceIdentity(deps.config.auth.jwtSecret, 'config'),
        mfa: deps.config.auth.mfa,
        onChange: () => notices.wake(),
        ...options.module,
      });
      await config.signer.ensureKey();
      await config.effective.load();
      const tokens = new AccessTokens(deps.config.auth.jwtSecret, deps.config.auth.accessTokenExpireMinutes * 60);
      const { app, schema } = await buildServiceApp<ConfigGraphQLContext>(definition, deps, {
        title: 'Config',
        description:
          'Hierarchical configuration registry (spec 01): layers platform ← suite ← module ← tenant with per-key provenance and as_of, ' +
          'immutable content-addressed bundles validated against their namespace schema, rollouts by consistent hashing approved by a ' +
          'second person (workflow) and Ed25519-signed, rollback, feature flags over OFREP, secret references. Errors use FastAPI shapes.',
        tokens,
        restAuth: settings.requireAuth ? 'required' : 'optional',
        rest: (routes) => registerConfigRoutes(routes, config, { effectiveBodyCache: settings.effectiveBodyCache }),
        subgraph: { resolvers, context: (caller, request) => configContext(caller, request, config) },
      });
      serveConfigSubscriptions({
        app,
        schema: schema!,
        bus,
        db,
        config,
        tokens,
        requireAuth: settings.requireAuth,
      });
      let timer: NodeJS.Timeout | undefined;
      let unsubscribe: (() => Promise<void>) | undefined;
      let polling = false;
      return {
        app,
        async start() {
          // Other replicas' changes: refresh what this process serves.
          unsubscribe = await contractBus(bus, logger).subscribe(CONFIG_CHANGED, (c) => config.effective.refresh(c));
          // Waiting rollouts: approvals decided in the workflow service, scheduled ones come due.
          timer = setInterval(() => {
            if (polling) return;
            polling = true;
            config.rollouts
              .syncOpen(new Date(), (rollout, err) =>
                logger.warn({ rolloutId: rollout.id, err: (err as Error).message }, 'rollout could not be moved on'),
              )
              .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'rollout poll failed'))
              .finally(() => (polling = false));
          }, settings.rolloutPollMs);
          timer.unref();
        },
        async stop() {
          if (timer) clearInterval(timer);
          await unsubscribe?.();
          await notices.stop();
          await releaseBus();
        },
      };
    },
  });
  return definition;
}

export const configService: ServiceDefinition = defineConfigService();
