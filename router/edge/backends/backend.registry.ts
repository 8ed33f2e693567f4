// The backends the gateway proxies to, each with its own circuit breaker (opossum, the maintained
// Node breaker): after repeated failures or timeouts the breaker opens and calls fail fast with
// 503; after `resetTimeout` it half-opens, lets one probe through, and closes on success.
import CircuitBreaker from 'opossum';
import type { GatewayConfig } from '../../gateway.config';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface Backend {
  name: string;
  url: string;
  /** Runs one upstream call under the breaker; rejects with code EOPENBREAKER when open. */
  call<T>(fn: () => Promise<T>): Promise<T>;
  state(): BreakerState;
  reset(): void;
}

export class BackendRegistry {
  private readonly backends = new Map<string, Backend>();
  private readonly breakers: CircuitBreaker[] = [];

  constructor(config: GatewayConfig) {
    for (const [name, url] of Object.entries(config.backends)) {
      // The breaker runs the call it is given; timeouts are enforced by the HTTP client
      // (headersTimeout), which aborts the socket too, so opossum's own timer is off.
      const breaker = new CircuitBreaker(async (fn: () => Promise<unknown>) => fn(), {
        name,
        timeout: false,
        errorThresholdPercentage: config.breaker.errorThresholdPercentage,
        volumeThreshold: config.breaker.volumeThreshold,
        resetTimeout: config.breaker.resetTimeoutMs,
      });
      this.breakers.push(breaker);
      this.backends.set(name, {
        name,
        url,
        call: <T>(fn: () => Promise<T>) => breaker.fire(fn) as Promise<T>,
        state: () => (breaker.opened ? 'open' : breaker.halfOpen ? 'half-open' : 'closed'),
        reset: () => breaker.close(),
      });
    }
  }

  get(name: string): Backend | undefined {
    return this.backends.get(name);
  }

  list(): Backend[] {
    return [...this.backends.values()];
  }

  shutdown(): void {
    for (const b of this.breakers) b.shutdown();
  }
}
