// The events service's own settings, parsed once at build time with the platform's env helpers,
// so a bad value stops the service with a message naming the variable.
import { readInt } from '../../platform/config/env';
import { serviceRequiresAuth } from '../../platform/config/platform.config';
import type { Env } from '../../platform/service';

export interface EventsConfig {
  /** EVENTS_REQUIRE_AUTH, else REQUIRE_AUTH, else true: the platform's one rule. */
  requireAuth: boolean;
  /** Largest event (envelope + data, serialised) accepted, in bytes (EVENTS_MAX_EVENT_BYTES); larger is 413. */
  maxEventBytes: number;
  /** Publishes per tenant per second and process (EVENTS_PUBLISH_PER_SECOND); over it is 429. */
  publishPerSecond: number;
  /** Bytes of events a tenant may keep (EVENTS_TENANT_STORAGE_BYTES); over it a publish is 429. */
  tenantStorageBytes: number;
  /** Defaults of a new subscription (each may be set per subscription). */
  subscriptionDefaults: { maxDeliveries: number; ackTimeoutMs: number; backoffMs: number };
}

export function loadEventsConfig(env: Env): EventsConfig {
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'events' }),
    maxEventBytes: readInt(env, 'EVENTS_MAX_EVENT_BYTES', 256 * 1024, { min: 1024, max: 16 * 1024 * 1024 }),
    publishPerSecond: readInt(env, 'EVENTS_PUBLISH_PER_SECOND', 1000, { min: 1, max: 1_000_000 }),
    tenantStorageBytes: readInt(env, 'EVENTS_TENANT_STORAGE_BYTES', 1024 * 1024 * 1024, { min: 1024 }),
    subscriptionDefaults: {
      maxDeliveries: readInt(env, 'EVENTS_MAX_DELIVERIES', 5, { min: 1, max: 100 }),
      ackTimeoutMs: readInt(env, 'EVENTS_ACK_TIMEOUT_MS', 30_000, { min: 100, max: 3_600_000 }),
      backoffMs: readInt(env, 'EVENTS_BACKOFF_MS', 1000, { min: 0, max: 3_600_000 }),
    },
  };
}
