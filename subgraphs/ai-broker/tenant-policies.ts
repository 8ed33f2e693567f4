// The tenants' policies (required model tags, daily token budget, requests per minute, redaction
// mode, custom PII patterns), in two layers: the catalogue file's entry (the broker's defaults,
// docs/ai-broker.md) under the tenant's effective configuration from the config service, namespace
// `ai_broker` (issue 30, item 6), in the file's own snake_case shape. The config layer is read
// through CachedConfig, which refreshes on `config.changed`, so a promoted change applies to the
// next request without a restart. A tenant's first request waits for its configuration once; when
// the config service is down the file's policy applies (asked again after RETRY_MS, not per
// request), and a copy once read keeps serving. A config layer this broker cannot use (its
// namespace schema should have refused it) is ignored as a whole, with a warning: a
// half-understood policy never applies.
import type { CachedConfig } from '../../platform/clients/config-cache';
import type { Logger } from '../../platform/logging/logger';
import { parseTenantPolicy, type TenantPolicy } from './model-catalogue';

export const AI_BROKER_NAMESPACE = 'ai_broker';

/** A tenant whose configuration could not be fetched is asked again after this long. */
const RETRY_MS = 5_000;

interface Layered {
  seq: number;
  policy: TenantPolicy;
}

export class TenantPolicies {
  private readonly asked = new Map<string, number>();
  private readonly layered = new Map<string, Layered>();

  constructor(
    private readonly file: Readonly<Record<string, TenantPolicy>>,
    private readonly config?: Pick<CachedConfig, 'peek' | 'refresh'>,
    private readonly logger: Pick<Logger, 'warn'> = { warn: () => {} },
    private readonly now: () => number = Date.now,
  ) {}

  /** Makes sure the tenant's configuration has been asked for (first use, or after a failure). */
  async load(tenantId: string): Promise<void> {
    if (!this.config || this.config.peek(tenantId)) return;
    const now = this.now();
    if (now - (this.asked.get(tenantId) ?? -Infinity) < RETRY_MS) return;
    if (this.asked.size > 100_000) this.asked.clear();
    this.asked.set(tenantId, now);
    await this.config.refresh(tenantId);
  }

  /** The policy in force now: the file's entry with the config service's members over it. */
  of(tenantId: string): TenantPolicy {
    const base = this.file[tenantId] ?? {};
    const view = this.config?.peek(tenantId);
    const raw = view?.config[AI_BROKER_NAMESPACE];
    if (!view || raw === undefined || raw === null) return base;
    const cached = this.layered.get(tenantId);
    if (cached && cached.seq === view.seq) return cached.policy;
    let policy: TenantPolicy = base;
    try {
      policy = { ...base, ...parseTenantPolicy(raw, `config ${AI_BROKER_NAMESPACE}`) };
    } catch (err) {
      this.logger.warn(
        { tenantId, seq: view.seq, err: (err as Error).message },
        'ai_broker configuration not usable; the catalogue file’s policy applies',
      );
    }
    this.layered.set(tenantId, { seq: view.seq, policy });
    return policy;
  }
}
