// The events benchmark's in-process load (bench/events.ts): producers publishing through the
// EventsService domain API (the code behind POST /publish, without HTTP) over many tenants, and
// competing consumers pulling and acking every tenant's durable subscription. Each event carries
// the wall-clock time its publish started, so a delivery's latency is measured from publish to the
// consumer holding it, whichever process pulled it.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { TenantAccess } from '../platform/auth/tenant-access';
import type { Caller } from '../platform/auth/caller';
import { openDatabase, type Database } from '../platform/db/database';
import type { EventsStore } from '../platform/events/backbone/backbone.store';
import type { EventsConfig } from '../subgraphs/events/events.config';
import { EventsService } from '../subgraphs/events/events.service';

export const BENCH_TOPIC = 'bench.orders';
export const BENCH_SUBSCRIPTION = 'bench-workers';
export const BENCH_SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer' }, t: { type: 'number' } },
  required: ['n', 't'],
};
/** Anonymous, as behind the gateway's trusted network: the tenant is named per call. */
export const BENCH_CALLER: Caller = { correlationId: 'bench-events' };

/** Settings with the per-process rate and the storage quota out of the way: the bench measures the store. */
export const BENCH_CONFIG: EventsConfig = {
  requireAuth: false,
  maxEventBytes: 256 * 1024,
  publishPerSecond: 1_000_000,
  tenantStorageBytes: 1e13,
  subscriptionDefaults: { maxDeliveries: 100, ackTimeoutMs: 30_000, backoffMs: 100 },
};

/** Wall-clock milliseconds with a fraction: comparable across processes of one machine. */
export const wallMs = (): number => performance.timeOrigin + performance.now();

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** The machine's load, printed beside every figure: the 2 cores are shared. */
export function loadNote(): string {
  return `load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')} on ${os.cpus().length} CPUs`;
}

export function eventsService(store: EventsStore): EventsService {
  return new EventsService(store, new TenantAccess(async () => {}), BENCH_CONFIG);
}

