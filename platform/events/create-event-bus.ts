// Picks the bus from configuration: NATS JetStream when NATS_URL is set, else the embedded one
// (PostgreSQL LISTEN/NOTIFY when the platform runs on PostgreSQL, in-process on PGlite, which is
// single-process anyway).
import type { EventBus } from './event-bus';
import { createMemoryEventBus } from './memory-event-bus';
import { createNatsEventBus } from './nats-event-bus';
import { createPostgresEventBus } from './postgres-event-bus';

export interface EventBusConfig {
  natsUrl?: string;
  postgresUrl?: string;
  onError?: (err: unknown) => void;
}

export async function createEventBus(config: EventBusConfig): Promise<EventBus> {
  if (config.natsUrl) return createNatsEventBus({ url: config.natsUrl, onError: config.onError });
  if (config.postgresUrl) return createPostgresEventBus(config.postgresUrl, config.onError);
  return createMemoryEventBus(config.onError);
}
