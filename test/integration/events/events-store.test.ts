// The events store on a real database (PGlite, or PostgreSQL with DATABASE_URL, where a second
// connection pool stands in for a second process): competing consumers never hold the same
// message, order is kept per key (tenant + subject), a message dead-letters after its maximum
// deliveries and stops nothing else, replay goes back to a position or a time, and one tenant's
// streams and subscriptions are invisible to another.
import { randomUUID } from 'node:crypto';
import { openDatabase, type Database } from '../../../platform/db/database';
import { createEventsStore, type EventsStore } from '../../../platform/events/backbone/backbone.store';
import type { LeasedMessage, NewEvent } from '../../../platform/events/backbone/backbone.types';
import { createJetStreamEventsStore, jetStreamNames } from '../../../platform/events/backbone/jetstream.store';
import { connect, type NatsConnection } from 'nats';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { until } from '../../support/waiting';

jest.setTimeout(60_000);

let db: TestDatabase;
let other: Database;
let store: EventsStore;
let store2: EventsStore;
const QUOTA = 1e12;

beforeAll(async () => {
  db = await createTestDatabase();
  // Two connection pools on PostgreSQL (two "processes"); PGlite is one connection shared.
  other = db.kind === 'postgres' ? await openDatabase(db.config, { migrate: false }) : db;
  store = createEventsStore(db.sql);
  store2 = createEventsStore(other.sql);
});
afterAll(async () => {
  if (other && other !== db) await other.close();
  await db?.drop();
});

function event(tenantId: string, topic: string, subject: string | null, data: unknown = {}): NewEvent {
  return {
    id: randomUUID(),
    tenantId,
    topic,
    source: '/test',
    type: topic,
    time: new Date().toISOString(),
    subject,
    traceparent: null,
    data,
    size: 100,
  };
}

async function publish(tenantId: string, topic: string, subject: string | null, data: unknown = {}) {
  const out = await store.publish(tenantId, event(tenantId, topic, subject, data), QUOTA);
  if (out.kind !== 'stored') throw new Error(`not stored: ${out.kind}`);
  return out.event;
}

async function subscribe(tenantId: string, name: string, topic: string, over: { maxDeliveries?: number } = {}) {
  expect(
    await store.createSubscription({
      tenantId,
      name,
      topic,
      position: 0,
      maxDeliveries: over.maxDeliveries ?? 5,
      ackTimeoutMs: 60_000,
      backoffMs: 0,
    }),
  ).toBe(true);
}

describe('publishing', () => {
  it('gives each (tenant, topic) stream its own monotonic positions and stores a retried id once', async () => {
    const a1 = await publish('t-pos', 'orders.created', null);
    const a2 = await publish('t-pos', 'orders.created', null);
    const b1 = await publish('t-pos', 'orders.paid', null);
    const c1 = await publish('t-pos-other', 'orders.created', null);
    expect([a1.position, a2.position, b1.position, c1.position]).toEqual([1, 2, 1, 1]);
    const again = await store.publish('t-pos', { ...event('t-pos', 'orders.created', null), id: a1.id }, QUOTA);
    expect(again.kind).toBe('duplicate');
    expect(await store.headPosition('t-pos', 'orders.created')).toBe(2);
  });

  it('refuses a publish past the storage quota', async () => {
    const first = await store.publish('t-quota', event('t-quota', 'q', null), 150);
    expect(first.kind).toBe('stored');
    const second = await store.publish('t-quota', event('t-quota', 'q', null), 150);
    expect(second).toEqual({ kind: 'over-quota', storedBytes: 100 });
  });

  it('hands concurrent publishes of one stream distinct, gap-free positions', async () => {
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? store2 : store).publish('t-conc', event('t-conc', 'c', null), QUOTA),
      ),
    );
    const all = await store.eventsAfter('t-conc', 'c', 0, 100);
    expect(all.map((e) => e.position)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('appends many events to a stream in one call: next positions in order, ids stored before left out, concurrent calls gap-free', async () => {
    const first = await publish('t-many', 'm', null, { n: 0 });
    const batch = [1, 2, 3].map((n) => event('t-many', 'm', 's', { n }));
    const stored = await store.appendMany('t-many', 'm', [event('t-many', 'm', null, { n: 0 }), ...batch]);
    expect(stored.map((e) => [e.position, e.data])).toEqual([
      [2, { n: 0 }],
      [3, { n: 1 }],
      [4, { n: 2 }],
      [5, { n: 3 }],
    ]);
    // What appendMany returns (built from its input and the positions) is what a reader reads back.
    expect(stored).toEqual(await store.eventsAfter('t-many', 'm', 1, 4));
    // A retry of the same ids stores nothing and moves no position.
    expect(await store.appendMany('t-many', 'm', batch)).toEqual([]);
    const more = await store.appendMany('t-many', 'm', [...batch, event('t-many', 'm', null, { n: 4 })]);
    expect(more.map((e) => [e.position, e.data])).toEqual([[6, { n: 4 }]]);
    expect((await store.eventsAfter('t-many', 'm', 0, 10)).map((e) => e.id)).toEqual([
      first.id,
      ...stored.slice(0, 1).map((e) => e.id),
      ...batch.map((e) => e.id),
      more[0]!.id,
    ]);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? store2 : store).appendMany('t-many-conc', 'c', [
          event('t-many-conc', 'c', null),
          event('t-many-conc', 'c', null),
        ]),
      ),
    );
    const all = await store.eventsAfter('t-many-conc', 'c', 0, 100);
    expect(all.map((e) => e.position)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});

