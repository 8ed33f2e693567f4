// The events backbone's storage on NATS JetStream (NATS_URL set, EVENTS_STORE not `sql`): a hybrid.
// Events live in one stream per PLATFORM_NAMESPACE (subjects `<ns>.events.<tenant>.<topic>`),
// bounded by max bytes and age; a position is the event's stream sequence, so a (tenant, topic)
// stream has gaps, which every reader already skips. Publishing dedupes on Nats-Msg-Id (tenant +
// event id) within the stream's duplicate window. A durable subscription is a durable pull consumer
// filtered on its stream's subject; nack is JetStream's NAK with a delay (the backoff); dead letters
// go to a second stream. Topics and subscription settings stay in SQL (the SQL store's tables), as
// does the audit record of a redrive. What differs from the SQL store is listed in docs/events.md.
import { createHash } from 'node:crypto';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  headers as natsHeaders,
  JSONCodec,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type MsgHdrs,
  type NatsConnection,
} from 'nats';
import type { SqlExecutor } from '../../db/sql';
import { sqlOutboxWriter } from '../../outbox/outbox.writer';
import { createEventsStore, type EventsStore, type PublishOutcome } from './backbone.store';
import type { DeadLetter, EventRecord, LeasedMessage, NewEvent, Subscription } from './backbone.types';
import { decodeLease, encodeLease } from './jetstream.lease';

const MAX_BACKOFF_MS = 6 * 3600 * 1000;
/** Header of a redriven copy: the subscription (consumer) it is for and the original position. */
const REDRIVE_FOR = 'Events-Redrive-For';
const REDRIVE_POSITION = 'Events-Redrive-Position';
const codec = JSONCodec<unknown>();

export interface JetStreamLimits {
  /** EVENTS_JETSTREAM_MAX_BYTES: the stream's size; the oldest events go first past it. */
  maxBytes: number;
  /** EVENTS_JETSTREAM_MAX_AGE_SECONDS: how long an event is kept. */
  maxAgeSeconds: number;
  /** EVENTS_JETSTREAM_DUPLICATE_WINDOW_SECONDS: how long a publish's id is remembered for dedupe. */
  duplicateWindowSeconds: number;
  storage: 'file' | 'memory';
}

/** Stream names and subject prefixes of a namespace ('' without one). */
export function jetStreamNames(namespace: string) {
  const suffix = namespace ? `_${namespace.toUpperCase().replace(/-/g, '_')}` : '';
  const ns = namespace ? `${namespace}.` : '';
  return {
    stream: `EVENTS${suffix}`,
    subjects: `${ns}events.`,
    dlqStream: `EVENTS_DLQ${suffix}`,
    dlqSubjects: `${ns}events-dlq.`,
  };
}

