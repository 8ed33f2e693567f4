// Wires the AI broker from its dependencies: providers (keys read per call), health and routing,
// the redaction guard and token vault, templates, usage audit through the outbox, budgets and
// rate limits, the retrieval service and the schema registry.
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import type { CachedConfig } from '../../platform/clients/config-cache';
import type { Logger } from '../../platform/logging/logger';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { SchemaRegistryClient } from '../../platform/clients/schema-registry.client';
import type { Database } from '../../platform/db/database';
import { auditEvent, outboxWriter } from '../../platform/outbox/outbox.writer';
import type { Env } from '../../platform/service';
import type { AiBrokerConfig } from './ai-broker.config';
import { AiBrokerService } from './ai-broker.service';
import { AssistService } from './assist.service';
import { ModelExecutor } from './model-executor';
import { ModelHealth } from './model-health';
import { PiiGuard } from './pii-guard';
import { prismaPromptTemplateStore } from './prompt-template.store';
import { AnthropicProvider } from './providers/anthropic.provider';
import { ExtractiveProvider } from './providers/extractive.provider';
import { OpenAiProvider } from './providers/openai.provider';
import type { ProviderAdapter, ProviderName } from './providers/provider';
import { CredentialSource } from './providers/provider-credentials';
import { RetrievalSource } from './retrieval.source';
import { TenantLimits } from './tenant-limits';
import { TenantPolicies } from './tenant-policies';
import { prismaTokenVaultStore, TokenVault } from './token-vault.store';
import { groupedUsageAudit } from './ai-broker.audit';
import { prismaIdempotentReplyStore } from './idempotent-reply.store';
import { prismaUsageStore } from './usage.store';
import { WorkflowPackSchemaSource } from './workflow-pack.schema-source';

/** Audit groups written at once on PostgreSQL (4 measured worse than 2: smaller groups, more statements; docs/benchmarks.md, Speed pass). */
const AUDIT_GROUPS_IN_FLIGHT = 2;

export interface AiBrokerModule {
  broker: AiBrokerService;
  assist: AssistService;
  health: ModelHealth;
}

export function createProviders(env: Env): Record<ProviderName, ProviderAdapter> {
  return {
    anthropic: new AnthropicProvider(new CredentialSource(env, 'ANTHROPIC')),
    openai: new OpenAiProvider('openai', new CredentialSource(env, 'OPENAI')),
    local: new OpenAiProvider('local', new CredentialSource(env, 'LOCAL_LLM')),
    extractive: new ExtractiveProvider(),
  };
}

/** `identity`: the broker's own, for calls of callers without a token (service-identity.ts). */
export function createAiBrokerModule(deps: {
  db: Database;
  env: Env;
  config: AiBrokerConfig;
  schemas?: Pick<SchemaRegistryClient, 'get'>;
  identity?: DelegatedIdentity;
  /** The tenants' configuration (services/ai-broker.ts); absent: the catalogue file's policies only. */
  tenantConfig?: Pick<CachedConfig, 'peek' | 'refresh'>;
  logger?: Pick<Logger, 'warn'>;
}): AiBrokerModule {
  const { config, db } = deps;
  const policies = new TenantPolicies(config.catalogue.tenants, deps.tenantConfig, deps.logger);
  const adapters = createProviders(deps.env);
  const health = new ModelHealth(adapters, config.health);
  const vault = new TokenVault(config.vaultKey);
  const usage = prismaUsageStore(db.prisma);
  const outbox = outboxWriter(db.prisma, 'ai-broker');
  const access = new TenantAccess((a) =>
    outbox.append(
      auditEvent(a, {
        tenantId: a.tenantId,
        type: OPERATOR_ACCESS_EVENT,
        actor: a.operator,
        data: operatorAccessData(a),
      }),
    ),
  );
  const broker = new AiBrokerService({
    config,
    adapters,
    health,
    executor: new ModelExecutor(adapters, health, config.requestTimeoutMs),
    guard: new PiiGuard(
      { enabled: config.redactionEnabled, mode: config.redactionMode },
      vault,
      config.vaultKey,
      policies,
    ),
    policies,
    limits: new TenantLimits(usage, {
      requestsPerMinute: config.requestsPerMinute,
      dailyTokenBudget: config.dailyTokenBudget,
    }),
    templates: prismaPromptTemplateStore(db.prisma),
    tokens: prismaTokenVaultStore(db.prisma, vault),
    usage,
    audit: groupedUsageAudit(db.sql, { maxInFlight: db.kind === 'postgres' ? AUDIT_GROUPS_IN_FLIGHT : 1 }),
    retrieval: new RetrievalSource(config.ragUrl, config.ragTimeoutMs, deps.identity),
    access,
    replies: prismaIdempotentReplyStore(db.prisma),
  });
  const assist = new AssistService(
    broker,
    new WorkflowPackSchemaSource(deps.schemas ?? new SchemaRegistryClient(config.schemaRegistryUrl, deps.identity)),
  );
  return { broker, assist, health };
}
