// NATS JetStream (NATS_URL): events go through a stream, so subscribers on any process and any
// host receive them. Each subscription is an ordered consumer that starts at new messages.
import { connect, DeliverPolicy, JSONCodec, RetentionPolicy, StorageType, type ConsumerMessages, type NatsConnection } from 'nats';
import type { EventBus } from './event-bus';

export interface NatsBusOptions {
  url: string;
  stream?: string;
  /** Subject = prefix + topic. */
  subjectPrefix?: string;
  onError?: (err: unknown) => void;
}

export async function createNatsEventBus(options: NatsBusOptions): Promise<EventBus> {
  const stream = options.stream ?? 'PLATFORM_EVENTS';
  const prefix = options.subjectPrefix ?? 'platform.';
  const onError = options.onError ?? (() => {});
  const servers = options.url.replace(/^nats:\/\//, '');
  const nc: NatsConnection = await connect({ servers, name: 'platform-event-bus', maxReconnectAttempts: -1 });
  const jsm = await nc.jetstreamManager();
  try {
    await jsm.streams.info(stream);
  } catch {
    // Live notifications, not an archive: a day of history in memory is plenty.
    await jsm.streams.add({
      name: stream, subjects: [`${prefix}>`], storage: StorageType.Memory, retention: RetentionPolicy.Limits, max_age: 24 * 3600 * 1e9,
    }).catch(async (err) => {
      // Another process created it first.
      await jsm.streams.info(stream).catch(() => { throw err; });
    });
  }
  const js = nc.jetstream();
  const codec = JSONCodec();
  const live = new Set<ConsumerMessages>();

  return {
    kind: 'nats',
    async publish(topic, payload) {
      await js.publish(prefix + topic, codec.encode(payload));
    },
    async subscribe(topic, handler) {
      // One subject as a string: an array means `filter_subjects`, which servers before 2.10 ignore
      // (consume() then never starts).
      const consumer = await js.consumers.get(stream, { filterSubjects: prefix + topic, deliver_policy: DeliverPolicy.New });
      const messages = await consumer.consume();
      live.add(messages);
      void (async () => {
        for await (const m of messages) {
          try {
            await handler(codec.decode(m.data));
          } catch (err) {
            onError(err);
          }
        }
      })().catch(onError);
      return async () => {
        live.delete(messages);
        await messages.close().catch(() => {});
      };
    },
    async close() {
      for (const m of live) await m.close().catch(() => {});
      live.clear();
      await nc.drain().catch(() => {});
    },
  };
}
