// The ledger service (spec 03, port 8136): REST routes (rest-compat/ledger.ts), the ledger
// subgraph over HTTP at /graphql, and its subscription over graphql-ws on the same path, all over
// one domain service with a group-committing appender.
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { parse } from 'graphql';
import { AccessTokens } from '../../platform/auth/jwt';
import { databaseIsReady } from '../../platform/db/database';
import { createEventBus } from '../../platform/events/create-event-bus';
import type { EventBus } from '../../platform/events/event-bus';
import { mountSubgraph } from '../../platform/graphql/subgraph-server';
import { readSubgraphSchema } from '../../platform/graphql/subgraph-schema';
import { createServiceApp } from '../../platform/http/service-app';
import type { ServiceDefinition } from '../../platform/service';
import { registerLedgerRoutes } from '../../rest-compat/ledger';
import { buildContext, callerFrom, type LedgerGraphQLContext } from './graphql.context';
import { GroupCommitter } from './ledger-append.service';
import { createLedgerService } from './ledger.service';
import { createLedgerStore } from './ledger.store';
import { EVENT_APPENDED_TOPIC, serveSubscriptions, type AppendedNotice } from './ledger.subscriptions';
import { resolvers } from './resolvers';

export const LEDGER_VERSION = '1.0.0';

export function ledgerTypeDefs(): string {
  return readSubgraphSchema('ledger');
}

export interface LedgerServiceOptions {
  /** An event bus to use instead of the configured one (tests); the caller then owns closing it. */
  bus?: EventBus;
}

export function defineLedgerService(options: LedgerServiceOptions = {}): ServiceDefinition {
  return {
    name: 'ledger',
    version: LEDGER_VERSION,
    async build({ config, db, logger }) {
      const bus = options.bus ?? await createEventBus({
        natsUrl: config.natsUrl,
        postgresUrl: db.kind === 'postgres' ? config.database.url : undefined,
        onError: (err) => logger.warn({ err }, 'event bus error'),
      });
      const store = createLedgerStore(db.sql, { pageAsJson: db.kind === 'pglite' });
      const committer = new GroupCommitter(store, {
        // PGlite is one connection: a second transaction would only queue behind the first.
        maxInFlight: db.kind === 'pglite' ? 1 : 2,
        onCommitted: (events) => {
          for (const e of events) {
            const notice: AppendedNotice = { id: e.id, tenant_id: e.tenantId, seq: e.seq, event_type: e.eventType };
            bus.publish(EVENT_APPENDED_TOPIC, notice).catch((err) => logger.warn({ err }, 'publishing ledger.event_appended failed'));
          }
        },
      });
      const service = createLedgerService({ store, committer });
      const tokens = new AccessTokens(config.auth.jwtSecret, config.auth.accessTokenExpireMinutes * 60);
      const requireAuth = config.auth.requireAuth;

      const app = await createServiceApp({
        name: 'ledger',
        title: 'Audit ledger',
        version: LEDGER_VERSION,
        description: 'Append-only, hash-chained audit log per tenant (spec 03). created_at is ISO 8601 with microseconds and +00:00, '
          + 'exactly the text hashed into content_hash. Errors use FastAPI shapes; 503 when the database stays unavailable.',
        config,
        health: { readiness: { database: () => databaseIsReady(db) } },
      });
      await registerLedgerRoutes(app, { service, tokens, requireAuth });

      const typeDefs = parse(ledgerTypeDefs());
      const context = async (request: import('fastify').FastifyRequest): Promise<LedgerGraphQLContext> => {
        const tenantHeader = request.headers['x-tenant-id'];
        const caller = await callerFrom({ authorization: request.headers.authorization, tenantHeader: typeof tenantHeader === 'string' ? tenantHeader : undefined }, tokens);
        return buildContext(caller, service, requireAuth);
      };
      await mountSubgraph<LedgerGraphQLContext>(app, { typeDefs, resolvers: resolvers as unknown as GraphQLResolverMap<LedgerGraphQLContext>, context });
      serveSubscriptions({
        app,
        schema: buildSubgraphSchema({ typeDefs, resolvers: resolvers as unknown as GraphQLResolverMap<unknown> }),
        bus, service, tokens, requireAuth,
      });

      return {
        app,
        async stop() {
          // Appends already accepted finish (commit or fail) before the bus and database go.
          await committer.drain();
          if (!options.bus) await bus.close();
        },
      };
    },
  };
}

export const ledgerService: ServiceDefinition = defineLedgerService();
