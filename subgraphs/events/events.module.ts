// Wires the events domain from its dependencies: the store, the tenant access rule (an operator's
// access recorded in the tenant's ledger through the outbox) and the post-commit notifier.
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import type { Database } from '../../platform/db/database';
import { auditEvent, outboxWriter } from '../../platform/outbox/outbox.writer';
import type { EventsConfig } from './events.config';
import { EventsService, type Notify } from './events.service';
import { createEventsStore, type EventsStore } from '../../platform/events/backbone/backbone.store';

export interface EventsModule {
  service: EventsService;
  store: EventsStore;
}

export function createEventsModule(deps: {
  db: Database;
  config: EventsConfig;
  notify?: Notify;
  /** The storage chosen from the environment (platform/events/backbone/jetstream.config.ts); SQL by default. */
  store?: EventsStore;
}): EventsModule {
  const store = deps.store ?? createEventsStore(deps.db.sql);
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
  return { store, service: new EventsService(store, access, deps.config, deps.notify) };
}
