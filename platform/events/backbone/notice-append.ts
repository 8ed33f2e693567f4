// Notices into the backbone: the notice relay appends each claimed notice_outbox row to its
// (tenant, topic) stream in the claim's own transaction, so a notice enters the log exactly once
// with the outbox's bookkeeping (store.publish semantics: the CloudEvent id is the event id, and
// a relay that crashed after an append but before its mark committed rolled both back; one whose
// append committed in another pass finds a duplicate). One path: what the events service's
// REST and GraphQL doors publish and what producers write to their outbox share the streams,
// the durable subscriptions and the live feeds.
import type { SqlExecutor, SqlQuery } from '../../db/sql';
import type { NoticeEnvelope } from '../../outbox/notice.envelope';
import { createEventsStore, type EventsStore } from './backbone.store';
import type { EventRecord, NewEvent } from './backbone.types';

/** A store factory: the default, or one with the events service's hooks (webhooks) once it has them. */
export type BackboneStoreFactory = (sql: SqlExecutor) => Pick<EventsStore, 'appendMany'>;

/**
 * An executor over a transaction already open: `transaction(work)` joins it instead of opening a
 * nested one, so the store's publish runs in the caller's transaction and commits with it.
 */
export function joinTransaction(q: SqlQuery): SqlExecutor {
  return {
    query: (text, params) => q.query(text, params),
    exec: (text) => q.exec(text),
    transaction: (work) => work(q),
  };
}

/** The stored form of a notice: its CloudEvent attributes, the contract's payload, the envelope's size. */
export function noticeEvent(envelope: NoticeEnvelope, topic = envelope.type): NewEvent {
  return {
    id: envelope.id,
    tenantId: envelope.tenantid,
    topic,
    source: envelope.source,
    type: envelope.type,
    time: envelope.time,
    subject: envelope.subject ?? null,
    traceparent: envelope.traceparent ?? null,
    data: envelope.data,
    size: Buffer.byteLength(JSON.stringify(envelope)),
  };
}

/** What the relay appends: a notice and the topic of its outbox row. */
export interface NoticeToAppend {
  topic: string;
  envelope: NoticeEnvelope;
}

/**
 * Appends the notices in `q`'s transaction; resolves with the events newly stored (a duplicate id,
 * appended by an earlier pass, is left out). Streams are taken in (tenant, topic) order, each in
 * the given order and in one statement (`appendMany`: a pass of many notices is a statement per
 * stream, not per notice): relays in several processes then lock stream heads in one global order
 * and never deadlock, and each stream's positions follow the outbox's order. Platform notices are
 * outside the tenant's storage quota: the producer's change has committed, its notice must not be
 * refused.
 */
export async function appendNotices(
  q: SqlQuery,
  notices: readonly NoticeToAppend[],
  storeOf: BackboneStoreFactory = createEventsStore,
): Promise<EventRecord[]> {
  const store = storeOf(joinTransaction(q));
  const streams = new Map<string, { tenantId: string; topic: string; events: NewEvent[] }>();
  for (const n of notices) {
    const key = `${n.envelope.tenantid}\u0000${n.topic}`;
    let stream = streams.get(key);
    if (!stream) streams.set(key, (stream = { tenantId: n.envelope.tenantid, topic: n.topic, events: [] }));
    stream.events.push(noticeEvent(n.envelope, n.topic));
  }
  const stored: EventRecord[] = [];
  for (const key of [...streams.keys()].sort()) {
    const s = streams.get(key)!;
    stored.push(...(await store.appendMany(s.tenantId, s.topic, s.events)));
  }
  return stored;
}
