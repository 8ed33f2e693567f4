// `configChanged`, fed the platform's way ("pull on notify", platform/events/pull-on-notify.ts):
// each committed change publishes `config.changed` on the bus; a notice only wakes the feed, which
// then reads the change log after the last position it delivered, restricted to the changes that
// may touch the subscriber's tenant (its own layer's and the operator layers'). So a subscriber
// sees every such change once and in order whatever the bus does, can resume from `afterSeq`, and
// another tenant's changes never reach it: the filter is in the query, not in the notice.
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { CONFIG_CHANGED } from '../../platform/contracts/config.events';
import type { Database } from '../../platform/db/database';
import type { EventBus } from '../../platform/events/event-bus';
import { pullOnNotify, type Feed } from '../../platform/events/pull-on-notify';
import { serveSubscriptions } from '../../platform/graphql/subscription-server';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { createConfigStore } from './config.store';
import type { ConfigModule } from './config.module';
import type { ChangeNotice } from './config.types';
import { configContext, type ConfigGraphQLContext } from './graphql.context';

const PAGE = 200;

export function changeFeed(db: Database, tenantId: string): Feed<ChangeNotice, typeof CONFIG_CHANGED> {
  return {
    contract: CONFIG_CHANGED,
    pageSize: PAGE,
    wakes: (n) => n.tenant_id === null || n.tenant_id === tenantId,
    read: (after) => createConfigStore(db.sql).changesAfter(tenantId, after, PAGE),
    positionOf: (c) => c.seq,
  };
}

export interface ConfigSubscriptionOptions {
  app: FastifyInstance;
  schema: GraphQLSchema;
  bus: EventBus;
  db: Database;
  config: ConfigModule;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
}

/** graphql-ws on the service's own /graphql path (the router forwards subscriptions here). */
export function serveConfigSubscriptions(options: ConfigSubscriptionOptions): void {
  const { bus, db, config } = options;
  serveSubscriptions<ConfigGraphQLContext>({
    ...options,
    context: (caller) => {
      // No bearer token to forward: a subscription reads the change log only.
      const context = configContext(caller, undefined, config);
      return {
        ...context,
        subscribeChanges: async (afterSeq, tenantId) => {
          const tenant = await config.effective.subscriptionTenant(context.caller, tenantId);
          return pullOnNotify(
            bus,
            changeFeed(db, tenant),
            async () => afterSeq ?? (await createConfigStore(db.sql).headSeq()),
          );
        },
      };
    },
  });
}
