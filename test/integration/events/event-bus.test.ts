// One contract, every implementation: the in-process bus always; PostgreSQL LISTEN/NOTIFY when
// DATABASE_URL is set; NATS JetStream when NATS_URL is set (127.0.0.1:4222 in CI here).
import { connect } from 'nats';
import type { EventBus } from '../../../platform/events/event-bus';
import { createMemoryEventBus } from '../../../platform/events/memory-event-bus';
import { createNatsEventBus } from '../../../platform/events/nats-event-bus';
import { createPostgresEventBus } from '../../../platform/events/postgres-event-bus';
import { until } from '../../support/waiting';

jest.setTimeout(30_000);

afterAll(async () => {
  if (!process.env.NATS_URL) return;
  // Test streams are throwaway; the platform's own stream is never touched.
  const nc = await connect({ servers: process.env.NATS_URL.replace(/^nats:\/\//, '') });
  await (await nc.jetstreamManager()).streams.delete(natsStream).catch(() => false);
  await nc.drain();
});

type Factory = () => Promise<EventBus>;
const factories: [string, Factory][] = [['memory', async () => createMemoryEventBus()]];
if (process.env.DATABASE_URL)
  factories.push(['postgres', async () => createPostgresEventBus(process.env.DATABASE_URL!)]);
const natsStream = `TEST_${process.pid}_${Date.now()}`;
if (process.env.NATS_URL) {
  const stream = natsStream;
  factories.push([
    'nats',
    async () => createNatsEventBus({ url: process.env.NATS_URL!, stream, subjectPrefix: `${stream.toLowerCase()}.` }),
  ]);
}

function collector() {
  const seen: unknown[] = [];
  return {
    seen,
    handler: (p: unknown) => {
      seen.push(p);
    },
    async waitFor(n: number) {
      // Fails (naming the count) well inside this file's 30 s test timeout.
      await until(async () => seen.length >= n, `${n} event(s)`, { tries: 400 });
      return seen;
    },
  };
}

describe.each(factories)('%s event bus', (_name, make) => {
  let a: EventBus;
  let b: EventBus;
  beforeAll(async () => {
    a = await make();
    // A second instance stands in for another process (the memory bus is one process by definition).
    b = _name === 'memory' ? a : await make();
  });
  afterAll(async () => {
    await a?.close();
    if (b !== a) await b?.close();
  });

  it('delivers a published event to subscribers of its topic only, in order, across instances', async () => {
    const onTopic = collector();
    const other = collector();
    const unsubscribe = await b.subscribe('ledger.event_appended', onTopic.handler);
    const unsubscribeOther = await b.subscribe('workflow.status', other.handler);
    for (let i = 0; i < 5; i++) await a.publish('ledger.event_appended', { i, text: 'ünï' });
    expect(await onTopic.waitFor(5)).toEqual([0, 1, 2, 3, 4].map((i) => ({ i, text: 'ünï' })));
    expect(other.seen).toEqual([]);
    await unsubscribe();
    await unsubscribeOther();
  });

  it('delivers many publishes made at once, each once and in publish order (PostgreSQL sends them in batches)', async () => {
    const seen = collector();
    const unsubscribe = await b.subscribe('t.burst', seen.handler);
    await Promise.all(Array.from({ length: 300 }, (_, i) => a.publish('t.burst', { i })));
    expect(await seen.waitFor(300)).toEqual(Array.from({ length: 300 }, (_, i) => ({ i })));
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.seen).toHaveLength(300);
    await unsubscribe();
  });

  it('stops delivering after unsubscribe, and a failing handler does not affect others', async () => {
    const kept = collector();
    const dropped = collector();
    const unsubscribeKept = await b.subscribe('t.unsub', kept.handler);
    await b.subscribe('t.unsub', () => {
      throw new Error('handler bug');
    });
    const unsubscribeDropped = await b.subscribe('t.unsub', dropped.handler);
    await a.publish('t.unsub', { n: 1 });
    await kept.waitFor(1);
    await dropped.waitFor(1);
    await unsubscribeDropped();
    await a.publish('t.unsub', { n: 2 });
    expect(await kept.waitFor(2)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(dropped.seen).toEqual([{ n: 1 }]);
    await unsubscribeKept();
  });
});
