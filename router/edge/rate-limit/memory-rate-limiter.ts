// In-process token buckets: the default when REDIS_URL is absent (one gateway process).
// Idle buckets are swept so memory stays bounded by the number of active tenants.
import { decisionFrom, type BucketSettings, type RateDecision, type RateLimiter } from './rate-limiter';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly settings: BucketSettings,
    private readonly now: () => number = () => performance.now(),
  ) {
    const fullAfterMs = (settings.burst / settings.perSecond) * 1000;
    this.sweeper = setInterval(() => this.sweep(fullAfterMs), Math.max(1_000, fullAfterMs)).unref();
  }

  async take(key: string, settings?: BucketSettings): Promise<RateDecision> {
    return this.takeSync(key, settings);
  }

  takeSync(key: string, settings: BucketSettings = this.settings): RateDecision {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: settings.burst, updatedAt: now };
    bucket.tokens = Math.min(settings.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * settings.perSecond);
    bucket.updatedAt = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    return decisionFrom(settings, allowed, bucket.tokens);
  }

  private sweep(fullAfterMs: number): void {
    const now = this.now();
    for (const [key, bucket] of this.buckets) if (now - bucket.updatedAt > fullAfterMs) this.buckets.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
