// Wires the webhook module: the events service calls `deliver(event)` for every event it
// publishes (inside its own transaction when it passes one), serves `endpoints` through its REST
// and GraphQL doors, publishes `endpoints.jwks(tenantId)`, and starts and stops the worker with
// the process.
import type { Database } from '../../../platform/db/database';
import type { SqlQuery } from '../../../platform/db/sql';
import type { Logger } from '../../../platform/logging/logger';
import { queueWebhooks } from '../../../platform/events/backbone/webhook-queue.store';
import { createAddressGuard } from './address.guard';
import { createDeliveryStore } from './delivery.store';
import { createDeliveryWorker, type DeliveryWorker } from './delivery.worker';
import { createEndpointService, type EndpointService } from './endpoint.service';
import { createEndpointStore } from './endpoint.store';
import type { WebhookConfig } from './webhook.config';
import { createWebhookSender } from './webhook.sender';

/** The part of a CloudEvents 1.0 envelope the module reads; the whole event is the body sent. */
export interface WebhookEvent {
  id: string;
  type: string;
  tenantid: string;
  [attribute: string]: unknown;
}

export interface WebhookModule {
  endpoints: EndpointService;
  /**
   * Queues the event for every enabled endpoint of its tenant whose topic filter matches; returns
   * how many. Pass the transaction that records the event so both commit together.
   */
  deliver(event: WebhookEvent, tx?: SqlQuery): Promise<number>;
  worker: DeliveryWorker;
}

export interface WebhookModuleOptions {
  db: Database;
  logger: Logger;
  config: WebhookConfig;
  /** Wall clock for `webhook-timestamp` (tests). */
  now?: () => Date;
}

export function createWebhookModule({ db, logger, config, now }: WebhookModuleOptions): WebhookModule {
  const guard = createAddressGuard(config);
  const endpointStore = createEndpointStore(db.sql);
  const deliveries = createDeliveryStore(db);
  const endpoints = createEndpointService({ endpoints: endpointStore, deliveries, guard, config });
  const worker = createDeliveryWorker({
    deliveries,
    endpoints: endpointStore,
    service: endpoints,
    send: createWebhookSender(guard),
    config,
    logger,
    ...(now ? { now } : {}),
  });

  return {
    endpoints,
    async deliver(event, tx) {
      // The queueing is the platform's (webhook-queue.store.ts): notice relays queue the same way.
      const queued = await queueWebhooks(tx ?? db.sql, event);
      if (queued > 0) worker.wake();
      return queued;
    },
    worker,
  };
}
