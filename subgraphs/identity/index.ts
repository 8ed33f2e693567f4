// The identity service: REST routes (rest-compat/identity) and the identity subgraph on one
// Fastify app, over Prisma stores, with built-in roles, tenant `default` and dev users seeded
// at build time.
import { parse } from 'graphql';
import { databaseIsReady } from '../../platform/db/database';
import { createServiceApp } from '../../platform/http/service-app';
import { mountSubgraph } from '../../platform/graphql/subgraph-server';
import { readSubgraphSchema } from '../../platform/graphql/subgraph-schema';
import type { ServiceDefinition } from '../../platform/service';
import { registerIdentityRoutes } from '../../rest-compat/identity';
import { contextBuilder } from './graphql.context';
import { loadIdentityConfig } from './identity.config';
import { createIdentityServices } from './identity.module';
import { prismaUnitOfWork } from './identity.stores';
import { resolvers } from './resolvers';
import { seedIdentity } from './seed.service';

export const IDENTITY_VERSION = '0.1.0';

export function identityTypeDefs(): string {
  return readSubgraphSchema('identity');
}

export const identityService: ServiceDefinition = {
  name: 'identity',
  version: IDENTITY_VERSION,
  async build({ config, db, env, logger }) {
    const identityConfig = loadIdentityConfig(env);
    const stores = prismaUnitOfWork(db.prisma);
    const services = createIdentityServices(stores, config, identityConfig);
    const seeded = await seedIdentity(stores, services.hasher, identityConfig);
    if (seeded.created.length > 0) logger.info({ created: seeded.created }, 'identity seed data created');
    // Make the dummy hash now, so the first unknown-user login costs what every later one costs.
    await services.hasher.verifyDummy('warm-up');

    const app = await createServiceApp({
      name: 'identity',
      title: 'Identity service',
      version: IDENTITY_VERSION,
      description: 'Authentication, authorization, tenant and role management (spec 01). Errors use FastAPI shapes: 401 `{detail}` with `WWW-Authenticate: Bearer`, 403 `{detail}`, 422 `{detail: [{loc, msg, type}]}`.',
      config,
      health: { readiness: { database: () => databaseIsReady(db) } },
    });
    registerIdentityRoutes(app, services, {
      version: IDENTITY_VERSION,
      expiresIn: config.auth.accessTokenExpireMinutes * 60,
      refreshDays: config.auth.refreshTokenExpireDays,
    });
    await mountSubgraph(app, { typeDefs: parse(identityTypeDefs()), resolvers, context: contextBuilder(services) });
    return { app };
  },
};
