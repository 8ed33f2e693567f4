// The AI broker (spec 02, port 8085): REST routes (rest-compat/ai-broker) and the ai-broker
// subgraph at /graphql over one domain: redaction both ways, routing with failover across vendor
// adapters and the offline extractive model, prompt templates, retrieval context, usage audited
// to the ledger through the outbox. docs/ai-broker.md.
import { ServiceIdentity } from '../platform/auth/service-identity';
import { AccessTokens } from '../platform/auth/jwt';
import { CachedConfig } from '../platform/clients/config-cache';
import { ConfigClient } from '../platform/clients/config.client';
import type { SchemaRegistryClient } from '../platform/clients/schema-registry.client';
import type { EventBus } from '../platform/events/event-bus';
import { serviceBus } from '../platform/events/service-bus';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerAiBrokerRoutes } from '../rest-compat/ai-broker';
import { loadAiBrokerConfig } from '../subgraphs/ai-broker/ai-broker.config';
import { createAiBrokerModule } from '../subgraphs/ai-broker/ai-broker.module';
import { aiBrokerContext } from '../subgraphs/ai-broker/graphql.context';
import { resolvers } from '../subgraphs/ai-broker/resolvers';
import { serviceRetention } from '../platform/retention/retention-sweeper';
import { purgeAiUsage } from '../subgraphs/ai-broker/usage.store';

export interface AiBrokerServiceOptions {
  /** A stand-in for the schema registry's client (tests). */
  schemas?: Pick<SchemaRegistryClient, 'get'>;
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
}

export function defineAiBrokerService(options: AiBrokerServiceOptions = {}): ServiceDefinition {
  const aiBroker: ServiceDefinition = defineService({
    name: 'ai-broker',
    version: '0.1.0',
    port: 8085,
    subgraph: 'subgraphs/ai-broker/schema.graphql',
    producesAudit: true,
    async build(deps) {
      const { config: platform, db, env, registry } = deps;
      const config = loadAiBrokerConfig(env, registry, { jwtSecret: platform.auth.jwtSecret });
      const identity = new ServiceIdentity(platform.auth.jwtSecret, 'ai-broker');
      // Tenant policies from the config service (namespace ai_broker), refreshed on config.changed.
      const tenantBus = config.tenantConfig.url ? await serviceBus(deps, options.bus) : undefined;
      const tenantConfig = config.tenantConfig.url
        ? new CachedConfig(new ConfigClient(config.tenantConfig.url, identity), {
            bus: tenantBus?.bus,
            logger: deps.logger,
            refreshMs: config.tenantConfig.refreshMs,
          })
        : undefined;
      const { broker, assist, health } = createAiBrokerModule({
        db,
        env,
        config,
        schemas: options.schemas,
        identity,
        tenantConfig,
        logger: deps.logger,
      });
      const tokens = new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60);
      const { app } = await buildServiceApp(aiBroker, deps, {
        title: 'AI broker',
        description:
          'One interface to several language models (spec 02): PII redacted both ways, models chosen by cost, latency and compliance with ' +
          'failover, prompt templates, retrieval context, usage audited per tenant. With no vendor configured, the offline extractive model answers and says so.',
        tokens,
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) => registerAiBrokerRoutes(routes, broker, assist, { version: aiBroker.version }),
        subgraph: { resolvers, context: (caller, request) => aiBrokerContext(caller, request, broker, assist) },
      });
      // Retention (docs/compliance.md): the tenants' ai_usage policies, enforced here.
      const retention = serviceRetention(deps, [
        { recordType: 'ai_usage', service: aiBroker.name, purge: purgeAiUsage },
      ]);
      return {
        app,
        async start() {
          health.start();
          retention.start();
          await tenantConfig?.start();
        },
        async stop() {
          health.stop();
          await retention.stop();
          await tenantConfig?.stop();
          await tenantBus?.release();
        },
      };
    },
  });
  return aiBroker;
}

export const aiBrokerService: ServiceDefinition = defineAiBrokerService();
