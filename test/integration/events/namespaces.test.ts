// PLATFORM_NAMESPACE on real servers (skipped without NATS_URL / REDIS_URL): two deployments on
// one NATS and one Redis share nothing. Each namespace has its own stream (file storage, the
// configured limits, discard `old`) and subjects; the gateway's rate-limit buckets live under the
// namespace's key prefix.
import Redis from 'ioredis';
import { connect } from 'nats';
import { loadPlatformConfig, redisKeyPrefix, streamNames } from '../../../platform/config/platform.config';
import { createEventBus } from '../../../platform/events/create-event-bus';
import type { EventBus } from '../../../platform/events/event-bus';
import { createRateLimiter } from '../../../router/edge/rate-limit/rate-limiter.factory';
import { until } from '../../support/waiting';

jest.setTimeout(60_000);

const NATS_URL = process.env.NATS_URL;
const REDIS_URL = process.env.REDIS_URL;
const run = `t${process.pid}x${Date.now().toString(36)}`;
const namespaces = [`${run}-a`, `${run}-b`];

(NATS_URL ? describe : describe.skip)('NATS', () => {
  const buses: EventBus[] = [];

  afterAll(async () => {
    for (const bus of buses) await bus.close();
    const nc = await connect({ servers: NATS_URL!.replace(/^nats:\/\//, '') });
    const jsm = await nc.jetstreamManager();
    for (const ns of namespaces) await jsm.streams.delete(streamNames(ns).stream).catch(() => false);
    await nc.drain();
  });

  it('gives each namespace its own bounded file stream and subjects', async () => {
    const busOf = async (namespace: string) => {
      const config = loadPlatformConfig({
        NATS_URL,
        PLATFORM_NAMESPACE: namespace,
        NATS_STREAM_MAX_MSGS: '1000',
        NATS_STREAM_MAX_BYTES: '1048576',
      });
      const bus = await createEventBus({ natsUrl: config.natsUrl, namespace: config.namespace, stream: config.stream });
      buses.push(bus);
      return bus;
    };
    const [a, b] = [await busOf(namespaces[0]!), await busOf(namespaces[1]!)];
    const seenA: unknown[] = [];
    const seenB: unknown[] = [];
    await a.subscribe('ledger.event_appended', (p) => void seenA.push(p));
    await b.subscribe('ledger.event_appended', (p) => void seenB.push(p));
    await a.publish('ledger.event_appended', { n: 1 });
    await b.publish('ledger.event_appended', { n: 2 });
    await until(() => seenA.length === 1 && seenB.length === 1, 'one notice in each namespace');
    expect(seenA).toEqual([{ n: 1 }]);
    expect(seenB).toEqual([{ n: 2 }]);

    const nc = await connect({ servers: NATS_URL!.replace(/^nats:\/\//, '') });
    try {
      const info = await (await nc.jetstreamManager()).streams.info(streamNames(namespaces[0]!).stream);
      expect(info.config).toMatchObject({
        subjects: [`${namespaces[0]}.platform.>`],
        storage: 'file',
        discard: 'old',
        max_msgs: 1000,
        max_bytes: 1048576,
      });
      expect(info.state.messages).toBe(1);
    } finally {
      await nc.drain();
    }
  });
});

(REDIS_URL ? describe : describe.skip)('Redis', () => {
  const redis = REDIS_URL ? new Redis(REDIS_URL, { lazyConnect: true }) : undefined;

  afterAll(async () => {
    for (const ns of namespaces) {
      const keys = await redis!.keys(`${ns}:*`);
      if (keys.length > 0) await redis!.del(...keys);
    }
    redis?.disconnect();
  });

  it("keeps each namespace's rate-limit budget under its own keys", async () => {
    const settings = { perSecond: 1, burst: 2 };
    const a = createRateLimiter(settings, REDIS_URL, redisKeyPrefix(namespaces[0]!));
    const b = createRateLimiter(settings, REDIS_URL, redisKeyPrefix(namespaces[1]!));
    try {
      expect((await a.take('tenant:t1')).allowed).toBe(true);
      expect((await a.take('tenant:t1')).allowed).toBe(true);
      expect((await a.take('tenant:t1')).allowed).toBe(false);
      // The same tenant in the other deployment still has its whole budget.
      expect((await b.take('tenant:t1')).allowed).toBe(true);
      expect(await redis!.exists(`${namespaces[0]}:gateway:ratelimit:tenant:t1`)).toBe(1);
      expect(await redis!.exists(`${namespaces[1]}:gateway:ratelimit:tenant:t1`)).toBe(1);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
