// The login throttle's counts in Redis (REDIS_URL), so every identity process sees one count per
// account. Values are small JSON records with a TTL; a lost race between two processes can only
// under-count by one failure, which the next failure corrects.
import Redis from 'ioredis';
import type { ThrottleState, ThrottleStore } from './login.throttle';

export function redisThrottleStore(
  url: string,
  prefix = 'identity:login-throttle:',
): ThrottleStore & { close(): Promise<void> } {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: false });
  return {
    async get(key) {
      const raw = await redis.get(prefix + key);
      return raw ? (JSON.parse(raw) as ThrottleState) : undefined;
    },
    async set(key, state, ttlMs) {
      await redis.set(prefix + key, JSON.stringify(state), 'PX', Math.max(1, Math.ceil(ttlMs)));
    },
    async delete(key) {
      await redis.del(prefix + key);
    },
    async close() {
      redis.disconnect();
    },
  };
}
