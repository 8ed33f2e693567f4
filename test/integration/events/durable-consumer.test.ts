// Durable consumers on a real database (PGlite, or PostgreSQL with DATABASE_URL): a platform group
// reads every tenant's stream of its topic, in order per (tenant, subject), from its creation on;
// a message whose consumer died mid-handler is delivered again once its lease expires; a poison
// message ends in the dead-letter queue and stops nothing else; competing consumers share the
// work; per-process groups each hear everything; a tenant group hears its tenant only; a wake-up
// on the bus is enough (no poll needed); an idle poll reads one question and pulls nothing.
import { randomUUID } from 'node:crypto';
import { EVENTS_EVENT_PUBLISHED } from '../../../platform/contracts/events.events';
import { createEventsStore, type EventsStore } from '../../../platform/events/backbone/backbone.store';
import type { EventRecord } from '../../../platform/events/backbone/backbone.types';
import { consume, type DurableConsumer } from '../../../platform/events/backbone/durable-consumer';
import {
  ensurePlatformGroup,
  platformDeadLetters,
  pullPlatformGroup,
} from '../../../platform/events/backbone/platform-group.store';
import { createMemoryEventBus } from '../../../platform/events/memory-event-bus';
import type { SqlExecutor, SqlQuery } from '../../../platform/db/sql';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { until } from '../../support/waiting';

jest.setTimeout(120_000);

const quiet = { warn: () => {}, info: () => {} };
let db: TestDatabase;
let store: EventsStore;
const consumers: DurableConsumer[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  store = createEventsStore(db.sql);
});
afterEach(async () => {
  for (const c of consumers.splice(0)) await c.stop();
});
afterAll(async () => {
  await db?.drop();
});

async function publish(tenantId: string, topic: string, subject: string | null, data: unknown = {}) {
  const out = await store.publish(
    tenantId,
    {
      id: randomUUID(),
      tenantId,
      topic,
      source: '/test',
      type: topic,
      time: new Date().toISOString(),
      subject,
      traceparent: null,
      data,
      size: 10,
    },
    1e12,
  );
  if (out.kind !== 'stored') throw new Error(out.kind);
  return out.event;
}

/** The database with every statement's text recorded (transactions' included). */
function recorded(sql: SqlExecutor): { sql: SqlExecutor; texts: string[] } {
  const texts: string[] = [];
  const wrap = (q: SqlQuery): SqlQuery => ({
    query: (text, params, options) => {
      texts.push(text);
      return q.query(text, params, options);
    },
    exec: (text) => q.exec(text),
  });
  return { texts, sql: { ...wrap(sql), transaction: (work) => sql.transaction((tx) => work(wrap(tx))) } };
}

const start = async (o: Parameters<typeof consume>[1]) => {
  const c = await consume(db, o);
  consumers.push(c);
  return c;
};