/** A tenant id as one subject token: '.', '*', '>', '%' and whitespace escaped, so tokens never collide. */
export function tenantToken(tenantId: string): string {
  return tenantId.replace(/[.*>%\s]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** The durable consumer of a subscription: a hash, as names allow no '.' and tenants and names may hold one. */
export function consumerName(tenantId: string, name: string): string {
  return `s_${createHash('sha256').update(`${tenantId}\0${name}`).digest('hex').slice(0, 40)}`;
}

interface Body {
  id: string;
  tenantId: string;
  topic: string;
  source: string;
  type: string;
  time: string;
  subject: string | null;
  traceparent: string | null;
  data: unknown;
}

interface DeadBody {
  position: number;
  attempts: number;
  lastError: string | null;
  deadAt: string;
  event: EventRecord;
}

function toEvent(seq: number, data: Uint8Array, hdrs: MsgHdrs | undefined): EventRecord {
  const b = codec.decode(data) as Body;
  const original = hdrs?.get(REDRIVE_POSITION);
  return {
    id: b.id,
    tenantId: b.tenantId,
    topic: b.topic,
    position: original ? Number(original) : seq,
    source: b.source,
    type: b.type,
    specversion: '1.0',
    time: b.time,
    subject: b.subject,
    traceparent: b.traceparent,
    data: b.data,
  };
}

const isNotFound = (err: unknown) => /not found|no message found|404|10037|10014/i.test(String(err));

export interface JetStreamStoreOptions {
  nc: NatsConnection;
  sql: SqlExecutor;
  namespace: string;
  limits: JetStreamLimits;
}

/** Creates (or updates) the streams, then the store. */
export async function createJetStreamEventsStore(o: JetStreamStoreOptions): Promise<EventsStore> {
  const names = jetStreamNames(o.namespace);
  const jsm: JetStreamManager = await o.nc.jetstreamManager();
  const js: JetStreamClient = o.nc.jetstream();
  const storage = o.limits.storage === 'file' ? StorageType.File : StorageType.Memory;
  const ensure = async (name: string, subjects: string, extra: Record<string, unknown>) => {
    const config = {
      name,
      subjects: [`${subjects}>`],
      storage,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_bytes: o.limits.maxBytes,
      max_age: o.limits.maxAgeSeconds * 1e9,
      ...extra,
    };
    try {
      await jsm.streams.info(name);
      await jsm.streams.update(name, config);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await jsm.streams.add(config);
    }
  };
  await ensure(names.stream, names.subjects, { duplicate_window: o.limits.duplicateWindowSeconds * 1e9 });
  await ensure(names.dlqStream, names.dlqSubjects, {});

  const meta = createEventsStore(o.sql);
  const subjectOf = (tenantId: string, topic: string) => `${names.subjects}${tenantToken(tenantId)}.${topic}`;
  const dlqSubjectOf = (tenantId: string, name: string) =>
    `${names.dlqSubjects}${tenantToken(tenantId)}.${consumerName(tenantId, name)}`;

  // Subscription settings change only by delete and create: a short cache saves a SQL read per pull.
  const settings = new Map<string, { at: number; sub: Subscription | null }>();
  const subscriptionOf = async (tenantId: string, name: string) => {
    const key = `${tenantId}\0${name}`;
    const hit = settings.get(key);
    if (hit && Date.now() - hit.at < 5000) return hit.sub;
    const sub = await meta.subscription(tenantId, name);
    settings.set(key, { at: Date.now(), sub });
    return sub;
  };

  /** Reads a subject from a sequence on, with a throwaway consumer (three round trips per page). */
  const read = async (
    stream: string,
    subject: string,
    from: Partial<ConsumerConfig>,
    limit: number,
  ): Promise<JsMsg[]> => {
    const ci = await jsm.consumers.add(stream, {
      ack_policy: AckPolicy.None,
      filter_subject: subject,
      inactive_threshold: 30e9,
      mem_storage: true,
      ...from,
    });
    try {
      const out: JsMsg[] = [];
      for await (const m of js.fetch(stream, ci.name, { batch: limit, no_wait: true, expires: 0 })) out.push(m);
      return out;
    } finally {
      await jsm.consumers.delete(stream, ci.name).catch(() => {});
    }
  };
  const fromPosition = (after: number): Partial<ConsumerConfig> =>
    after > 0
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 }
      : { deliver_policy: DeliverPolicy.All };

  const createConsumer = async (s: Subscription, after: number) => {
    const durable = consumerName(s.tenantId, s.name);
    await jsm.consumers.delete(names.stream, durable).catch(() => {});
    await jsm.consumers.add(names.stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      filter_subject: subjectOf(s.tenantId, s.topic),
      ack_wait: s.ackTimeoutMs * 1e6,
      // One delivery more than the subscription allows: that one finds a lease expired on the
      // last delivery, and the pull dead-letters it instead of handing it out.
      max_deliver: s.maxDeliveries + 1,
      max_ack_pending: 20_000,
      ...fromPosition(after),
    });
  };

  const deadLetterMsgs = async (tenantId: string, name: string) => {
    const msgs = await read(
      names.dlqStream,
      dlqSubjectOf(tenantId, name),
      { deliver_policy: DeliverPolicy.All },
      10_000,
    );
    return msgs
      .map((m) => ({ seq: m.seq, body: codec.decode(m.data) as DeadBody }))
      .sort((a, b) => a.body.position - b.body.position);
  };
  const toDeadLetter = (name: string, d: DeadBody): DeadLetter => ({ subscription: name, ...d });

  const bury = async (tenantId: string, name: string, d: DeadBody) => {
    await js.publish(dlqSubjectOf(tenantId, name), codec.encode(d));
  };

  const ackSubject = (tenantId: string, name: string, lease: { sseq: number; dseq: number; dc: number }) =>
    `$JS.ACK.${names.stream}.${consumerName(tenantId, name)}.${lease.dc}.${lease.sseq}.${lease.dseq}.0.0`;

  const store: EventsStore = {
    upsertPlatformTopic: (t) => meta.upsertPlatformTopic(t),
    createTopic: (tenantId, t) => meta.createTopic(tenantId, t),
    topic: (tenantId, name) => meta.topic(tenantId, name),
    topics: (tenantId) => meta.topics(tenantId),

    /** One publish after another (JetStream has no multi-message append); duplicates left out. */
    async appendMany(tenantId: string, _topic: string, events: readonly NewEvent[]) {
      const stored: EventRecord[] = [];
      for (const e of events) {
        const outcome = await this.publish(tenantId, e, Number.POSITIVE_INFINITY);
        if (outcome.kind === 'stored') stored.push(outcome.event);
      }
      return stored;
    },

    async publish(tenantId: string, e: NewEvent): Promise<PublishOutcome> {
      // The tenant quota is not kept per tenant here: the stream's limits bound storage (docs/events.md).
      const body: Body = {
        id: e.id,
        tenantId,
        topic: e.topic,
        source: e.source,
        type: e.type,
        time: e.time,
        subject: e.subject,
        traceparent: e.traceparent,
        data: e.data,
      };
      const ack = await js.publish(subjectOf(tenantId, e.topic), codec.encode(body), {
        msgID: `${tenantToken(tenantId)}:${e.id}`,
      });
      if (!ack.duplicate) return { kind: 'stored', event: { ...body, specversion: '1.0', position: ack.seq } };
      // A retry within the duplicate window: the server answers with the stored message's sequence.
      const stored = await jsm.streams.getMessage(names.stream, { seq: ack.seq });
      return { kind: 'duplicate', event: toEvent(stored.seq, stored.data, stored.header) };
    },

    async eventsAfter(tenantId, topic, afterPosition, limit) {
      const msgs = await read(names.stream, subjectOf(tenantId, topic), fromPosition(afterPosition), limit);
      // Redriven copies belong to one subscription's queue, not to the stream's history.
      return msgs.filter((m) => !m.headers?.get(REDRIVE_FOR)).map((m) => toEvent(m.seq, m.data, m.headers));
    },

    async headPosition(tenantId, topic) {
      try {
        return (await jsm.streams.getMessage(names.stream, { last_by_subj: subjectOf(tenantId, topic) })).seq;
      } catch (err) {
        if (isNotFound(err)) return 0;
        throw err;
      }
    },

    async positionBefore(tenantId, topic, time) {
      const first = await read(
        names.stream,
        subjectOf(tenantId, topic),
        { deliver_policy: DeliverPolicy.StartTime, opt_start_time: time },
        1,
      );
      // Publish time is the stream's clock; the event's `time` is the publisher's (they agree unless set).
      return first[0] ? first[0].seq - 1 : store.headPosition(tenantId, topic);
    },

    async createSubscription(s) {
      if (!(await meta.createSubscription(s))) return false;
      await createConsumer(s, s.position);
      return true;
    },
    subscription: (tenantId, name) => meta.subscription(tenantId, name),
    subscriptions: (tenantId) => meta.subscriptions(tenantId),

    async deleteSubscription(tenantId, name) {
      settings.delete(`${tenantId}\0${name}`);
      await jsm.consumers.delete(names.stream, consumerName(tenantId, name)).catch(() => {});
      await jsm.streams.purge(names.dlqStream, { filter: dlqSubjectOf(tenantId, name) }).catch(() => {});
      return meta.deleteSubscription(tenantId, name);
    },

    async pull(tenantId, name, max): Promise<LeasedMessage[]> {
      const sub = await subscriptionOf(tenantId, name);
      if (!sub) return [];
      const me = consumerName(tenantId, name);
      const out: LeasedMessage[] = [];
      for await (const m of js.fetch(names.stream, me, { batch: max, no_wait: true, expires: 0 })) {
        const redriveFor = m.headers?.get(REDRIVE_FOR);
        if (redriveFor && redriveFor !== me) {
          m.ack(); // another subscription's redriven copy
          continue;
        }
        const event = toEvent(m.seq, m.data, m.headers);
        const dc = m.info.redeliveryCount;
        if (dc > sub.maxDeliveries) {
          await bury(tenantId, name, {
            position: event.position,
            attempts: dc - 1,
            lastError: 'lease expired on the last delivery',
            deadAt: new Date().toISOString(),
            event,
          });
          m.term();
          continue;
        }
        out.push({ leaseId: encodeLease(m.seq, m.info.deliverySequence, dc), attempt: dc, event });
      }
      return out;
    },

    async ack(tenantId, name, leaseIds) {
      // JetStream answers an ack whether or not the message was still pending: every well-formed
      // lease of this subscription is reported acknowledged (docs/events.md).
      const done: string[] = [];
      for (const id of leaseIds) {
        const lease = decodeLease(id);
        if (!lease) continue;
        o.nc.publish(ackSubject(tenantId, name, lease), '+ACK');
        done.push(id);
      }
      if (done.length > 0) await o.nc.flush();
      return done;
    },

    async nack(tenantId, name, leaseId, error) {
      const lease = decodeLease(leaseId);
      const sub = lease && (await subscriptionOf(tenantId, name));
      if (!lease || !sub) return null;
      if (lease.dc >= sub.maxDeliveries) {
        let stored;
        try {
          stored = await jsm.streams.getMessage(names.stream, { seq: lease.sseq });
        } catch (err) {
          if (isNotFound(err)) return null;
          throw err;
        }
        const event = toEvent(stored.seq, stored.data, stored.header);
        if (event.tenantId !== tenantId) return null;
        await bury(tenantId, name, {
          position: event.position,
          attempts: lease.dc,
          lastError: error,
          deadAt: new Date().toISOString(),
          event,
        });
        o.nc.publish(ackSubject(tenantId, name, lease), '+TERM');
        await o.nc.flush();
        return 'dead';
      }
      const delayMs = Math.min(sub.backoffMs * 2 ** (lease.dc - 1), MAX_BACKOFF_MS);
      const nak = delayMs > 0 ? `-NAK ${JSON.stringify({ delay: Math.round(delayMs * 1e6) })}` : '-NAK';
      o.nc.publish(ackSubject(tenantId, name, lease), nak);
      await o.nc.flush();
      return 'ready';
    },

    async deadLetters(tenantId, name, afterPosition, limit) {
      const all = await deadLetterMsgs(tenantId, name);
      return all
        .filter((d) => d.body.position > afterPosition)
        .slice(0, limit)
        .map((d) => toDeadLetter(name, d.body));
    },

    async deadLetter(tenantId, name, position) {
      const hit = (await deadLetterMsgs(tenantId, name)).find((d) => d.body.position === position);
      return hit ? toDeadLetter(name, hit.body) : null;
    },

    async redrive(tenantId, name, positions, audit) {
      const me = consumerName(tenantId, name);
      const chosen = (await deadLetterMsgs(tenantId, name)).filter(
        (d) => positions === null || positions.includes(d.body.position),
      );
      for (const d of chosen) {
        // A copy on the event's own subject, marked for this subscription: the others skip it.
        const h = natsHeaders();
        h.set(REDRIVE_FOR, me);
        h.set(REDRIVE_POSITION, String(d.body.position));
        const e = d.body.event;
        const body: Body = { ...e, tenantId };
        await js.publish(subjectOf(tenantId, e.topic), codec.encode(body), { headers: h });
        await jsm.streams.deleteMessage(names.dlqStream, d.seq, false);
      }
      const moved = chosen.map((d) => d.body.position).sort((a, b) => a - b);
      // The audit record goes through the SQL outbox after the redrive (not in one transaction with it).
      if (moved.length > 0) await o.sql.transaction((tx) => sqlOutboxWriter(tx, 'events').append(audit(moved)));
      return moved;
    },

    async rewind(tenantId, name, afterPosition) {
      const sub = await meta.subscription(tenantId, name);
      if (!sub) return;
      await meta.rewind(tenantId, name, afterPosition);
      // A consumer cannot move back: it is created again from the position (its leases end with it).
      await createConsumer(sub, afterPosition);
    },
  };
  return store;
}
