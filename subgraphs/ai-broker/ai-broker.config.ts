// The AI broker's settings (spec 02's variables plus ours), parsed once at build time with the
// platform's env helpers: a bad value stops the service with a message naming the variable.
// Vendor keys and base URLs are NOT here: providers read them on every call (rotation).
import { createHash } from 'node:crypto';
import path from 'node:path';
import { ConfigError, readBool, readEnum, readInt, readOptional, readUrl } from '../../platform/config/env';
import { serviceRequiresAuth, serviceUrl } from '../../platform/config/platform.config';
import { PROJECT_ROOT } from '../../platform/project-root';
import type { Env, ServiceManifest } from '../../platform/service';
import { loadCatalogue, REDACTION_MODES, type BrokerCatalogue, type RedactionMode } from './model-catalogue';
import { ROUTING_STRATEGIES, type RoutingStrategy } from './model-router';
import type { HealthSettings } from './model-health';

export interface AiBrokerConfig {
  requireAuth: boolean;
  redactionEnabled: boolean;
  redactionMode: RedactionMode;
  defaultModel?: string;
  ragUrl: string;
  schemaRegistryUrl: string;
  catalogue: BrokerCatalogue;
  routing: RoutingStrategy;
  requestTimeoutMs: number;
  health: HealthSettings;
  defaultMaxTokens: number;
  maxMaxTokens: number;
  /** 0: no budget. */
  dailyTokenBudget: number;
  requestsPerMinute: number;
  /** Key of the PII vault (AES-256-GCM) and of keyed hashes; 32 bytes. */
  vaultKey: Buffer;
  ragTimeoutMs: number;
  /**
   * Where the tenants' `ai_broker` policies are read at run time (the config service), and how
   * often as a safety net beside `config.changed`; url undefined (AI_POLICIES_FROM_CONFIG=false):
   * the catalogue file's policies only.
   */
  tenantConfig: { url: string | undefined; refreshMs: number };
}

export const DEFAULT_CONFIG_FILE = path.join(PROJECT_ROOT, 'subgraphs/ai-broker/ai-broker.defaults.json');

export function loadAiBrokerConfig(
  env: Env,
  registry: readonly ServiceManifest[],
  platform: { jwtSecret: string },
): AiBrokerConfig {
  const catalogue = loadCatalogue(readOptional(env, 'AI_BROKER_CONFIG_FILE') ?? DEFAULT_CONFIG_FILE);
  const defaultModel = readOptional(env, 'DEFAULT_MODEL');
  if (defaultModel && !catalogue.models.some((m) => m.id === defaultModel))
    throw new ConfigError(`DEFAULT_MODEL: ${defaultModel} is not in the model catalogue`);
  const vaultKeyText = readOptional(env, 'PII_VAULT_KEY');
  const rag = registry.find((s) => s.name === 'rag') ?? { name: 'rag', port: 8138 };
  const schemaRegistry = registry.find((s) => s.name === 'schema-registry') ?? { name: 'schema-registry', port: 8084 };
  const configService = registry.find((s) => s.name === 'config') ?? { name: 'config', port: 8086 };
  return {
    tenantConfig: {
      url: readBool(env, 'AI_POLICIES_FROM_CONFIG', true) ? serviceUrl(env, configService) : undefined,
      refreshMs: readInt(env, 'AI_POLICY_REFRESH_SECONDS', 30, { min: 0 }) * 1000,
    },
    requireAuth: serviceRequiresAuth(env, { name: 'ai-broker' }),
    redactionEnabled: readBool(env, 'ENABLE_PII_REDACTION', true),
    redactionMode: readEnum(env, 'REDACTION_MODE', REDACTION_MODES, 'mask'),
    defaultModel,
    // Spec 02 names RAG_SERVICE_URL; the platform's own name for the service (rag) gives RAG_URL.
    ragUrl: readUrl(env, 'RAG_SERVICE_URL', ['http:', 'https:']) ?? serviceUrl(env, rag),
    schemaRegistryUrl: serviceUrl(env, schemaRegistry),
    catalogue,
    routing: readEnum(env, 'AI_ROUTING_STRATEGY', ROUTING_STRATEGIES, 'balanced'),
    requestTimeoutMs: readInt(env, 'AI_REQUEST_TIMEOUT_SECONDS', 60, { min: 1, max: 600 }) * 1000,
    health: {
      probeIntervalMs: readInt(env, 'AI_HEALTH_PROBE_SECONDS', 30, { min: 1 }) * 1000,
      probeTimeoutMs: readInt(env, 'AI_HEALTH_PROBE_TIMEOUT_SECONDS', 5, { min: 1 }) * 1000,
      maxBackoffMs: readInt(env, 'AI_HEALTH_MAX_BACKOFF_SECONDS', 300, { min: 1 }) * 1000,
      allowedFails: readInt(env, 'AI_ALLOWED_FAILS', 3, { min: 1 }),
      cooldownMs: readInt(env, 'AI_COOLDOWN_SECONDS', 30, { min: 0 }) * 1000,
      latencyWindow: 50,
    },
    defaultMaxTokens: readInt(env, 'AI_DEFAULT_MAX_TOKENS', 1024, { min: 1 }),
    maxMaxTokens: readInt(env, 'AI_MAX_TOKENS_LIMIT', 32_000, { min: 1 }),
    dailyTokenBudget: readInt(env, 'AI_TENANT_DAILY_TOKEN_BUDGET', 0, { min: 0 }),
    requestsPerMinute: readInt(env, 'AI_TENANT_REQUESTS_PER_MINUTE', 600, { min: 1 }),
    // Derived from the JWT secret when not set, so it is stable across restarts wherever that is.
    vaultKey: createHash('sha256')
      .update(vaultKeyText ?? `pii-vault:${platform.jwtSecret}`)
      .digest(),
    ragTimeoutMs: readInt(env, 'AI_RAG_TIMEOUT_MS', 3_000, { min: 100 }),
  };
}
