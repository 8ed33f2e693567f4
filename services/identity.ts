// The identity service (spec 01, port 8082): REST routes (rest-compat/identity) and the identity
// subgraph on one app, over Prisma stores, with built-in roles, tenant `default`, the platform
// operator (when configured) and the development users seeded at build time.
import { redisKeyPrefix } from '../platform/config/platform.config';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerIdentityRoutes } from '../rest-compat/identity';
import { identityContext } from '../subgraphs/identity/graphql.context';
import { loadIdentityConfig } from '../subgraphs/identity/identity.config';
import { createIdentityServices } from '../subgraphs/identity/identity.module';
import { redisThrottleStore } from '../subgraphs/identity/login-throttle.redis';
import { memoryThrottleStore } from '../subgraphs/identity/login.throttle';
import { prismaUnitOfWork } from '../subgraphs/identity/identity.stores';
import { resolvers } from '../subgraphs/identity/resolvers';
import { seedIdentity } from '../subgraphs/identity/seed.service';
import { loadOidcConfig } from '../subgraphs/identity/oidc/oidc.config';
import { createOidcKeys, createOidcServices } from '../subgraphs/identity/oidc/oidc.module';
import { registerOidcRoutes } from '../rest-compat/identity/oidc.routes';

// Nothing to override yet; the options object keeps every service's assembly one shape.
export type IdentityServiceOptions = Record<string, never>;

export function defineIdentityService(_options: IdentityServiceOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'identity',
    version: '0.1.0',
    port: 8082,
    subgraph: 'subgraphs/identity/schema.graphql',
    producesAudit: true,
    async build(deps) {
      const { config, db, env, logger } = deps;
      const identityConfig = loadIdentityConfig(env, config.auth.jwtSecret);
      const stores = prismaUnitOfWork(db.prisma);
      // Shared through Redis when several identity processes run, so the backoff is per account, not per process.
      const redisThrottle = config.redisUrl
        ? redisThrottleStore(config.redisUrl, `${redisKeyPrefix(config.namespace)}identity:login-throttle:`)
        : undefined;
      // The OIDC provider's keys come first: identity verifies its asymmetric tokens from that table.
      const oidcConfig = loadOidcConfig(
        env,
        config.auth.oidc.issuer,
        identityConfig.mfa.key,
        config.auth.refreshTokenExpireDays,
      );
      const oidcKeys = createOidcKeys(db.prisma, oidcConfig, identityConfig.mfa.key);
      const services = createIdentityServices(
        stores,
        config,
        identityConfig,
        redisThrottle ?? memoryThrottleStore(),
        oidcKeys.verifier,
      );
      const oidc = createOidcServices(oidcKeys, { ...services, stores }, oidcConfig, (err) =>
        logger.error({ err }, 'oidc provider error'),
      );
      const seeded = await seedIdentity(stores, services.hasher, identityConfig);
      if (seeded.created.length > 0) logger.info({ created: seeded.created }, 'identity seed data created');
      if (identityConfig.mfa.keyDerived && config.auth.jwtSecretGenerated)
        logger.warn(
          'IDENTITY_MFA_KEY and JWT_SECRET_KEY are unset: enrolled second factors will not open after a restart',
        );
      // Make the dummy hash now, so the first unknown-user login costs what every later one costs.
      await services.hasher.verifyDummy('warm-up');

      const { app } = await buildServiceApp(definition, deps, {
        title: 'Identity service',
        description:
          'Authentication, authorization, tenant and role management (spec 01). Errors use FastAPI shapes: 401 `{detail}` with `WWW-Authenticate: Bearer`, 403 `{detail}`, 422 `{detail: [{loc, msg, type}]}`.',
        tokens: services.verifier,
        restAuth: 'required',
        rest: async (routes) => {
          registerIdentityRoutes(routes, services, {
            version: definition.version,
            expiresIn: config.auth.accessTokenExpireMinutes * 60,
            refreshDays: config.auth.refreshTokenExpireDays,
          });
          await registerOidcRoutes(routes, oidc);
        },
        subgraph: { resolvers, context: (caller) => identityContext(services, caller) },
      });
      return {
        app,
        start: async () => oidc.purger.start(),
        stop: async () => {
          await oidc.purger.stop();
          await redisThrottle?.close();
        },
      };
    },
  });
  return definition;
}

export const identityService: ServiceDefinition = defineIdentityService();
