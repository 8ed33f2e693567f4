// The rule-pack registry (spec 01, port 8091): checks submitted rule packs against the rule-pack
// schema and the engine, takes them through review to certification, signs certified packs with
// Ed25519 and distributes them (REST for the validation service, the subgraph for clients).
import { serviceRequiresAuth } from '../platform/config/platform.config';
import { AccessTokens } from '../platform/auth/jwt';
import { serviceBus } from '../platform/events/service-bus';
import type { EventBus } from '../platform/events/event-bus';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerRulePackRegistryRoutes } from '../rest-compat/rulepack-registry';
import { rulePackRegistryContext } from '../subgraphs/rulepack-registry/graphql.context';
import { compileWithEngine } from '../subgraphs/rulepack-registry/engine-compiler';
import type { PackCompiler } from '../subgraphs/rulepack-registry/pack-validation';
import { loadRulePackRegistryConfig } from '../subgraphs/rulepack-registry/rulepack-registry.config';
import { createRulePackModule } from '../subgraphs/rulepack-registry/rulepack-registry.module';
import { resolvers } from '../subgraphs/rulepack-registry/resolvers';
import { startServiceNotices } from '../platform/outbox/service-notices';

export interface RulePackRegistryOptions {
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
  /** The semantic check (tests); the engine's by default. */
  compile?: PackCompiler;
}

export function defineRulePackRegistryService(options: RulePackRegistryOptions = {}): ServiceDefinition {
  const registry: ServiceDefinition = defineService({
    name: 'rulepack-registry',
    version: '0.1.0',
    port: 8091,
    subgraph: 'subgraphs/rulepack-registry/schema.graphql',
    producesAudit: true,
    async build(deps) {
      const { config, db, env } = deps;
      const registryConfig = loadRulePackRegistryConfig(env);
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      // rulepack.certified / rulepack.deprecated are written with each decision (the notice outbox)
      // and published by this relay, woken after each such commit.
      const notices = startServiceNotices(deps, bus, registry.name);
      // RULEPACK_REGISTRY_REQUIRE_AUTH, else REQUIRE_AUTH, else a token. Without one, reads act in
      // X-Tenant-ID's tenant; submissions and decisions always need a token (they name a person).
      const requireAuth = serviceRequiresAuth(env, registry);
      const { service, keys } = createRulePackModule(
        db,
        registryConfig,
        options.compile ?? compileWithEngine,
        () => notices.wake(),
        requireAuth,
        config.auth.mfa,
      );
      await keys.ensureActive();
      const tokens = new AccessTokens(config.auth.jwtSecret, config.auth.accessTokenExpireMinutes * 60);

      const { app } = await buildServiceApp(registry, deps, {
        title: 'Rule-pack registry',
        description:
          'Validates rule packs against the rule-pack schema, takes them through review, signs certified packs (Ed25519, ' +
          'keys at /.well-known/rulepack-keys.json) and distributes them (spec 01). Errors use FastAPI shapes.',
        tokens,
        // Every route but the key set needs a token unless the port trusts the gateway: who submits
        // and who certifies is the point, so those need one in either mode (rulepack-registry.service.ts).
        restAuth: requireAuth ? 'required' : 'optional',
        rest: (routes) => registerRulePackRegistryRoutes(routes, service),
        subgraph: { resolvers, context: (caller) => rulePackRegistryContext(caller, service) },
      });
      return {
        app,
        async stop() {
          await notices.stop();
          await releaseBus();
        },
      };
    },
  });
  return registry;
}

export const rulePackRegistryService: ServiceDefinition = defineRulePackRegistryService();
