// JetStream for the events benchmark: the JetStream events store on a namespace of its own
// (streams deleted afterwards unless it was handed in by a parent process), and the rate the bare
// `nats` client reaches with the same number of concurrent publishers on the same stream.
import { randomBytes } from 'node:crypto';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import type { Database } from '../platform/db/database';
import type { EventsStore } from '../platform/events/backbone/backbone.store';
import { jetStreamLimits } from '../platform/events/backbone/jetstream.config';
import { createJetStreamEventsStore, jetStreamNames } from '../platform/events/backbone/jetstream.store';
import { wallMs } from './events.support';

let opened: { nc: NatsConnection; namespace: string } | undefined;

function natsUrl(): string {
  const url = process.env.NATS_URL;
  if (!url) throw new Error('--store jetstream needs NATS_URL (e.g. nats://127.0.0.1:4222)');
  return url.replace(/^nats:\/\//, '');
}

/** The store on BENCH_EVENTS_NAMESPACE (child processes) or on a fresh namespace, which it exports for them. */
export async function openBenchJetStream(db: Database): Promise<{ store: EventsStore; close(): Promise<void> }> {
  const own = !process.env.BENCH_EVENTS_NAMESPACE;
  const namespace = process.env.BENCH_EVENTS_NAMESPACE ?? `bench-${randomBytes(3).toString('hex')}`;
  process.env.BENCH_EVENTS_NAMESPACE = namespace;
  const nc = await connect({ servers: natsUrl() });
  opened = { nc, namespace };
  const store = await createJetStreamEventsStore({ nc, sql: db.sql, namespace, limits: jetStreamLimits(process.env) });
  return {
    store,
    async close() {
      if (own) {
        const jsm = await nc.jetstreamManager();
        const names = jetStreamNames(namespace);
        for (const s of [names.stream, names.dlqStream]) await jsm.streams.delete(s).catch(() => {});
      }
      await nc.close();
    },
  };
}

/** Events/s of `producers` loops awaiting js.publish (with a Nats-Msg-Id, as the store does) on the bench's stream. */
export async function rawPublishRate(events: number, producers: number): Promise<number> {
  if (!opened) throw new Error('open the JetStream store first');
  const js = opened.nc.jetstream();
  const subject = `${jetStreamNames(opened.namespace).subjects}raw.bench`;
  const codec = JSONCodec<unknown>();
  const t0 = wallMs();
  await Promise.all(
    Array.from({ length: producers }, async (_, p) => {
      for (let n = p; n < events; n += producers) {
        await js.publish(subject, codec.encode({ n, t: wallMs() }), { msgID: `raw:${n}` });
      }
    }),
  );
  return events / ((wallMs() - t0) / 1000);
}
