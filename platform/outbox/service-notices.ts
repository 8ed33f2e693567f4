// The notice relay a producing service runs beside itself: it publishes the service's own rows of
// the notice outbox on the service's bus. Each service relays its own, so a process running
// several services runs several relays, which share the table safely (SKIP LOCKED).
// NOTICE_RELAY_POLL_MS: how often rows left by other (or dead) processes are looked for.
// NOTICE_RELAY_START_DELAY_MS: no pass before this delay (the kill test keeps a notice pending with it).
//
// Each notice appended to the backbone is also queued for the tenant's matching webhook endpoints
// in the same transaction (webhook-queue.store.ts), exactly as an event published through the
// events service's doors is: a webhook subscribed to `workflow.*` receives workflow lifecycle
// notices. The events service's delivery worker sends them.
import { readInt } from '../config/env';
import { createEventsStore } from '../events/backbone/backbone.store';
import { webhookQueueHooks } from '../events/backbone/webhook-queue.store';
import type { EventBus } from '../events/event-bus';
import type { ServiceDeps } from '../service';
import { startNoticeRelay, type NoticeRelay } from './notice-relay';

export function startServiceNotices(
  deps: Pick<ServiceDeps, 'db' | 'env' | 'logger'>,
  bus: Pick<EventBus, 'publish'>,
  service: string,
): NoticeRelay {
  return startNoticeRelay({
    db: deps.db,
    bus,
    logger: deps.logger.child({ task: 'notice-relay', service }),
    services: [service],
    pollMs: readInt(deps.env, 'NOTICE_RELAY_POLL_MS', 250, { min: 10, max: 60_000 }),
    startDelayMs: readInt(deps.env, 'NOTICE_RELAY_START_DELAY_MS', 0, { min: 0 }),
    backbone: { store: (sql) => createEventsStore(sql, webhookQueueHooks) },
  });
}
