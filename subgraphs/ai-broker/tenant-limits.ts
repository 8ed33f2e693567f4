// Per-tenant request rate (a token bucket per process: requests per minute, burst of the same
// size) and daily token budget (UTC day). The budget's truth is ai_usage, shared by every copy of
// the service: each copy reads the tenant's day total at most every `refreshMs` and adds its own
// calls in between, so a budget can be overshot by what other copies spent since the last read
// (bounded by refreshMs), never by more.
import { RateLimitedError } from '../../platform/errors/domain-errors';
import type { UsageStore } from './usage.store';

interface Bucket {
  tokens: number;
  at: number;
}

interface Spend {
  day: string;
  tokens: number;
  readAt: number;
}

export class TenantLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly spend = new Map<string, Spend>();

  constructor(
    private readonly usage: Pick<UsageStore, 'tokensSince'>,
    private readonly defaults: { requestsPerMinute: number; dailyTokenBudget: number },
    private readonly refreshMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request from the tenant's bucket, or 429 with the seconds until the next. */
  takeRequest(tenantId: string, perMinute = this.defaults.requestsPerMinute): void {
    const now = this.now();
    const rate = perMinute / 60_000;
    const b = this.buckets.get(tenantId) ?? { tokens: perMinute, at: now };
    b.tokens = Math.min(perMinute, b.tokens + (now - b.at) * rate);
    b.at = now;
    if (b.tokens < 1) {
      this.buckets.set(tenantId, b);
      throw new RateLimitedError(
        `Rate limit of ${perMinute} AI requests per minute reached for this tenant`,
        Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000)),
      );
    }
    b.tokens -= 1;
    this.buckets.set(tenantId, b);
  }

  private static day(ms: number): string {
    return new Date(ms).toISOString().slice(0, 10);
  }

  /** 429 when the tenant has spent its daily token budget (0: no budget). */
  async checkBudget(tenantId: string, budget = this.defaults.dailyTokenBudget): Promise<void> {
    if (budget <= 0) return;
    const now = this.now();
    const day = TenantLimits.day(now);
    let s = this.spend.get(tenantId);
    if (!s || s.day !== day || now - s.readAt > this.refreshMs) {
      s = { day, tokens: await this.usage.tokensSince(tenantId, new Date(`${day}T00:00:00Z`)), readAt: now };
      this.spend.set(tenantId, s);
    }
    if (s.tokens >= budget) {
      const midnight = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
      throw new RateLimitedError(
        `Daily AI token budget of ${budget} tokens is spent for this tenant`,
        Math.max(1, Math.ceil((midnight - now) / 1000)),
      );
    }
  }

  /** Adds a call's tokens to the local view of the tenant's day. */
  spent(tenantId: string, tokens: number): void {
    const s = this.spend.get(tenantId);
    if (s && s.day === TenantLimits.day(this.now())) s.tokens += tokens;
  }
}