describe('durable subscriptions', () => {
  it('competing consumers (two pools on PostgreSQL) never hold the same message, and together get every one', async () => {
    for (let i = 0; i < 40; i++) await publish('t-compete', 'work', `job-${i}`);
    await subscribe('t-compete', 'workers', 'work');
    const seen: number[] = [];
    const consumer = async (s: EventsStore) => {
      for (;;) {
        const batch = await s.pull('t-compete', 'workers', 5);
        if (batch.length === 0) return;
        seen.push(...batch.map((m) => m.event.position));
        await s.ack(
          't-compete',
          'workers',
          batch.map((m) => m.leaseId),
        );
      }
    };
    await Promise.all([consumer(store), consumer(store2), consumer(store), consumer(store2)]);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(seen).size).toBe(40);
  });

  it("keeps order per key: a key's next message waits while an earlier one is leased", async () => {
    await publish('t-order', 'o', 'acct-1'); // 1
    await publish('t-order', 'o', 'acct-1'); // 2
    await publish('t-order', 'o', 'acct-2'); // 3
    await publish('t-order', 'o', 'acct-1'); // 4
    await subscribe('t-order', 'ordered', 'o');
    const first = await store.pull('t-order', 'ordered', 10);
    // Only the head of each key: acct-1's 1 and acct-2's 3.
    expect(first.map((m) => m.event.position)).toEqual([1, 3]);
    expect(await store2.pull('t-order', 'ordered', 10)).toEqual([]);
    // A nack puts 1 back first: 2 still waits behind it.
    expect(await store.nack('t-order', 'ordered', first[0]!.leaseId, 'retry')).toBe('ready');
    const retry = await store.pull('t-order', 'ordered', 10);
    expect(retry.map((m) => [m.event.position, m.attempt])).toEqual([[1, 2]]);
    await store.ack('t-order', 'ordered', [retry[0]!.leaseId, first[1]!.leaseId]);
    const next = await store.pull('t-order', 'ordered', 10);
    expect(next.map((m) => m.event.position)).toEqual([2]);
    await store.ack('t-order', 'ordered', [next[0]!.leaseId]);
    expect((await store.pull('t-order', 'ordered', 10)).map((m) => m.event.position)).toEqual([4]);
  });

  it('dead-letters a message after its maximum deliveries, lets the rest through, and redrives it audited', async () => {
    const poison = await publish('t-dlq', 'd', 'k', { poison: true });
    await publish('t-dlq', 'd', 'k', { fine: 1 });
    await publish('t-dlq', 'd', 'other', { fine: 2 });
    await subscribe('t-dlq', 'dlq-sub', 'd', { maxDeliveries: 3 });
    const states: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const batch = await store.pull('t-dlq', 'dlq-sub', 10);
      const p = batch.find((m) => m.event.id === poison.id)!;
      expect(p.attempt).toBe(attempt);
      states.push((await store.nack('t-dlq', 'dlq-sub', p.leaseId, `boom ${attempt}`))!);
      await store.ack(
        't-dlq',
        'dlq-sub',
        batch.filter((m) => m !== p).map((m) => m.leaseId),
      );
    }
    expect(states).toEqual(['ready', 'ready', 'dead']);
    // The poison no longer blocks its key: the second message of `k` comes next.
    const after = await store.pull('t-dlq', 'dlq-sub', 10);
    expect(after.map((m) => m.event.data)).toEqual([{ fine: 1 }]);
    await store.ack('t-dlq', 'dlq-sub', [after[0]!.leaseId]);

    const dead = await store.deadLetters('t-dlq', 'dlq-sub', 0, 10);
    expect(dead.map((d) => [d.position, d.attempts, d.lastError, d.event.data])).toEqual([
      [1, 3, 'boom 3', { poison: true }],
    ]);
    expect(await store.deadLetter('t-dlq', 'dlq-sub', 1)).toEqual(dead[0]);
    // Another tenant sees nothing of it.
    expect(await store.deadLetters('t-other', 'dlq-sub', 0, 10)).toEqual([]);

    const moved = await store.redrive('t-dlq', 'dlq-sub', null, (positions) => ({
      tenantId: 't-dlq',
      eventType: 'events.dlq_redriven',
      eventData: { positions },
      userId: 'ops',
      correlationId: 'c-1',
      idempotencyKey: randomUUID(),
    }));
    expect(moved).toEqual([1]);
    const audit = await db.sql.query<{ event_type: string; event_data: string }>(
      `SELECT event_type, event_data::text AS event_data FROM outbox_events WHERE service = 'events' AND tenant_id = 't-dlq'`,
    );
    expect(audit.rows.map((r) => [r.event_type, JSON.parse(r.event_data)])).toEqual([
      ['events.dlq_redriven', { positions: [1] }],
    ]);
    const redelivered = await store.pull('t-dlq', 'dlq-sub', 10);
    expect(redelivered.map((m) => [m.event.id, m.attempt])).toEqual([[poison.id, 1]]);
  });

  it('dead-letters a message whose consumer crashed on its last delivery (the lease expired), and moves on', async () => {
    const poison = await publish('t-crash', 'p', 'k');
    const next = await publish('t-crash', 'p', 'k');
    expect(
      await store.createSubscription({
        tenantId: 't-crash',
        name: 'crashy',
        topic: 'p',
        position: 0,
        maxDeliveries: 1,
        ackTimeoutMs: 1,
        backoffMs: 0,
      }),
    ).toBe(true);
    const taken = await store.pull('t-crash', 'crashy', 10);
    expect(taken.map((m) => m.event.id)).toEqual([poison.id]);
    // The consumer "crashes": no ack, no nack. Once the lease is over, the next pull dead-letters it.
    let after: Awaited<ReturnType<EventsStore['pull']>> = [];
    await until(async () => (after = await store.pull('t-crash', 'crashy', 10)).length > 0, 'the next message');
    expect(after.map((m) => m.event.id)).toEqual([next.id]);
    const dead = await store.deadLetters('t-crash', 'crashy', 0, 10);
    expect(dead.map((d) => [d.event.id, d.attempts, d.lastError])).toEqual([
      [poison.id, 1, 'lease expired on the last delivery'],
    ]);
  });

  it('replays from a position and from a time', async () => {
    const times: string[] = [];
    for (let i = 0; i < 5; i++) {
      const e = event('t-replay', 'r', null, { i });
      e.time = new Date(Date.UTC(2026, 0, 1 + i)).toISOString();
      times.push(e.time);
      await store.publish('t-replay', e, QUOTA);
    }
    await subscribe('t-replay', 'rs', 'r');
    const drain = async () => {
      const got: number[] = [];
      for (;;) {
        const batch = await store.pull('t-replay', 'rs', 10);
        if (batch.length === 0) return got;
        got.push(...batch.map((m) => m.event.position));
        await store.ack(
          't-replay',
          'rs',
          batch.map((m) => m.leaseId),
        );
      }
    };
    expect(await drain()).toEqual([1, 2, 3, 4, 5]);
    await store.rewind('t-replay', 'rs', 3);
    expect(await drain()).toEqual([4, 5]);
    const before = await store.positionBefore('t-replay', 'r', times[1]!);
    expect(before).toBe(1);
    await store.rewind('t-replay', 'rs', before);
    expect(await drain()).toEqual([2, 3, 4, 5]);
    // A time after every event: the head (nothing to deliver again).
    expect(await store.positionBefore('t-replay', 'r', '2030-01-01T00:00:00Z')).toBe(5);
  });

  it("keeps tenants apart: another tenant's subscription name and stream are its own", async () => {
    await publish('t-iso-a', 'shared.name', null, { secret: 'a' });
    await subscribe('t-iso-a', 'same', 'shared.name');
    await subscribe('t-iso-b', 'same', 'shared.name');
    expect(await store.pull('t-iso-b', 'same', 10)).toEqual([]);
    expect(await store.eventsAfter('t-iso-b', 'shared.name', 0, 10)).toEqual([]);
    expect((await store.pull('t-iso-a', 'same', 10)).map((m) => m.event.data)).toEqual([{ secret: 'a' }]);
  });
});