describe('durable consumer, platform group', () => {
  it('reads every tenant from its creation on, in order per (tenant, subject)', async () => {
    const topic = 'dc.orders';
    await publish('t-a', topic, 'before', { n: -1 });
    const seen: EventRecord[] = [];
    const c = await start({
      subscription: 'test.orders',
      topic,
      logger: quiet,
      pollMs: 20,
      handler: async (e) => {
        // Later messages of a key wait for this one: a slow handler must not reorder them.
        if ((e.data as { n: number }).n % 3 === 0) await new Promise((r) => setTimeout(r, 5));
        seen.push(e);
      },
    });
    const published: EventRecord[] = [];
    for (let n = 0; n < 12; n++) published.push(await publish(n % 2 ? 't-a' : 't-b', topic, `s${n % 3}`, { n }));
    await until(() => seen.length >= 12, 'all twelve handled');
    await c.drain();
    expect(seen.map((e) => e.id).sort()).toEqual(published.map((e) => e.id).sort());
    // The event published before the group existed is not delivered.
    expect(seen.some((e) => (e.data as { n: number }).n === -1)).toBe(false);
    for (const tenant of ['t-a', 't-b'])
      for (const subject of ['s0', 's1', 's2']) {
        const order = (list: EventRecord[]) =>
          list.filter((e) => e.tenantId === tenant && e.subject === subject).map((e) => e.position);
        expect(order(seen)).toEqual(order(published));
      }
  });

  it('a message whose consumer died mid-handler is delivered again after its lease expires', async () => {
    const topic = 'dc.crash';
    const group = 'test.crash';
    await ensurePlatformGroup(db.sql, { name: group, topic, maxDeliveries: 5, ackTimeoutMs: 300, backoffMs: 10 });
    const event = await publish('t-a', topic, 'x');
    // What a killed process leaves: a lease taken, never acked nor nacked.
    const held = await pullPlatformGroup(db.sql, group, 10);
    expect(held.map((m) => m.event.id)).toEqual([event.id]);
    const seen: { id: string; attempt: number }[] = [];
    await start({
      subscription: group,
      topic,
      logger: quiet,
      pollMs: 20,
      ackTimeoutMs: 300,
      backoffMs: 10,
      handler: (e, d) => {
        seen.push({ id: e.id, attempt: d.attempt });
      },
    });
    await until(() => seen.length === 1, 'the held message redelivered', { tries: 2000, everyMs: 20 });
    expect(seen[0]).toEqual({ id: event.id, attempt: 2 });
  });

  it('a poison message goes to the DLQ after its last delivery; the rest, its key included, go on', async () => {
    const topic = 'dc.poison';
    const handled: number[] = [];
    const attempts = new Map<number, number>();
    await start({
      subscription: 'test.poison',
      topic,
      logger: quiet,
      pollMs: 20,
      maxDeliveries: 3,
      backoffMs: 5,
      handler: (e) => {
        const n = (e.data as { n: number }).n;
        attempts.set(n, (attempts.get(n) ?? 0) + 1);
        if (n === 1) throw new Error('cannot handle 1');
        handled.push(n);
      },
    });
    for (let n = 0; n < 5; n++) await publish('t-p', topic, n < 3 ? 'same' : `other-${n}`, { n });
    await until(() => handled.length === 4, 'every other message handled', { tries: 2000, everyMs: 20 });
    expect(handled).toEqual(expect.arrayContaining([0, 2, 3, 4]));
    // The key's order held: 2 came after 1 was given up.
    expect(handled.indexOf(2)).toBeGreaterThan(handled.indexOf(0));
    expect(attempts.get(1)).toBe(3);
    const dead = await platformDeadLetters(db.sql, 'test.poison');
    expect(dead.map((d) => [d.event.tenantId, (d.event.data as { n: number }).n, d.attempts, d.lastError])).toEqual([
      ['t-p', 1, 3, 'cannot handle 1'],
    ]);
  });

  it('competing consumers of one group handle each event once between them', async () => {
    const topic = 'dc.compete';
    const handledBy = new Map<string, string[]>();
    for (const who of ['one', 'two'])
      await start({
        subscription: 'test.compete',
        topic,
        logger: quiet,
        pollMs: 20,
        batch: 3,
        handler: async (e) => {
          await new Promise((r) => setImmediate(r));
          handledBy.set(e.id, [...(handledBy.get(e.id) ?? []), who]);
        },
      });
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) ids.push((await publish(`t-${n % 4}`, topic, null, { n })).id);
    await until(() => handledBy.size === 20, 'all twenty handled');
    await Promise.all(consumers.map((c) => c.drain()));
    expect([...handledBy.values()].every((who) => who.length === 1)).toBe(true);
  });

  it('per-process groups each hear every event; a stopped process takes its group with it', async () => {
    const topic = 'dc.fanout';
    const heard: Record<string, number> = { p1: 0, p2: 0 };
    const started: DurableConsumer[] = [];
    for (const instance of ['p1', 'p2'])
      started.push(
        await start({
          subscription: 'test.cache',
          topic,
          logger: quiet,
          pollMs: 20,
          perProcess: { instance },
          handler: () => {
            heard[instance]! += 1;
          },
        }),
      );
    for (let n = 0; n < 3; n++) await publish(`t-f${n}`, topic, null);
    await until(() => heard.p1 === 3 && heard.p2 === 3, 'both processes heard all three');
    expect(started.map((c) => c.group)).toEqual(['test.cache@p1', 'test.cache@p2']);
    await started[0]!.stop();
    const groups = await db.sql.query<{ name: string }>(
      `SELECT name FROM event_platform_groups WHERE name LIKE 'test.cache@%' ORDER BY name`,
    );
    expect(groups.rows.map((r) => r.name)).toEqual(['test.cache@p2']);
  });

  it('wakes on events.event_published without waiting for a poll', async () => {
    const topic = 'dc.wake';
    const bus = createMemoryEventBus();
    const seen: string[] = [];
    const c = await start({
      subscription: 'test.wake',
      topic,
      logger: quiet,
      bus,
      pollMs: 600_000,
      handler: (e) => {
        seen.push(e.id);
      },
    });
    await c.drain();
    const e = await publish('t-w', topic, null);
    await bus.publish(EVENTS_EVENT_PUBLISHED.topic, { tenant_id: 't-w', topic, position: e.position });
    await until(() => seen.length === 1, 'woken by the notice');
    expect(seen).toEqual([e.id]);
  });
});

describe('durable consumer, idle polls', () => {
  it('an idle poll asks whether anything is there and pulls only then', async () => {
    const topic = 'dc.idle';
    const { sql, texts } = recorded(db.sql);
    const seen: string[] = [];
    const c = await consume(
      { sql },
      {
        subscription: 'test.idle',
        topic,
        logger: quiet,
        pollMs: 20,
        handler: (e) => {
          seen.push(e.id);
        },
      },
    );
    consumers.push(c);
    await c.drain();
    texts.length = 0;
    await new Promise((r) => setTimeout(r, 400));
    const pulls = () => texts.filter((t) => t.includes('SET seen_at = now()')).length;
    const probes = texts.filter((t) => t.includes('OR EXISTS')).length;
    // Polls happened (one read each), and none of them pulled: nothing was there.
    expect(probes).toBeGreaterThan(2);
    expect(pulls()).toBe(0);
    // An event published without a wake-up (another process's) is found by the next poll.
    const e = await publish('t-idle', topic, null);
    await until(() => seen.length === 1, 'the event handled by a poll');
    expect(seen).toEqual([e.id]);
    expect(pulls()).toBeGreaterThan(0);
  });
});

describe('durable consumer, tenant group', () => {
  it("hears its tenant's stream only", async () => {
    const topic = 'dc.tenant';
    const seen: string[] = [];
    await start({
      subscription: 'mine',
      tenantId: 't-own',
      topic,
      logger: quiet,
      pollMs: 20,
      handler: (e) => {
        seen.push(`${e.tenantId}:${(e.data as { n: number }).n}`);
      },
    });
    await publish('t-other', topic, null, { n: 1 });
    await publish('t-own', topic, null, { n: 2 });
    await until(() => seen.length >= 1, 'own event handled');
    await consumers[0]!.drain();
    expect(seen).toEqual(['t-own:2']);
    // It is the tenant's own subscription, as its REST door shows it.
    expect((await store.subscription('t-own', 'mine'))?.topic).toBe(topic);
    expect(await store.subscription('t-other', 'mine')).toBeNull();
  });
});
