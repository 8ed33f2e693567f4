// Wires the events domain from its dependencies: the store, the tenant access rule (an operator's
// access recorded in the tenant's ledger through the outbox) and the post-commit notifier.
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import type { Database } from '../../platform/db/database';
import { auditEvent, outboxWriter } from '../../platform/outbox/outbox.writer';
import type { EventsConfig } from './events.config';
import { EventsService, type Notify } from './events.service';
import {
  createEventsStore,
  type EventsStore,
  type EventsStoreHooks,
} from '../../platform/events/backbone/backbone.store';

export interface EventsModule {
  service: EventsService;
  store: EventsStore;
  /** The tenant rule, shared with the webhook doors (webhooks/webhook.service.ts). */
  access: TenantAccess;
}

export function createEventsModule(deps: {
  db: Database;
  config: EventsConfig;
  notify?: Notify;
  /** Work in each new event's own transaction (the webhook queue); SQL storage only. */
  afterInsert?: EventsStoreHooks['afterInsert'];
  /** The storage chosen from the environment (platform/events/backbone/jetstream.config.ts); SQL by default. */
  store?: EventsStore;
}): EventsModule {
  const store = deps.store ?? createEventsStore(deps.db.sql, deps.afterInsert ? { afterInsert: deps.afterInsert } : {});
  const outbox = outboxWriter(deps.db.prisma, 'events');
  const access = new TenantAccess((a) =>
    outbox.append(
      auditEvent(a, {
        tenantId: a.tenantId,
        type: OPERATOR_ACCESS_EVENT,
        actor: a.operator,
        data: operatorAccessData(a),
      }),
    ),
  );
  return { store, access, service: new EventsService(store, access, deps.config, deps.notify) };
}
