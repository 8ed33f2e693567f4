// The per-tenant publish rate: a fixed one-second window per tenant, in this process. Several
// processes each allow the rate (the limit is against a runaway publisher, not a billing meter);
// the storage quota, kept in the database, is the shared bound.
import { RateLimitedError } from '../../platform/errors/domain-errors';

export class PublishRate {
  private window = -1;
  private counts = new Map<string, number>();

  constructor(
    private readonly perSecond: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Counts one publish of `tenantId`, or throws 429 when its window is full. */
  take(tenantId: string): void {
    const second = Math.floor(this.clock() / 1000);
    if (second !== this.window) {
      this.window = second;
      this.counts.clear();
    }
    const n = (this.counts.get(tenantId) ?? 0) + 1;
    if (n > this.perSecond) throw new RateLimitedError('Publish rate limit exceeded for this tenant', 1);
    this.counts.set(tenantId, n);
  }
}
