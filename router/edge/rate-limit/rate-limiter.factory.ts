// Memory buckets for one gateway process; Redis buckets as soon as REDIS_URL says there may be several.
import { MemoryRateLimiter } from './memory-rate-limiter';
import type { BucketSettings, RateLimiter } from './rate-limiter';
import { RedisRateLimiter } from './redis-rate-limiter';

/** `keyPrefix` is the namespace's Redis prefix (platform.config redisKeyPrefix), '' without one. */
export function createRateLimiter(settings: BucketSettings, redisUrl?: string, keyPrefix = ''): RateLimiter {
  return redisUrl
    ? new RedisRateLimiter(redisUrl, settings, `${keyPrefix}gateway:ratelimit:`)
    : new MemoryRateLimiter(settings);
}
