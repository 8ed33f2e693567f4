// Memory buckets for one gateway process; Redis buckets as soon as REDIS_URL says there may be several.
import { MemoryRateLimiter } from './memory-rate-limiter';
import type { BucketSettings, RateLimiter } from './rate-limiter';
import { RedisRateLimiter } from './redis-rate-limiter';

export function createRateLimiter(settings: BucketSettings, redisUrl?: string): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl, settings) : new MemoryRateLimiter(settings);
}
