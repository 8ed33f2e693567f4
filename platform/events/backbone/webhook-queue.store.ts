// Queues one stored event for its tenant's webhook endpoints: a single INSERT ... SELECT over the
// tenant's enabled endpoints whose topic filter matches, run on the caller's transaction. It lives
// in platform/ beside the backbone's store so that every path appending to the backbone can pass
// it as the store's `afterInsert` hook (the events service does; a producer's notice relay, which
// cannot import subgraphs/, can too): an event and its deliveries then commit together, whoever
// appends it. The delivery worker, endpoints and signing are the events service's
// (subgraphs/events/webhooks, docs/webhooks.md).
//
// The topic filter is the one topic.filter.ts states: an empty list matches everything, an entry
// ending in `*` matches by prefix (`*` alone: everything), any other entry exactly.
import type { SqlQuery } from '../../db/sql';
import type { EventsStoreHooks } from './backbone.store';
import type { EventRecord } from './backbone.types';
import { cloudEventJson } from './cloud-event';

/** The part of a CloudEvents 1.0 envelope the queue reads; the whole envelope is the body sent and signed. */
export interface QueuedEnvelope {
  id: string;
  type: string;
  [attribute: string]: unknown;
}

/** Queues the envelope for every matching enabled endpoint of the tenant; returns how many. Once per (endpoint, id). */
export async function queueWebhookDeliveries(q: SqlQuery, tenantId: string, envelope: QueuedEnvelope): Promise<number> {
  const res = await q.query(
    `INSERT INTO webhook_queue (tenant_id, endpoint_id, event_id, event_type, payload)
     SELECT e.tenant_id, e.id, $2::text, $3::text, $4::text FROM webhook_endpoints e
      WHERE e.tenant_id = $1 AND e.enabled
        AND (cardinality(e.topics) = 0 OR EXISTS (
              SELECT 1 FROM unnest(e.topics) AS f(entry)
               WHERE CASE WHEN right(f.entry, 1) = '*' THEN starts_with($3::text, left(f.entry, -1))
                          ELSE f.entry = $3::text END))
     ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
    [tenantId, envelope.id, envelope.type, JSON.stringify(envelope)],
  );
  return res.rowCount;
}

/**
 * The backbone store's hook that queues each stored event's webhooks in its transaction, for a
 * path outside the events service: `createEventsStore(sql, webhookQueueHooks)`. The events
 * service's worker sends them (within EVENTS_WEBHOOK_POLL_MS).
 */
export const webhookQueueHooks: EventsStoreHooks = {
  async afterInsert(tx, event) {
    await queueWebhookDeliveries(tx, event.tenantId, { ...cloudEventJson(event), id: event.id, type: event.type });
  },
  async afterInsertMany(tx, events) {
    await queueWebhookDeliveriesMany(tx, events);
  },
};

/**
 * `queueWebhookDeliveries` for many stored events (of any tenants) in one statement. The tenants
 * with an enabled endpoint are asked first (one index read): most events have none, and building,
 * sending and parsing every event's signed body for a join that matched nothing was ~45 us of the
 * notice relay's CPU and ~30 us of the server's per notice (docs/benchmarks.md, branch val round 3).
 */
export async function queueWebhookDeliveriesMany(q: SqlQuery, events: readonly EventRecord[]): Promise<number> {
  if (events.length === 0) return 0;
  const listening = await q.query<{ tenant_id: string }>(
    'SELECT DISTINCT tenant_id FROM webhook_endpoints WHERE tenant_id = ANY($1::text[]) AND enabled',
    [[...new Set(events.map((e) => e.tenantId))]],
  );
  if (listening.rows.length === 0) return 0;
  const tenants = new Set(listening.rows.map((r) => r.tenant_id));
  const rows = events
    .filter((e) => tenants.has(e.tenantId))
    .map((e) => ({
      tenant_id: e.tenantId,
      id: e.id,
      type: e.type,
      payload: JSON.stringify({ ...cloudEventJson(e), id: e.id, type: e.type }),
    }));
  const res = await q.query(
    `INSERT INTO webhook_queue (tenant_id, endpoint_id, event_id, event_type, payload)
     SELECT e.tenant_id, e.id, v.id, v.type, v.payload
       FROM json_to_recordset($1::json) AS v(tenant_id text, id text, type text, payload text)
       JOIN webhook_endpoints e ON e.tenant_id = v.tenant_id AND e.enabled
      WHERE cardinality(e.topics) = 0 OR EXISTS (
              SELECT 1 FROM unnest(e.topics) AS f(entry)
               WHERE CASE WHEN right(f.entry, 1) = '*' THEN starts_with(v.type, left(f.entry, -1))
                          ELSE f.entry = v.type END)
     ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
    [JSON.stringify(rows)],
  );
  return res.rowCount;
}
