// Picks the bus from configuration: NATS JetStream when NATS_URL is set, else the embedded one
// (PostgreSQL LISTEN/NOTIFY when the platform runs on PostgreSQL, in-process on PGlite, which is
// single-process anyway).
import type { StreamConfig } from '../config/platform.config';
import { streamNames } from '../config/platform.config';
import type { EventBus } from './event-bus';
import { createMemoryEventBus } from './memory-event-bus';
import { createNatsEventBus } from './nats-event-bus';
import { createPostgresEventBus } from './postgres-event-bus';

export interface EventBusConfig {
  natsUrl?: string;
  postgresUrl?: string;
  /** PLATFORM_NAMESPACE: names the NATS stream and prefixes its subjects. */
  namespace?: string;
  stream?: StreamConfig;
  onError?: (err: unknown) => void;
}

export async function createEventBus(config: EventBusConfig): Promise<EventBus> {
  if (config.natsUrl) {
    const names = streamNames(config.namespace ?? '');
    return createNatsEventBus({
      url: config.natsUrl,
      stream: names.stream,
      subjectPrefix: names.subjectPrefix,
      limits: config.stream,
      onError: config.onError,
    });
  }
  if (config.postgresUrl) return createPostgresEventBus(config.postgresUrl, config.onError);
  return createMemoryEventBus(config.onError);
}
