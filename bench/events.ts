// The events backbone's benchmark (issue 26; numbers only, nothing passes or fails):
//   npm run bench -- events [--store pg|pglite|jetstream] [--events N] [--rate R] [--producers 50]
//                           [--consumers 4] [--tenants 50] [--kill]
// 1. peak: N events from 50 producers over many tenants through the EventsService domain API,
//    consumed by competing consumers pulling every tenant's durable subscription: events/s and
//    p50/p99 from publish to delivery;
// 2. the same at half the peak's end-to-end rate (or at --rate R), for the p99 target;
// 3. with --kill (PostgreSQL or JetStream): producers and consumers as child processes, SIGKILLed
//    mid-run and restarted; lost and duplicated-after-dedupe events counted from the stores.
// JetStream also prints the rate of the bare `nats` client publishing to the same stream.
import os from 'node:os';
import { createEventsStore, type EventsStore } from '../platform/events/backbone/backbone.store';
import {
  benchDatabase,
  describeLoad,
  eventsService,
  fmt,
  loadNote,
  prepareTenants,
  runLoad,
  type BenchDatabase,
} from './events.support';
import { runKillScenario } from './events-kill.support';
import { openBenchJetStream, rawPublishRate } from './events-jetstream.support';

export type StoreKind = 'pg' | 'pglite' | 'jetstream';

interface Args {
  store: StoreKind;
  events: number;
  rate: number;
  producers: number;
  consumers: number;
  tenants: number;
  pullMax: number;
  kill: boolean;
}

function parseArgs(args: string[]): Args {
  const value = (name: string): string | undefined => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const int = (name: string, fallback: number): number => {
    const v = value(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${v}`);
    return n;
  };
  const store = (value('store') ?? (process.env.DATABASE_URL ? 'pg' : 'pglite')) as StoreKind;
  if (!['pg', 'pglite', 'jetstream'].includes(store)) throw new Error(`--store must be pg, pglite or jetstream`);
  return {
    store,
    events: int('events', 20_000),
    rate: int('rate', 0),
    producers: int('producers', 50),
    consumers: int('consumers', 4),
    tenants: int('tenants', 50),
    pullMax: int('pull', 100),
    kill: args.includes('--kill'),
  };
}

/** The store under test on a fresh database. */
async function openStore(
  kind: StoreKind,
  bench: BenchDatabase,
): Promise<{ store: EventsStore; close(): Promise<void> }> {
  if (kind === 'jetstream') {
    return openBenchJetStream(bench.db);
  }
  return { store: createEventsStore(bench.db.sql), close: async () => {} };
}

export async function run(argv: string[]): Promise<void> {
  const a = parseArgs(argv);
  console.log(
    `# events benchmark: store ${a.store}, ${fmt(a.events)} events, ${a.producers} producers, ${a.consumers} consumers, ` +
      `${a.tenants} tenants, pull ${a.pullMax}; ${os.cpus().length} CPUs, node ${process.version}; ${loadNote()}`,
  );
  // Room for every producer and consumer at once on PostgreSQL; PGlite is one connection anyway.
  const bench = await benchDatabase(a.store === 'pglite' ? 'pglite' : 'pg', a.producers + a.consumers + 4);
  const { store, close } = await openStore(a.store, bench);
  try {
    const service = eventsService(store);
    const load = async (label: string, prefix: string, events: number, rate: number) => {
      const tenants = Array.from({ length: a.tenants }, (_, i) => `${prefix}-${i}`);
      await prepareTenants(service, tenants);
      const f = await runLoad(service, { ...a, events, rate, tenants });
      console.log(describeLoad(label, f));
      return f;
    };
    await load('warm-up', 'warm', Math.min(2000, a.events), 0);
    let rate = a.rate;
    if (rate === 0) {
      const peak = await load('peak (as fast as the producers go)', 'peak', a.events, 0);
      rate = Math.max(1, Math.floor(peak.delivered / peak.totalSeconds / 2));
    }
    await load(`offered ${fmt(rate)} events/s${a.rate === 0 ? ' (half the peak)' : ''}`, 'half', a.events, rate);
    if (a.store === 'jetstream') {
      const raw = await rawPublishRate(a.events, a.producers);
      console.log(
        `raw nats client, ${a.producers} concurrent js.publish to the same stream: ${fmt(raw)} events/s (${loadNote()})`,
      );
    }
    if (a.kill) {
      if (!bench.url) throw new Error('--kill needs PostgreSQL (--store pg or jetstream with DATABASE_URL)');
      await runKillScenario({
        store: a.store,
        eventsStore: store,
        dbUrl: bench.url,
        events: a.events,
        tenants: a.tenants,
      });
    }
  } finally {
    await close();
    await bench.drop();
  }
}