/** A fresh database for one bench: a throwaway PostgreSQL database (dropped by `drop`) or in-memory PGlite. */
export async function benchDatabase(kind: 'pg' | 'pglite', poolSize: number): Promise<BenchDatabase> {
  if (kind === 'pglite') {
    const db = await openDatabase({ pgliteDir: 'memory://', poolSize: 1 });
    return { db, url: undefined, drop: () => db.close() };
  }
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('--store pg needs DATABASE_URL (bash /work/shared/ci/start-postgres.sh prints one)');
  const name = `bench_events_${randomBytes(4).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), pgliteDir: '', poolSize });
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

export interface BenchDatabase {
  db: Database;
  /** The PostgreSQL URL child processes connect to (none for PGlite). */
  url: string | undefined;
  drop(): Promise<void>;
}

/** Registers the bench topic in each tenant and a durable subscription from the stream's start. */
export async function prepareTenants(
  service: EventsService,
  tenants: string[],
  subscription: { ackTimeoutMs?: number } = {},
): Promise<void> {
  for (const tenantId of tenants) {
    await service.registerTopic(BENCH_CALLER, { tenantId, name: BENCH_TOPIC, schema: BENCH_SCHEMA });
    await service.createSubscription(BENCH_CALLER, {
      tenantId,
      name: BENCH_SUBSCRIPTION,
      topic: BENCH_TOPIC,
      fromPosition: 0,
      ...(subscription.ackTimeoutMs !== undefined ? { ackTimeoutMs: subscription.ackTimeoutMs } : {}),
    });
  }
}

export interface LoadOptions {
  events: number;
  producers: number;
  consumers: number;
  tenants: string[];
  /** Events per second offered by all producers together (open loop); 0: as fast as they can. */
  rate: number;
  pullMax: number;
}

export interface LoadFigures {
  published: number;
  delivered: number;
  /** Deliveries of an id already delivered (at-least-once redeliveries, before any dedupe). */
  redelivered: number;
  publishSeconds: number;
  /** From the first publish to the last delivery. */
  totalSeconds: number;
  latencies: number[];
  publishErrors: number;
}

/**
 * Publishes `events` events (ids `e<n>`, round-robin over the tenants) from `producers` loops and
 * consumes them with `consumers` loops, each sweeping every tenant's subscription, until every id
 * was delivered once.
 */
export async function runLoad(service: EventsService, o: LoadOptions): Promise<LoadFigures> {
  const latencies: number[] = [];
  const seen = new Uint8Array(o.events);
  let delivered = 0;
  let redelivered = 0;
  let publishErrors = 0;
  let publishing = true;
  const t0 = wallMs();

  const producer = async (p: number) => {
    for (let n = p; n < o.events; n += o.producers) {
      if (o.rate > 0) {
        // Open loop: event n is due at t0 + n/rate, late or not, so queueing shows in the latency.
        const wait = t0 + (n / o.rate) * 1000 - wallMs();
        if (wait > 0) await sleep(wait);
      }
      const tenantId = o.tenants[n % o.tenants.length]!;
      for (;;) {
        try {
          await service.publish(BENCH_CALLER, {
            tenantId,
            topic: BENCH_TOPIC,
            id: `e${n}`,
            subject: `order-${n}`,
            data: { n, t: wallMs() },
          });
          break;
        } catch (err) {
          publishErrors++;
          if (publishErrors === 1) console.error('publish failed (retrying):', err);
          await sleep(10);
        }
      }
    }
  };

  const consumer = async (c: number) => {
    let idle = 0;
    for (let sweep = c; delivered < o.events; sweep++) {
      const tenantId = o.tenants[sweep % o.tenants.length]!;
      const batch = await service.pull(BENCH_CALLER, BENCH_SUBSCRIPTION, o.pullMax, tenantId);
      const now = wallMs();
      for (const m of batch) {
        const data = m.event.data as { n: number; t: number };
        if (seen[data.n]) {
          redelivered++;
          continue;
        }
        seen[data.n] = 1;
        delivered++;
        latencies.push(now - data.t);
      }
      if (batch.length > 0) {
        idle = 0;
        await service.ack(
          BENCH_CALLER,
          BENCH_SUBSCRIPTION,
          batch.map((m) => m.leaseId),
          tenantId,
        );
      } else if (++idle >= o.tenants.length) {
        // A whole sweep found nothing: wait a little rather than spin on empty pulls.
        idle = 0;
        await sleep(publishing ? 2 : 20);
      }
    }
  };

  const consumers = Array.from({ length: o.consumers }, (_, c) => consumer(c));
  await Promise.all(Array.from({ length: o.producers }, (_, p) => producer(p)));
  publishing = false;
  const publishSeconds = (wallMs() - t0) / 1000;
  await Promise.all(consumers);
  const totalSeconds = (wallMs() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    published: o.events,
    delivered,
    redelivered,
    publishSeconds,
    totalSeconds,
    latencies,
    publishErrors,
  };
}

export function describeLoad(label: string, f: LoadFigures): string {
  return (
    `${label}: published ${fmt(f.published)} in ${fmt(f.publishSeconds, 2)} s = ${fmt(f.published / f.publishSeconds)} events/s; ` +
    `delivered ${fmt(f.delivered)} by ${fmt(f.totalSeconds, 2)} s = ${fmt(f.delivered / f.totalSeconds)} events/s end to end; ` +
    `publish→delivery p50 ${fmt(percentile(f.latencies, 0.5), 1)} ms, p99 ${fmt(percentile(f.latencies, 0.99), 1)} ms, ` +
    `max ${fmt(f.latencies[f.latencies.length - 1] ?? NaN, 1)} ms; redelivered ${f.redelivered}, publish retries ${f.publishErrors} (${loadNote()})`
  );
}
