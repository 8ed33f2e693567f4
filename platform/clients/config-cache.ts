// The in-process view of the config service a consuming service keeps: per tenant, the last
// effective configuration it read and its feature flags, evaluated locally by flagd's rules
// (platform/flags/flag-set.ts, no network call per evaluation). A tenant's copy is fetched on
// first use, refreshed when `config.changed` announces a change that may touch it (its own layer,
// or an operator layer, which touches every tenant) and every `refreshMs` as a safety net; when
// the service is down the last good copy keeps being served. Copies are bounded: at most
// `maxTenants` (default 1,000) tenants are held, the least recently read dropped first (and
// fetched again on its next read), so a process serving very many tenants stays bounded.
import type { EvaluationContext, JsonValue } from '@openfeature/core';
import { CONFIG_CHANGED } from '../contracts/config.events';
import { contractBus } from '../events/contract-bus';
import type { EventBus, Unsubscribe } from '../events/event-bus';
import { FLAGS_NAMESPACE, FlagSet, isOfrepFailure } from '../flags/flag-set';
import type { Logger } from '../logging/logger';
import type { ConfigClient, EffectiveConfigQuery, EffectiveConfigView } from './config.client';
import { LruMap } from './lru-map';

export interface CachedConfigOptions {
  /** What the service reads with (a service identity for the tenant, usually). */
  query?: Omit<EffectiveConfigQuery, 'as_of' | 'user' | 'namespace'>;
  /** Safety-net refresh period (ms); 0 turns it off. */
  refreshMs?: number;
  bus?: Pick<EventBus, 'publish' | 'subscribe'>;
  logger: Pick<Logger, 'warn'>;
  /** Tenants whose copies are held at most (least recently read dropped first); default 1,000. */
  maxTenants?: number;
}

export const DEFAULT_MAX_TENANTS = 1_000;

interface TenantCopy {
  view: EffectiveConfigView;
  flags: FlagSet | null;
  fetchedAt: number;
}

export class CachedConfig {
  private readonly copies: LruMap<string, TenantCopy>;
  private readonly inflight = new Map<string, Promise<TenantCopy | undefined>>();
  private unsubscribe?: Unsubscribe;
  private timer?: NodeJS.Timeout;
  /** Failed refreshes since the last success (observability; the copy stays). */
  failures = 0;

  constructor(
    private readonly client: Pick<ConfigClient, 'effective'>,
    private readonly options: CachedConfigOptions,
  ) {
    this.copies = new LruMap(options.maxTenants ?? DEFAULT_MAX_TENANTS);
  }

  /** How many tenants' copies are held now. */
  get size(): number {
    return this.copies.size;
  }

  async start(): Promise<void> {
    if (this.options.bus) {
      this.unsubscribe = await contractBus(this.options.bus, this.options.logger).subscribe(CONFIG_CHANGED, (c) => {
        const tenants = c.tenant_id === null ? this.copies.keys() : this.copies.has(c.tenant_id) ? [c.tenant_id] : [];
        // Platform and tenant layers touch every read of the tenant: its answer must reach c.seq.
        const reaches = c.layer === 'platform' || c.layer === 'tenant';
        return Promise.all(tenants.map((t) => (reaches ? this.catchUp(t, c.seq) : this.refresh(t)))).then(
          () => undefined,
        );
      });
    }
    const every = this.options.refreshMs ?? 30_000;
    if (every > 0) {
      this.timer = setInterval(() => void Promise.all(this.copies.keys().map((t) => this.refresh(t))), every);
      this.timer.unref();
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.unsubscribe?.();
  }

  /**
   * Re-reads until the answer reflects change `seq`. The notice can outrun the service's own
   * in-memory view (its relay publishes once the change commits, and another replica learns of it
   * from the same notice), so an answer older than the notice is asked again, backing off from
   * 25 ms; after about 3 s the safety-net refresh is left to catch up.
   */
  private async catchUp(tenantId: string, seq: number): Promise<void> {
    for (let delay = 25; ; delay *= 2) {
      const copy = await this.refresh(tenantId);
      if (!copy || copy.view.seq >= seq || delay > 1_600) return;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** Re-reads a tenant's configuration; on failure the last good copy stays. */
  refresh(tenantId: string): Promise<TenantCopy | undefined> {
    const running = this.inflight.get(tenantId);
    if (running) return running.then(() => this.refresh(tenantId));
    const work = this.client
      .effective({ tenantId }, tenantId, this.options.query ?? {})
      .then((view) => {
        const previous = this.copies.peek(tenantId);
        // A slower, older answer never replaces a newer one.
        if (previous && previous.view.seq > view.seq) return previous;
        let flags: FlagSet | null;
        try {
          flags = view.config[FLAGS_NAMESPACE] ? new FlagSet(view.config[FLAGS_NAMESPACE]) : null;
        } catch {
          flags = previous?.flags ?? null;
        }
        const copy = { view, flags, fetchedAt: Date.now() };
        this.copies.set(tenantId, copy);
        this.failures = 0;
        return copy;
      })
      .catch((err: unknown) => {
        this.failures += 1;
        this.options.logger.warn(
          { tenantId, err: (err as Error).message },
          'config refresh failed; serving the last good copy',
        );
        return this.copies.peek(tenantId);
      })
      .finally(() => this.inflight.delete(tenantId));
    this.inflight.set(tenantId, work);
    return work;
  }

  /** The tenant's configuration (fetched on first use, then from memory). */
  async effective(tenantId: string): Promise<EffectiveConfigView | undefined> {
    const copy = this.copies.get(tenantId) ?? (await this.refresh(tenantId));
    return copy?.view;
  }

  /** What is in memory now, without waiting (undefined before the first fetch). */
  peek(tenantId: string): EffectiveConfigView | undefined {
    return this.copies.peek(tenantId)?.view;
  }

  /** One namespace of a tenant's configuration. */
  async namespace<T = Record<string, unknown>>(tenantId: string, namespace: string): Promise<T | undefined> {
    return (await this.effective(tenantId))?.config[namespace] as T | undefined;
  }

  /** Evaluates a flag in process; `fallback` when the tenant has no such flag or it fails. */
  evaluate<T extends JsonValue>(tenantId: string, key: string, fallback: T, context: EvaluationContext = {}): T {
    const flags = this.copies.get(tenantId)?.flags;
    if (!flags) return fallback;
    const r = flags.evaluate(key, { ...context, tenantId });
    if (isOfrepFailure(r) || r.value === undefined || typeof r.value !== typeof fallback) return fallback;
    return r.value as T;
  }
}
