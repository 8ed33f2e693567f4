// Token buckets shared through Redis (REDIS_URL), so several gateway processes spend one budget
// per tenant. Refill-and-take is one Lua script, atomic on the server, using Redis's own clock
// so gateways with skewed clocks still agree.
import Redis from 'ioredis';
import { decisionFrom, type BucketSettings, type RateDecision, type RateLimiter } from './rate-limiter';

const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil or ts == nil then tokens = burst; ts = now end
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

type RedisWithTake = Redis & { rateLimitTake(key: string, rate: number, burst: number): Promise<[number, string]> };

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: RedisWithTake;

  constructor(
    url: string,
    private readonly settings: BucketSettings,
    private readonly prefix = 'gateway:ratelimit:',
  ) {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
    // defineCommand sends EVALSHA and falls back to EVAL once per connection.
    redis.defineCommand('rateLimitTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.redis = redis as RedisWithTake;
  }

  async take(key: string, settings: BucketSettings = this.settings): Promise<RateDecision> {
    const [allowed, tokens] = await this.redis.rateLimitTake(this.prefix + key, settings.perSecond, settings.burst);
    return decisionFrom(settings, allowed === 1, Number(tokens));
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
