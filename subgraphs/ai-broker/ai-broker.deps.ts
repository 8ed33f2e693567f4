// What the AI broker is built from (wired in ai-broker.module.ts). Each part of the broker takes
// only the slice of these it uses, so a unit test can hand it strict fakes of exactly that slice.
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { AiBrokerConfig } from './ai-broker.config';
import type { InferenceResult } from './ai-broker.types';
import type { IdempotentReplyStore } from './idempotent-reply.store';
import type { ModelExecutor } from './model-executor';
import type { ModelHealth } from './model-health';
import type { PiiGuard } from './pii-guard';
import type { PromptTemplateStore } from './prompt-template.store';
import type { ProviderAdapter, ProviderName } from './providers/provider';
import type { RetrievalSource } from './retrieval.source';
import type { TenantLimits } from './tenant-limits';
import type { TenantPolicies } from './tenant-policies';
import type { TokenVaultStore } from './token-vault.store';
import type { UsageAudit } from './ai-broker.audit';
import type { UsageStore } from './usage.store';

export interface AiBrokerDeps {
  config: AiBrokerConfig;
  adapters: Record<ProviderName, ProviderAdapter>;
  health: ModelHealth;
  executor: ModelExecutor;
  guard: PiiGuard;
  limits: TenantLimits;
  /** The tenants' policies: the catalogue file's under the config service's (tenant-policies.ts). */
  policies: Pick<TenantPolicies, 'load' | 'of'>;
  templates: PromptTemplateStore;
  tokens: TokenVaultStore;
  usage: Pick<UsageStore, 'summary'>;
  audit: UsageAudit;
  retrieval: RetrievalSource;
  access: TenantAccess;
  replies: IdempotentReplyStore<InferenceResult>;
}
