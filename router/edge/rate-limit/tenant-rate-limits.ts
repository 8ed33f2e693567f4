// Per-tenant rate limits from the config service (issue 30, item 6): a tenant's effective
// configuration may set `gateway.rate_limit = {per_second, burst}`; its bucket then uses those,
// changed at run time by a promotion (CachedConfig refreshes on `config.changed`), without a
// restart. The decision never waits on the config service: a tenant not yet in memory uses the
// default limits while its configuration is fetched in the background.
import type { CachedConfig } from '../../../platform/clients/config-cache';
import type { BucketSettings, RateDecision, RateLimiter } from './rate-limiter';

export const GATEWAY_NAMESPACE = 'gateway';

interface GatewayConfig {
  rate_limit?: { per_second?: unknown; burst?: unknown };
}

const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** A tenant whose configuration could not be fetched is asked again after this long, not per request. */
const RETRY_MS = 5_000;

export class TenantRateLimits implements RateLimiter {
  private readonly asked = new Map<string, number>();
  /** Present when the base limiter decides in the process (memory buckets): no promise per request. */
  readonly takeSync?: (key: string, settings?: BucketSettings) => RateDecision;

  constructor(
    private readonly base: RateLimiter,
    private readonly config: Pick<CachedConfig, 'peek' | 'refresh'>,
  ) {
    const sync = base.takeSync?.bind(base);
    if (sync) this.takeSync = (key, settings) => sync(key, this.bucketOf(key, settings));
  }

  /** The tenant's own limits, when its configuration sets valid ones. */
  settingsOf(tenantId: string): BucketSettings | undefined {
    const view = this.config.peek(tenantId);
    if (!view) {
      const now = Date.now();
      if (now - (this.asked.get(tenantId) ?? -Infinity) >= RETRY_MS) {
        if (this.asked.size > 100_000) this.asked.clear();
        this.asked.set(tenantId, now);
        void this.config.refresh(tenantId);
      }
      return undefined;
    }
    const limit = (view.config[GATEWAY_NAMESPACE] as GatewayConfig | undefined)?.rate_limit;
    if (!limit || !positive(limit.per_second) || !positive(limit.burst)) return undefined;
    return { perSecond: limit.per_second, burst: limit.burst };
  }

  take(key: string, settings?: BucketSettings): Promise<RateDecision> {
    return this.base.take(key, this.bucketOf(key, settings));
  }

  /** The settings a key's bucket uses: the caller's, else its tenant's own, else the base limiter's. */
  private bucketOf(key: string, settings?: BucketSettings): BucketSettings | undefined {
    const tenant = key.startsWith('tenant:') ? key.slice('tenant:'.length) : undefined;
    return settings ?? (tenant ? this.settingsOf(tenant) : undefined);
  }

  close(): Promise<void> {
    return this.base.close();
  }
}