// The same API on NATS JetStream (NATS_URL set): positions are stream sequences, so these cases
// compare positions relative to each other; order per key, the tenant quota and gap-free positions
// are the SQL store's alone (docs/events.md, "Storage").
const natsUrl = process.env.NATS_URL;
(natsUrl ? describe : describe.skip)('JetStream storage', () => {
  let nc: NatsConnection;
  let js: EventsStore;
  const namespace = `t${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    nc = await connect({ servers: natsUrl!.replace(/^nats:\/\//, '') });
    js = await createJetStreamEventsStore({
      nc,
      sql: db.sql,
      namespace,
      limits: { maxBytes: 64 * 1024 * 1024, maxAgeSeconds: 3600, duplicateWindowSeconds: 120, storage: 'memory' },
    });
  });
  afterAll(async () => {
    const jsm = await nc?.jetstreamManager();
    const names = jetStreamNames(namespace);
    for (const s of [names.stream, names.dlqStream]) await jsm?.streams.delete(s).catch(() => {});
    await nc?.close();
  });

  const jsPublish = async (tenantId: string, topic: string, data: unknown = {}) => {
    const out = await js.publish(tenantId, event(tenantId, topic, null, data), QUOTA);
    if (out.kind !== 'stored') throw new Error(`not stored: ${out.kind}`);
    return out.event;
  };
  const jsSubscribe = (tenantId: string, name: string, topic: string, maxDeliveries = 5) =>
    js.createSubscription({ tenantId, name, topic, position: 0, maxDeliveries, ackTimeoutMs: 60_000, backoffMs: 0 });

  it('stores increasing positions per stream, dedupes a retried id and reads back after a position', async () => {
    const a = await jsPublish('j-pos', 'orders');
    const b = await jsPublish('j-pos', 'orders');
    await jsPublish('j-pos-other', 'orders');
    expect(b.position).toBeGreaterThan(a.position);
    const again = await js.publish('j-pos', { ...event('j-pos', 'orders', null), id: a.id }, QUOTA);
    expect(again).toMatchObject({ kind: 'duplicate', event: { id: a.id, position: a.position } });
    expect(await js.headPosition('j-pos', 'orders')).toBe(b.position);
    expect((await js.eventsAfter('j-pos', 'orders', 0, 10)).map((e) => e.id)).toEqual([a.id, b.id]);
    expect((await js.eventsAfter('j-pos', 'orders', a.position, 10)).map((e) => e.id)).toEqual([b.id]);
  });

  it('competing consumers on two connections share the queue: every message once', async () => {
    const published = [];
    for (let i = 0; i < 40; i++) published.push((await jsPublish('j-compete', 'work', { i })).position);
    expect(await jsSubscribe('j-compete', 'workers', 'work')).toBe(true);
    const seen: number[] = [];
    const consumer = async () => {
      for (;;) {
        const batch = await js.pull('j-compete', 'workers', 5);
        if (batch.length === 0) return;
        seen.push(...batch.map((m) => m.event.position));
        expect(
          await js.ack(
            'j-compete',
            'workers',
            batch.map((m) => m.leaseId),
          ),
        ).toHaveLength(batch.length);
      }
    };
    await Promise.all([consumer(), consumer(), consumer()]);
    expect([...seen].sort((x, y) => x - y)).toEqual(published);
  });

  it('nacks with backoff, dead-letters after the maximum deliveries, and redrives audited', async () => {
    const poison = await jsPublish('j-dlq', 'd', { poison: true });
    await jsPublish('j-dlq', 'd', { fine: 1 });
    await jsSubscribe('j-dlq', 'dlq-sub', 'd', 2);
    const states: (string | null)[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      let p: LeasedMessage | undefined;
      await until(async () => {
        const batch = await js.pull('j-dlq', 'dlq-sub', 10);
        await js.ack(
          'j-dlq',
          'dlq-sub',
          batch.filter((m) => m.event.id !== poison.id).map((m) => m.leaseId),
        );
        return (p = batch.find((m) => m.event.id === poison.id)) !== undefined;
      }, 'the poison message');
      expect(p!.attempt).toBe(attempt);
      states.push(await js.nack('j-dlq', 'dlq-sub', p!.leaseId, `boom ${attempt}`));
    }
    expect(states).toEqual(['ready', 'dead']);
    const dead = await js.deadLetters('j-dlq', 'dlq-sub', 0, 10);
    expect(dead.map((d) => [d.position, d.attempts, d.lastError, d.event.data])).toEqual([
      [poison.position, 2, 'boom 2', { poison: true }],
    ]);
    expect(await js.deadLetter('j-dlq', 'dlq-sub', poison.position)).toEqual(dead[0]);
    expect(await js.deadLetters('j-other', 'dlq-sub', 0, 10)).toEqual([]);
    const moved = await js.redrive('j-dlq', 'dlq-sub', null, (positions) => ({
      tenantId: 'j-dlq',
      eventType: 'events.dlq_redriven',
      eventData: { positions },
      userId: 'ops',
      correlationId: 'c-1',
      idempotencyKey: randomUUID(),
    }));
    expect(moved).toEqual([poison.position]);
    expect(await js.deadLetters('j-dlq', 'dlq-sub', 0, 10)).toEqual([]);
    const again = await js.pull('j-dlq', 'dlq-sub', 10);
    expect(again.map((m) => [m.event.id, m.event.position, m.attempt])).toEqual([[poison.id, poison.position, 1]]);
    // The stream's history does not show the redriven copy.
    expect((await js.eventsAfter('j-dlq', 'd', 0, 10)).map((e) => e.id)).toHaveLength(2);
  });

  it('dead-letters a message whose lease expired on its last delivery, at the next pull', async () => {
    const poison = await jsPublish('j-crash', 'p');
    const next = await jsPublish('j-crash', 'p');
    await js.createSubscription({
      tenantId: 'j-crash',
      name: 'crashy',
      topic: 'p',
      position: 0,
      maxDeliveries: 1,
      ackTimeoutMs: 200,
      backoffMs: 0,
    });
    const taken = await js.pull('j-crash', 'crashy', 1);
    expect(taken.map((m) => m.event.id)).toEqual([poison.id]);
    // The consumer "crashes": no ack, no nack. Later pulls hand out the rest and, once the lease is
    // over, dead-letter the poison message instead of delivering it again.
    const delivered: string[] = [];
    await until(async () => {
      const batch = await js.pull('j-crash', 'crashy', 10);
      delivered.push(...batch.map((m) => m.event.id));
      await js.ack(
        'j-crash',
        'crashy',
        batch.map((m) => m.leaseId),
      );
      return (await js.deadLetters('j-crash', 'crashy', 0, 10)).length > 0;
    }, 'the dead letter');
    expect(delivered).toEqual([next.id]);
    const dead = await js.deadLetters('j-crash', 'crashy', 0, 10);
    expect(dead.map((d) => [d.event.id, d.attempts, d.lastError])).toEqual([
      [poison.id, 1, 'lease expired on the last delivery'],
    ]);
  });

  it('replays from a position and from a time', async () => {
    const positions: number[] = [];
    for (let i = 0; i < 4; i++) positions.push((await jsPublish('j-replay', 'r', { i })).position);
    await jsSubscribe('j-replay', 'rs', 'r');
    const drain = async () => {
      const got: number[] = [];
      for (;;) {
        const batch = await js.pull('j-replay', 'rs', 10);
        if (batch.length === 0) return got;
        got.push(...batch.map((m) => m.event.position));
        await js.ack(
          'j-replay',
          'rs',
          batch.map((m) => m.leaseId),
        );
      }
    };
    expect(await drain()).toEqual(positions);
    await js.rewind('j-replay', 'rs', positions[1]!);
    expect(await drain()).toEqual(positions.slice(2));
    const before = await js.positionBefore('j-replay', 'r', new Date(Date.now() - 3600_000).toISOString());
    expect(before).toBe(positions[0]! - 1);
    expect(await js.positionBefore('j-replay', 'r', '2100-01-01T00:00:00Z')).toBe(positions[3]);
  });

  it("keeps tenants apart: another tenant's subscription, stream and leases are its own", async () => {
    await jsPublish('j-iso-a', 'shared.name', { secret: 'a' });
    await jsSubscribe('j-iso-a', 'same', 'shared.name');
    await jsSubscribe('j-iso-b', 'same', 'shared.name');
    expect(await js.pull('j-iso-b', 'same', 10)).toEqual([]);
    expect(await js.eventsAfter('j-iso-b', 'shared.name', 0, 10)).toEqual([]);
    const got = await js.pull('j-iso-a', 'same', 10);
    expect(got.map((m) => m.event.data)).toEqual([{ secret: 'a' }]);
    // B acking A's lease acks nothing of A's: A's consumer still holds it.
    await js.ack('j-iso-b', 'same', [got[0]!.leaseId]);
    expect(await js.nack('j-iso-a', 'same', got[0]!.leaseId, 'retry')).toBe('ready');
    let again: LeasedMessage[] = [];
    await until(async () => (again = await js.pull('j-iso-a', 'same', 10)).length > 0, 'the redelivery');
    expect(again.map((m) => m.attempt)).toEqual([2]);
  });
});
