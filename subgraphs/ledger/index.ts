// The ledger service (spec 03, port 8136): REST routes (rest-compat/ledger), the ledger subgraph
// at /graphql and its subscription over graphql-ws on the same path, over one domain service with
// a group-committing appender.
import { AccessTokens } from '../../platform/auth/jwt';
import { readInt } from '../../platform/config/env';
import { serviceRequiresAuth } from '../../platform/config/platform.config';
import { serviceBus } from '../../platform/events/service-bus';
import type { EventBus } from '../../platform/events/event-bus';
import { defineService, type ServiceDefinition } from '../../platform/service';
import { buildServiceApp } from '../../platform/service-app';
import { registerLedgerRoutes } from '../../rest-compat/ledger';
import { ledgerContext } from './graphql.context';
import { readCheckpointConfig } from './checkpoint.config';
import { createLedgerModule, createLedgerProofs } from './ledger.module';
import { startNoticeRelay, type NoticeRelay } from './ledger-notice.relay';
import { serveLedgerSubscriptions } from './ledger.subscriptions';
import { resolvers } from './resolvers';

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
      { method: 'POST', url: '/api/v1/ledger/append', upstreamPath: '/append', injectTenant: 'body', summary: 'Append a ledger event (ledger POST /append)' },
      { method: 'GET', url: '/api/v1/ledger/verify', upstreamPath: '/verify', injectTenant: 'query', summary: 'Verify the ledger chain (ledger GET /verify)' },
      { method: 'GET', url: '/api/v1/ledger/events', upstreamPath: '/events', injectTenant: 'query', summary: 'Query ledger events (ledger GET /events)' },
    ],
    async build(deps) {
      const { config, db, logger } = deps;
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      // Notices come from committed rows (ledger-notice.relay.ts): a commit only wakes the relay.
      let relay: NoticeRelay | undefined;
      const ledgerModule = createLedgerModule(db, () => relay?.wake());
      const { service, committer } = ledgerModule;
      const proofs = await createLedgerProofs(db, ledgerModule, readCheckpointConfig(deps.env), logger);
      const tokens = new AccessTokens(config.auth.jwtSecret, config.auth.accessTokenExpireMinutes * 60);
      // The audit ledger demands a token by default (a write needs the `write` or `ledger:write`
      // scope): anonymous writes could forge anyone's trail. LEDGER_REQUIRE_AUTH=false (or
      // REQUIRE_AUTH=false without it) restores the spec's trust-the-gateway mode (tests, a sealed
      // network); serviceRequiresAuth is the one rule.
      const requireAuth = serviceRequiresAuth(deps.env, ledger);

      const { app, schema } = await buildServiceApp(ledger, deps, {
        title: 'Audit ledger',
        description: 'Append-only, hash-chained audit log per tenant (spec 03). created_at is ISO 8601 with microseconds and +00:00, '
          + 'exactly the text hashed into content_hash. Errors use FastAPI shapes; 503 when the database stays unavailable.',
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
            sql: db.sql, bus, logger: logger.child({ task: 'ledger-notice-relay' }),
            pollMs: readInt(deps.env, 'LEDGER_NOTICE_POLL_MS', 250, { min: 10, max: 60_000 }),
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
