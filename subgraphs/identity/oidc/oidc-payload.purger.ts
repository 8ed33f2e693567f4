// Deletes expired oidc_payloads rows (codes, interactions, sessions, refresh tokens past their
// expiry) on a timer. The adapter already reads them as absent, so this only keeps the table
// small. Each run is bounded (at most maxBatches × batchSize rows), so a backlog after downtime is
// worked off over several runs instead of one long statement; the clock is an argument, so tests
// move time instead of sleeping.
import type { OidcPayloadStore } from './oidc.types';

export interface PurgerOptions {
  /** Time between runs; 0 turns the timer off (IDENTITY_OIDC_PURGE_SECONDS). */
  intervalMs: number;
  batchSize?: number;
  maxBatches?: number;
  now?: () => Date;
  onError?: (err: unknown) => void;
}

export class OidcPayloadPurger {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private readonly batchSize: number;
  private readonly maxBatches: number;
  private readonly now: () => Date;

  constructor(
    private readonly store: Pick<OidcPayloadStore, 'purgeExpired'>,
    private readonly options: PurgerOptions,
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.maxBatches = options.maxBatches ?? 20;
    this.now = options.now ?? (() => new Date());
  }

  /** One bounded run: rows expired at `now` go, batch by batch, until a batch comes back short. */
  async runOnce(now: Date = this.now()): Promise<number> {
    let total = 0;
    for (let i = 0; i < this.maxBatches; i++) {
      const deleted = await this.store.purgeExpired(now, this.batchSize);
      total += deleted;
      if (deleted < this.batchSize) break;
    }
    return total;
  }

  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      this.running = this.runOnce().catch((err: unknown) => this.options.onError?.(err));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
