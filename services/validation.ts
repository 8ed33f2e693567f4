// The validation service (spec 03, port 8083): REST routes (rest-compat/validation) and the
// validation subgraph at /graphql over one domain service that runs certified registry packs
// (signature verified, compiled once, cached) or inline packs through platform/rule-engine, and
// audits every run in the tenant's ledger through the outbox.
import { ServiceIdentity } from '../platform/auth/service-identity';
import { AccessTokens } from '../platform/auth/jwt';
import { serviceBus } from '../platform/events/service-bus';
import type { EventBus } from '../platform/events/event-bus';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerValidationRoutes } from '../rest-compat/validation';
import { validationContext } from '../subgraphs/validation/graphql.context';
import { resolvers } from '../subgraphs/validation/resolvers';
import { loadValidationConfig } from '../subgraphs/validation/validation.config';
import { createValidationModule, type ValidationModuleDeps } from '../subgraphs/validation/validation.module';
import { randomUUID } from 'node:crypto';
import { RULEPACK_DEPRECATED } from '../platform/contracts/rulepack.events';
import { contractHandler } from '../platform/events/backbone/contract-handler';
import { consume, type DurableConsumer } from '../platform/events/backbone/durable-consumer';
import { startServiceNotices } from '../platform/outbox/service-notices';
import { complianceForwarder } from '../platform/clients/compliance.forwarder';

export interface ValidationServiceOptions {
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
  /** Stand-ins for the registries' clients (tests). */
  registry?: ValidationModuleDeps['registry'];
  schemas?: ValidationModuleDeps['schemas'];
  /** This process's name in per-process consumer groups (default a random id) (tests). */
  instance?: string;
  /** The backbone consumers' fallback poll (default 1 s) (tests). */
  consumerPollMs?: number;
}

export function defineValidationService(options: ValidationServiceOptions = {}): ServiceDefinition {
  const validation: ServiceDefinition = defineService({
    name: 'validation',
    version: '0.1.0',
    port: 8083,
    subgraph: 'subgraphs/validation/schema.graphql',
    producesAudit: true,
    gatewayRoutes: [
      {
        method: 'POST',
        url: '/api/v1/rulepacks/execute',
        upstreamPath: '/validate',
        summary: 'Execute a rule pack (validation POST /validate)',
      },
    ],
    async build(deps) {
      const { config: platform, db, logger, env, registry } = deps;
      const config = loadValidationConfig(env, registry);
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      // compliance.rule_execution is written with each run's audit event and published from there.
      const notices = startServiceNotices(deps, bus, validation.name);
      const identity = new ServiceIdentity(platform.auth.jwtSecret, 'validation');
      // PLATFORM_COMPLIANCE_URL set: each run is also submitted through the typed ComplianceClient
      // (the backbone stays the at-least-once path; the intake takes each event id once).
      const compliance = complianceForwarder(env, identity, logger);
      const { service, packs } = createValidationModule({
        db,
        onNoticeCommitted: () => notices.wake(),
        forwardCompliance: (notice) => compliance.forward([notice]),
        config,
        logger,
        registry: options.registry,
        schemas: options.schemas,
        identity,
      });
      const tokens = new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60);

      const { app } = await buildServiceApp(validation, deps, {
        title: 'Validation',
        description:
          'Runs rule packs over JSON, CSV and XML payloads (spec 03): certified packs of the rule-pack registry (Ed25519 signature ' +
          "verified before they run) or inline packs. Violations are redacted of PII; every run is a rule_execution event in the tenant's ledger.",
        tokens,
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) =>
          registerValidationRoutes(routes, service, {
            version: validation.version,
            maxPayloadBytes: config.maxPayloadBytes,
          }),
        subgraph: { resolvers, context: (caller, request) => validationContext(caller, request, service) },
      });
      let deprecations: DurableConsumer | undefined;
      return {
        app,
        async start() {
          // A deprecated pack version leaves the cache at once, so its next run asks the registry
          // (which answers "deprecated, use ..." with a 409). The notices come from the backbone,
          // every tenant's stream (a certified pack runs in any tenant), in a group of this
          // process's own: each process has its own cache, so each must hear every deprecation
          // (docs/events.md, "Durable consumers"). At least once, each event id acted on once.
          deprecations = await consume(db, {
            subscription: 'validation.pack-cache',
            topic: RULEPACK_DEPRECATED.topic,
            perProcess: { instance: options.instance ?? randomUUID() },
            bus,
            logger: logger.child({ task: 'pack-cache-consumer' }),
            pollMs: options.consumerPollMs,
            handler: contractHandler(RULEPACK_DEPRECATED, (notice) => packs.drop(notice)),
          });
        },
        async stop() {
          await deprecations?.stop();
          await compliance.drain();
          await notices.stop();
          await releaseBus();
        },
      };
    },
  });
  return validation;
}

export const validationService: ServiceDefinition = defineValidationService();
