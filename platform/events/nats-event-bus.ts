// NATS JetStream (NATS_URL): events go through a stream, so subscribers on any process and any
// host receive them. Each subscription is an ordered consumer that starts at new messages.
// The stream is bounded (max_bytes, max_msgs, max_age) with discard policy `old`: a full stream
// drops its oldest notices, never refuses a new one. That is safe because a notice only wakes a
// subscriber, which then reads the database after the last sequence it delivered
// (platform/events/pull-on-notify.ts); nobody replays the stream itself.
import {
  connect,
  DeliverPolicy,
  DiscardPolicy,
  JSONCodec,
  RetentionPolicy,
  StorageType,
  type ConsumerMessages,
  type NatsConnection,
  type StreamConfig as JsStreamConfig,
} from 'nats';
import type { StreamConfig } from '../config/platform.config';
import type { EventBus } from './event-bus';

export interface NatsBusOptions {
  url: string;
  stream?: string;
  /** Subject = prefix + topic. */
  subjectPrefix?: string;
  /** Storage and limits of the stream (defaults: file storage, 1 GiB, 5 million messages, 24 h). */
  limits?: StreamConfig;
  onError?: (err: unknown) => void;
}

export const DEFAULT_STREAM_LIMITS: StreamConfig = {
  storage: 'file',
  maxBytes: 1024 * 1024 * 1024,
  maxMsgs: 5_000_000,
  maxAgeSeconds: 24 * 3600,
};

/** The JetStream configuration of the platform's stream. */
export function streamConfigOf(
  name: string,
  subjectPrefix: string,
  limits: StreamConfig,
): Partial<JsStreamConfig> & { name: string } {
  return {
    name,
    subjects: [`${subjectPrefix}>`],
    storage: limits.storage === 'file' ? StorageType.File : StorageType.Memory,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_bytes: limits.maxBytes,
    max_msgs: limits.maxMsgs,
    max_age: limits.maxAgeSeconds * 1e9,
  };
}

export async function createNatsEventBus(options: NatsBusOptions): Promise<EventBus> {
  const stream = options.stream ?? 'PLATFORM_EVENTS';
  const prefix = options.subjectPrefix ?? 'platform.';
  const onError = options.onError ?? (() => {});
  const servers = options.url.replace(/^nats:\/\//, '');
  // noAsyncTraces: otherwise every publish (a JetStream request) captures two stack traces for
  // errors that almost never happen (a request's caller and its timeout); the ledger's notice relay
  // publishes one notice per appended event, and those captures were ~5% of its main thread (issue 35).
  const nc: NatsConnection = await connect({
    servers,
    name: 'platform-event-bus',
    maxReconnectAttempts: -1,
    noAsyncTraces: true,
  });
  const jsm = await nc.jetstreamManager();
  const wanted = streamConfigOf(stream, prefix, options.limits ?? DEFAULT_STREAM_LIMITS);
  let existing: JsStreamConfig | undefined;
  try {
    existing = (await jsm.streams.info(stream)).config;
  } catch {
    await jsm.streams.add(wanted).catch(async (err) => {
      // Another process created it first.
      existing = (
        await jsm.streams.info(stream).catch(() => {
          throw err;
        })
      ).config;
    });
  }
  if (existing) {
    // Limits follow the configuration; storage cannot change on a live stream (NATS refuses), so
    // a stream created in memory by an older version stays there until an operator recreates it.
    if (existing.storage !== wanted.storage) {
      onError(
        new Error(
          `NATS stream ${stream} uses ${existing.storage} storage, configured ${wanted.storage}: delete the stream (nats stream rm ${stream}) to change it`,
        ),
      );
    }
    const stale =
      existing.max_bytes !== wanted.max_bytes ||
      existing.max_msgs !== wanted.max_msgs ||
      existing.max_age !== wanted.max_age ||
      existing.discard !== wanted.discard;
    if (stale) {
      await jsm.streams
        .update(stream, {
          ...existing,
          max_bytes: wanted.max_bytes,
          max_msgs: wanted.max_msgs,
          max_age: wanted.max_age,
          discard: wanted.discard,
        })
        .catch(onError);
    }
  }
  const js = nc.jetstream();
  const codec = JSONCodec();
  const live = new Set<ConsumerMessages>();

  // A publish is a core NATS message on the stream's subject (the stream stores it as it would a
  // JetStream publish) and resolves at the PONG of a flush shared by every publish of the same
  // tick: the server has then read them, in order. A JetStream publish waited for a stored-ack of
  // its own instead (a request: an inbox, a timer, a reply to parse, and an Error built for its
  // cancellation), 40-70 us of CPU a message against ~14, paid per notice by every relay
  // (docs/benchmarks.md, eleventh session, val). The ack bought nothing here: the bus delivers at
  // most once and its messages are wake-ups read back from the database (event-bus.ts); a
  // connection lost before the PONG still rejects the publish, so a relay retries its notice.
  let flushing: Promise<void> | undefined;
  const flushSoon = (): Promise<void> => {
    flushing ??= Promise.resolve().then(() => {
      flushing = undefined;
      return nc.flush();
    });
    return flushing;
  };

  return {
    kind: 'nats',
    async publish(topic, payload) {
      nc.publish(prefix + topic, codec.encode(payload));
      await flushSoon();
    },
    async subscribe(topic, handler) {
      // One subject as a string: an array means `filter_subjects`, which servers before 2.10 ignore
      // (consume() then never starts).
      const consumer = await js.consumers.get(stream, {
        filterSubjects: prefix + topic,
        deliver_policy: DeliverPolicy.New,
      });
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
