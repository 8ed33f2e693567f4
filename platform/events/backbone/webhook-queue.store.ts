// The webhook queue's producing side (docs/webhooks.md): an event stored in the backbone is queued
// for every enabled webhook endpoint of its tenant whose topic filter matches its type, in the
// event's own transaction (the events store's afterInsert hook). It lives in platform/ because two
// kinds of writers store events: the events service's doors, and every producing service's notice
// relay (platform/outbox/service-notices.ts), which cannot import the events service's webhook
// module (subgraphs/events/webhooks, a higher rank). The sending side (claims, signatures, the
// SSRF guard, retries) stays in that module; its worker, in the events service's process, finds
// what a relay queued at its next poll (EVENTS_WEBHOOK_POLL_MS).
import type { SqlQuery } from '../../db/sql';
import type { EventsStoreHooks } from './backbone.store';
import type { EventRecord } from './backbone.types';

/** The part of a CloudEvents 1.0 envelope the queue reads; the whole envelope is the body sent. */
export interface QueuedEvent {
  id: string;
  type: string;
  tenantid: string;
  [attribute: string]: unknown;
}

/** A stored event's structured JSON CloudEvent (what REST readers and webhook receivers get). */
export function cloudEventJson(e: EventRecord): Record<string, unknown> {
  return {
    specversion: e.specversion,
    id: e.id,
    source: e.source,
    type: e.type,
    time: e.time,
    ...(e.subject !== null ? { subject: e.subject } : {}),
    datacontenttype: 'application/json',
    tenantid: e.tenantId,
    ...(e.traceparent !== null ? { traceparent: e.traceparent } : {}),
    topic: e.topic,
    position: e.position,
    data: e.data,
  };
}

/**
 * Which events an endpoint receives: an empty filter means every topic of the tenant; an entry
 * ending in `*` matches by prefix (`workflow.*`), any other entry matches exactly.
 */
export function topicMatches(filter: readonly string[], topic: string): boolean {
  if (filter.length === 0) return true;
  return filter.some((f) => (f.endsWith('*') ? topic.startsWith(f.slice(0, -1)) : f === topic));
}

/**
 * Queues the event for its tenant's matching enabled endpoints in `q`'s transaction; resolves with
 * how many rows were queued. `(endpoint, event id)` is unique: an event stored twice upstream is
 * queued once.
 */
export async function queueWebhooks(q: SqlQuery, event: QueuedEvent): Promise<number> {
  // Tenant first: only this tenant's endpoints are ever considered.
  const endpoints = await q.query<{ id: string; topics: string[] }>(
    `SELECT id::text AS id, topics FROM webhook_endpoints WHERE tenant_id = $1 AND enabled ORDER BY created_at, id`,
    [event.tenantid],
  );
  const targets = endpoints.rows.filter((e) => topicMatches(e.topics, event.type));
  if (targets.length === 0) return 0;
  const payload = JSON.stringify(event);
  const res = await q.query(
    `INSERT INTO webhook_queue (tenant_id, endpoint_id, event_id, event_type, payload)
     SELECT $1, endpoint_id, $3, $4, $5 FROM unnest($2::uuid[]) AS t(endpoint_id)
     ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
    [event.tenantid, targets.map((t) => t.id), event.id, event.type, payload],
  );
  return res.rowCount;
}

/** The events store's hook that queues each stored event's webhooks in its transaction. */
export function webhookQueueHook(onQueued?: (count: number) => void): Required<EventsStoreHooks> {
  return {
    async afterInsert(tx, event) {
      const queued = await queueWebhooks(tx, cloudEventJson(event) as QueuedEvent);
      if (queued > 0) onQueued?.(queued);
    },
  };
}
