// One child process of the kill -9 scenario (bench/events-kill.support.ts), started as
// `node dist/bench/events-worker.support.js` with its settings in BENCH_EVENTS_WORKER (JSON).
// - producer: publishes its share of the ids (n ≡ p mod producers, id `k<n>`) through the
//   EventsService, retrying until acknowledged, and checkpoints the next n of each loop to a file
//   after acknowledgement; a restarted producer resumes there, so what was published but not yet
//   checkpointed is published again (the store answers `duplicate`).
// - consumer: pulls every tenant's subscription and, per batch, records the deliveries and applies
//   the effect of ids not seen before in one transaction (the dedupe), then acks. Killed between
//   commit and ack, its messages come back after the ack timeout and the dedupe drops them.
import fs from 'node:fs';
import pg from 'pg';
import { openDatabase } from '../platform/db/database';
import { createEventsStore, type EventsStore } from '../platform/events/backbone/backbone.store';
import { openBenchJetStream } from './events-jetstream.support';
import { BENCH_CALLER, BENCH_SUBSCRIPTION, BENCH_TOPIC, eventsService, sleep, wallMs } from './events.support';

export interface WorkerSettings {
  role: 'producer' | 'consumer';
  store: 'pg' | 'jetstream';
  dbUrl: string;
  tenants: string[];
  events: number;
  /** All producers of the run (ids are split by n mod this). */
  producerCount: number;
  /** The producer loops of this process, or the number of consumer loops. */
  loops: number[];
  checkpoint: string;
}

async function openStore(s: WorkerSettings): Promise<EventsStore> {
  const db = await openDatabase({ url: s.dbUrl, pgliteDir: '', poolSize: s.loops.length + 2 }, { migrate: false });
  if (s.store === 'jetstream') {
    return (await openBenchJetStream(db)).store;
  }
  return createEventsStore(db.sql);
}

function readCheckpoint(file: string): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** Written aside and renamed: a SIGKILL mid-write leaves the previous checkpoint whole. */
function writeCheckpoint(file: string, next: Record<string, number>): void {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(next));
  fs.renameSync(`${file}.tmp`, file);
}

async function produce(s: WorkerSettings, store: EventsStore): Promise<void> {
  const service = eventsService(store);
  const next = readCheckpoint(s.checkpoint);
  await Promise.all(
    s.loops.map(async (p) => {
      let since = 0;
      for (let n = next[p] ?? p; n < s.events; n += s.producerCount) {
        for (;;) {
          try {
            await service.publish(BENCH_CALLER, {
              tenantId: s.tenants[n % s.tenants.length],
              topic: BENCH_TOPIC,
              id: `k${n}`,
              data: { n, t: wallMs() },
            });
            break;
          } catch {
            await sleep(50);
          }
        }
        next[p] = n + s.producerCount;
        if (++since >= 20) {
          since = 0;
          writeCheckpoint(s.checkpoint, next);
        }
      }
      writeCheckpoint(s.checkpoint, next);
    }),
  );
}

async function consume(s: WorkerSettings, store: EventsStore): Promise<never> {
  const service = eventsService(store);
  const pool = new pg.Pool({ connectionString: s.dbUrl, max: s.loops.length });
  const loop = async (c: number) => {
    for (let sweep = c; ; sweep++) {
      const tenantId = s.tenants[sweep % s.tenants.length]!;
      let batch;
      try {
        batch = await service.pull(BENCH_CALLER, BENCH_SUBSCRIPTION, 100, tenantId);
      } catch {
        await sleep(50);
        continue;
      }
      if (batch.length === 0) {
        if (sweep % s.tenants.length === 0) await sleep(5);
        continue;
      }
      const ids = batch.map((m) => m.event.id);
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`INSERT INTO bench_deliveries (id) SELECT unnest($1::text[])`, [ids]);
        await client.query(
          `WITH fresh AS (INSERT INTO bench_seen (id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING RETURNING id)
           INSERT INTO bench_effects (id) SELECT id FROM fresh`,
          [ids],
        );
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      await service
        .ack(
          BENCH_CALLER,
          BENCH_SUBSCRIPTION,
          batch.map((m) => m.leaseId),
          tenantId,
        )
        .catch(() => {});
    }
  };
  await Promise.all(s.loops.map((c) => loop(c)));
  throw new Error('unreachable');
}

async function main(): Promise<void> {
  const s = JSON.parse(process.env.BENCH_EVENTS_WORKER ?? '') as WorkerSettings;
  const store = await openStore(s);
  if (s.role === 'producer') await produce(s, store);
  else await consume(s, store);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
