// Token bucket per tenant (spec 01: 100 requests/s, burst 200). One bucket holds `burst` tokens,
// refills at `perSecond`, and every request takes one. The decision carries what the
// RateLimit-* and Retry-After headers need.
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one token is available (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** `settings`: this key's own bucket (a tenant's limits from config), else the limiter's default. */
  take(key: string, settings?: BucketSettings): Promise<RateDecision>;
  /**
   * The same decision without a promise, for a limiter that keeps its buckets in the process (the
   * memory one); absent for a remote store. Lets the router's per-request checks stay synchronous:
   * every promise costs a hook call per step once tracing's AsyncLocalStorage is on (issue 31).
   */
  takeSync?(key: string, settings?: BucketSettings): RateDecision;
  close(): Promise<void>;
}

export interface BucketSettings {
  perSecond: number;
  burst: number;
}

/** The arithmetic both stores share, from the tokens left after this request's take. */
export function decisionFrom(settings: BucketSettings, allowed: boolean, tokens: number): RateDecision {
  const missing = settings.burst - tokens;
  return {
    allowed,
    limit: settings.burst,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil(missing / settings.perSecond),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / settings.perSecond)),
  };
}
