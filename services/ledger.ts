// The ledger service (spec 03, port 8136): REST routes (rest-compat/ledger), the ledger subgraph
// at /graphql and its subscription over graphql-ws on the same path, over one domain service with
// a group-committing appender.
import { acceptingAsymmetric } from '../platform/auth/asymmetric-tokens';
import { AccessTokens } from '../platform/auth/jwt';
import { serviceBus } from '../platform/events/service-bus';
import type { EventBus } from '../platform/events/event-bus';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerLedgerRoutes } from '../rest-compat/ledger';
import { ledgerContext } from '../subgraphs/ledger/graphql.context';
import { loadLedgerConfig } from '../subgraphs/ledger/ledger.config';
import { createLedgerModule, createLedgerProofs } from '../subgraphs/ledger/ledger.module';
import { startNoticeRelay, type NoticeRelay } from '../subgraphs/ledger/ledger-notice.relay';
import { serveLedgerSubscriptions } from '../subgraphs/ledger/ledger.subscriptions';
import { resolvers } from '../subgraphs/ledger/resolvers';

export interface LedgerServiceOptions {
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
}

export function defineLedgerService(options: LedgerServiceOptions = {}): ServiceDefinition {
  const ledger: ServiceDefinition = defineService({
    name: 'ledger',
    version: '1.0.0',
    port: 8136,
    subgraph: 'subgraphs/ledger/schema.graphql',
    gatewayRoutes: [
      {
        method: 'POST',
        url: '/api/v1/ledger/append',
        upstreamPath: '/append',
        injectTenant: 'body',
        summary: 'Append a ledger event (ledger POST /append)',
      },
      {
        method: 'GET',
        url: '/api/v1/ledger/verify',
        upstreamPath: '/verify',
        injectTenant: 'query',
        summary: 'Verify the ledger chain (ledger GET /verify)',
      },
      {
        method: 'GET',
        url: '/api/v1/ledger/events',
        upstreamPath: '/events',
        injectTenant: 'query',
        summary: 'Query ledger events (ledger GET /events)',
      },
    ],
    async build(deps) {
      const { config, db, env, logger } = deps;
      // A token by default; LEDGER_REQUIRE_AUTH=false restores trust-the-gateway (ledger.config.ts).
      const { requireAuth, noticePollMs, checkpoints } = loadLedgerConfig(env);
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      // Notices come from committed rows (ledger-notice.relay.ts): a commit only wakes the relay.
      let relay: NoticeRelay | undefined;
      const ledgerModule = createLedgerModule(db, () => relay?.wake());
      const { service, committer } = ledgerModule;
      const proofs = await createLedgerProofs(db, ledgerModule, checkpoints, logger);
      // HTTP and graphql-ws alike: HS256 and the OIDC provider's tokens (the router forwards the caller's).
      const tokens = acceptingAsymmetric(
        new AccessTokens(config.auth.jwtSecret, config.auth.accessTokenExpireMinutes * 60),
        config.auth.oidc,
      );

      const { app, schema } = await buildServiceApp(ledger, deps, {
        title: 'Audit ledger',
        description:
          'Append-only, hash-chained audit log per tenant (spec 03). created_at is ISO 8601 with microseconds and +00:00, ' +
          'exactly the text hashed into content_hash. Errors use FastAPI shapes; 503 when the database stays unavailable.',
        tokens,
        restAuth: requireAuth ? 'required' : 'optional',
        rest: (routes) => registerLedgerRoutes(routes, service, proofs),
        subgraph: { resolvers, context: (caller) => ledgerContext(caller, service, requireAuth, proofs) },
      });
      serveLedgerSubscriptions({ app, schema: schema!, bus, service, proofs, tokens, requireAuth });

      return {
        app,
        async start() {
          await proofs.start((tenantId) => committer.catchUpTree(tenantId));
          relay = startNoticeRelay({
            sql: db.sql,
            bus,
            logger: logger.child({ task: 'ledger-notice-relay' }),
            pollMs: noticePollMs,
          });
        },
        async stop() {
          // Appends already accepted finish (commit or fail) and are announced before the bus and database go.
          proofs.stop();
          await committer.drain();
          if (relay) {
            await Promise.race([relay.flush(), new Promise((r) => setTimeout(r, 2000).unref())]);
            await relay.stop();
          }
          await releaseBus();
        },
      };
    },
  });
  return ledger;
}

export const ledgerService: ServiceDefinition = defineLedgerService();
