// The kill -9 scenario of the events benchmark: 5 producer processes (10 producer loops each, 50
// in all) and 2 consumer processes (2 competing loops each) on PostgreSQL (or JetStream with its
// metadata in PostgreSQL). At a third and at two thirds of the way, two producers and one consumer
// are SIGKILLed and restarted at once. Afterwards: lost = ids the deduplicating consumer never
// applied; duplicates = ids it applied twice; both counted from the tables, and the events
// themselves counted by reading every tenant's stream back from the events store.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { EventsStore } from '../platform/events/backbone/backbone.store';
import { BENCH_TOPIC, fmt, loadNote, prepareTenants, sleep, eventsService, wallMs } from './events.support';
import type { WorkerSettings } from './events-worker.support';

const PRODUCER_PROCESSES = 5;
const LOOPS_PER_PRODUCER = 10;
const CONSUMER_PROCESSES = 2;
const CONSUMER_LOOPS = 2;
/** Short leases: a killed consumer's messages come back soon. */
const ACK_TIMEOUT_MS = 2000;

interface Worker {
  settings: WorkerSettings;
  child: ChildProcess;
  exited: Promise<number | null>;
}

function start(settings: WorkerSettings): Worker {
  const child = spawn(process.execPath, [path.join(__dirname, 'events-worker.support.js')], {
    env: { ...process.env, BENCH_EVENTS_WORKER: JSON.stringify(settings) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { settings, child, exited };
}

async function kill(w: Worker): Promise<Worker> {
  w.child.kill('SIGKILL');
  await w.exited;
  return start(w.settings);
}

/** Every stored event of the bench's tenants, read back page by page from the store. */
async function storedIds(store: EventsStore, tenants: string[]): Promise<{ rows: number; distinct: number }> {
  const ids = new Set<string>();
  let rows = 0;
  for (const tenantId of tenants) {
    for (let after = 0; ;) {
      const page = await store.eventsAfter(tenantId, BENCH_TOPIC, after, 500);
      if (page.length === 0) break;
      rows += page.length;
      page.forEach((e) => ids.add(e.id));
      after = page[page.length - 1]!.position;
    }
  }
  return { rows, distinct: ids.size };
}

export async function runKillScenario(o: {
  store: 'pg' | 'pglite' | 'jetstream';
  eventsStore: EventsStore;
  dbUrl: string;
  events: number;
  tenants: number;
}): Promise<void> {
  if (o.store === 'pglite') throw new Error('the kill scenario needs separate processes: PostgreSQL or JetStream');
  const tenants = Array.from({ length: o.tenants }, (_, i) => `kill-${i}`);
  await prepareTenants(eventsService(o.eventsStore), tenants, { ackTimeoutMs: ACK_TIMEOUT_MS });
  const db = new pg.Client({ connectionString: o.dbUrl });
  await db.connect();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-events-'));
  try {
    await db.query(`CREATE TABLE bench_deliveries (id text NOT NULL);
      CREATE TABLE bench_seen (id text PRIMARY KEY);
      CREATE TABLE bench_effects (id text NOT NULL)`);
    const base = { store: o.store, dbUrl: o.dbUrl, tenants, events: o.events } as const;
    const producerCount = PRODUCER_PROCESSES * LOOPS_PER_PRODUCER;
    let producers = Array.from({ length: PRODUCER_PROCESSES }, (_, i) =>
      start({
        ...base,
        role: 'producer',
        producerCount,
        loops: Array.from({ length: LOOPS_PER_PRODUCER }, (_, l) => i * LOOPS_PER_PRODUCER + l),
        checkpoint: path.join(dir, `producer-${i}.json`),
      }),
    );
    let consumers = Array.from({ length: CONSUMER_PROCESSES }, (_, i) =>
      start({
        ...base,
        role: 'consumer',
        producerCount,
        loops: Array.from({ length: CONSUMER_LOOPS }, (_, l) => i * CONSUMER_LOOPS + l),
        checkpoint: '',
      }),
    );
    const applied = async () => Number((await db.query(`SELECT count(*)::int AS n FROM bench_seen`)).rows[0].n);
    const t0 = wallMs();
    let kills = 0;
    for (const [fraction, victims] of [
      [1 / 3, [0, 1]],
      [2 / 3, [2, 3]],
    ] as const) {
      while ((await applied()) < o.events * fraction) await sleep(50);
      producers = await Promise.all(
        producers.map((w, i) => ((victims as readonly number[]).includes(i) ? kill(w) : w)),
      );
      const c = kills++ % CONSUMER_PROCESSES;
      consumers = await Promise.all(consumers.map((w, i) => (i === c ? kill(w) : w)));
      console.log(
        `  SIGKILL producers ${victims.join(', ')} and consumer ${c} at ${fmt(await applied())} applied; restarted`,
      );
    }
    const codes = await Promise.all(producers.map((w) => w.exited));
    if (codes.some((c) => c !== 0)) throw new Error(`a producer failed: exit codes ${codes.join(', ')}`);
    const deadline = wallMs() + 120_000;
    while ((await applied()) < o.events && wallMs() < deadline) await sleep(100);
    const seconds = (wallMs() - t0) / 1000;
    for (const w of consumers) w.child.kill('SIGKILL');
    await Promise.all(consumers.map((w) => w.exited));

    const counts = (
      await db.query<{ deliveries: number; delivered: number; effects: number; applied: number; expected: number }>(
        `SELECT (SELECT count(*) FROM bench_deliveries)::int AS deliveries,
                (SELECT count(DISTINCT id) FROM bench_deliveries)::int AS delivered,
                (SELECT count(*) FROM bench_effects)::int AS effects,
                (SELECT count(DISTINCT id) FROM bench_effects)::int AS applied,
                (SELECT count(*) FROM bench_effects e WHERE e.id ~ '^k[0-9]+$' AND substr(e.id, 2)::int < $1)::int AS expected`,
        [o.events],
      )
    ).rows[0]!;
    const stored = await storedIds(o.eventsStore, tenants);
    console.log(
      `kill -9 (${PRODUCER_PROCESSES} producer processes × ${LOOPS_PER_PRODUCER}, ${CONSUMER_PROCESSES} consumer processes × ${CONSUMER_LOOPS}, ` +
        `${kills * 3} SIGKILLs, ${fmt(seconds, 1)} s): ${fmt(o.events)} published ids; stored ${fmt(stored.rows)} events ` +
        `(${fmt(stored.distinct)} distinct ids); deliveries ${fmt(counts.deliveries)} (${fmt(counts.deliveries - counts.delivered)} redelivered); ` +
        `lost ${fmt(o.events - Math.min(counts.applied, counts.expected))}, delivered twice after dedupe ${fmt(counts.effects - counts.applied)} (${loadNote()})`,
    );
  } finally {
    await db.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
