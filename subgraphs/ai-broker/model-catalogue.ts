// The model catalogue and tenant policies from a configuration file (ai-broker.defaults.json, or
// AI_BROKER_CONFIG_FILE; JSON or YAML), checked once at start: a bad file stops the service with
// a message naming the entry.
import fs from 'node:fs';
import YAML from 'yaml';
import { ConfigError } from '../../platform/config/env';
import { customPatternDetector, type CustomPattern } from '../../platform/redaction';
import type { ProviderName } from './providers/provider';

export interface ModelEntry {
  id: string;
  provider: ProviderName;
  /** The id the provider knows the model by (default: `id`). */
  providerModel: string;
  description: string;
  costPer1kTokens: number;
  contextWindow: number;
  tags: string[];
  /** The latency assumed until calls have been measured. */
  expectedLatencyMs: number;
}

export type RedactionMode = 'mask' | 'hash' | 'tokenize' | 'remove';
export const REDACTION_MODES: readonly RedactionMode[] = ['mask', 'hash', 'tokenize', 'remove'];

export interface TenantPolicy {
  /** Only models carrying every one of these tags (e.g. ["local"]: data never leaves the platform). */
  requiredTags?: string[];
  dailyTokenBudget?: number;
  requestsPerMinute?: number;
  customPatterns?: CustomPattern[];
  redactionMode?: RedactionMode;
}

export interface BrokerCatalogue {
  models: ModelEntry[];
  tenants: Record<string, TenantPolicy>;
}

const PROVIDERS: readonly ProviderName[] = ['anthropic', 'openai', 'local', 'extractive'];

function fail(where: string, what: string): never {
  throw new ConfigError(`AI broker configuration: ${where}: ${what}`);
}

function num(v: unknown, where: string, min = 0): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) fail(where, `must be a number >= ${min}`);
  return v;
}

function strings(v: unknown, where: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) fail(where, 'must be a list of strings');
  return v as string[];
}

export function parseCatalogue(raw: unknown): BrokerCatalogue {
  const doc = raw as { models?: unknown; tenants?: unknown };
  if (!Array.isArray(doc?.models) || doc.models.length === 0) fail('models', 'must be a non-empty list');
  const seen = new Set<string>();
  const models = doc.models.map((m: Record<string, unknown>, i: number): ModelEntry => {
    const where = `models[${i}]`;
    if (typeof m.id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/.test(m.id))
      fail(`${where}.id`, 'must be an id of letters, digits, . _ : -');
    if (seen.has(m.id)) fail(`${where}.id`, `${m.id} is listed twice`);
    seen.add(m.id);
    if (!PROVIDERS.includes(m.provider as ProviderName))
      fail(`${where}.provider`, `must be one of ${PROVIDERS.join(', ')}`);
    return {
      id: m.id,
      provider: m.provider as ProviderName,
      providerModel: typeof m.provider_model === 'string' ? m.provider_model : m.id,
      description: typeof m.description === 'string' ? m.description : '',
      costPer1kTokens: num(m.cost_per_1k_tokens, `${where}.cost_per_1k_tokens`),
      contextWindow: num(m.context_window, `${where}.context_window`, 1),
      tags: strings(m.tags, `${where}.tags`),
      expectedLatencyMs:
        m.expected_latency_ms === undefined ? 1000 : num(m.expected_latency_ms, `${where}.expected_latency_ms`),
    };
  });
  const tenants: Record<string, TenantPolicy> = {};
  for (const [tenant, p] of Object.entries((doc.tenants ?? {}) as Record<string, Record<string, unknown>>)) {
    tenants[tenant] = parseTenantPolicy(p, `tenants.${tenant}`);
  }
  return { models, tenants };
}

/**
 * One tenant's policy in the file's (and the config service's `ai_broker` namespace's) snake_case
 * shape. Only the members present are set, so a policy can be laid over another.
 */
export function parseTenantPolicy(raw: unknown, where: string): TenantPolicy {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(where, 'must be an object');
  const p = raw as Record<string, unknown>;
  const policy: TenantPolicy = {};
  if (p.required_tags !== undefined) policy.requiredTags = strings(p.required_tags, `${where}.required_tags`);
  if (p.daily_token_budget !== undefined)
    policy.dailyTokenBudget = num(p.daily_token_budget, `${where}.daily_token_budget`);
  if (p.requests_per_minute !== undefined)
    policy.requestsPerMinute = num(p.requests_per_minute, `${where}.requests_per_minute`, 1);
  if (p.custom_patterns !== undefined) {
    const patterns = p.custom_patterns as { category: string; pattern: string; ignore_case?: boolean }[];
    if (!Array.isArray(patterns)) fail(`${where}.custom_patterns`, 'must be a list');
    policy.customPatterns = patterns.map((c, i) => {
      const spec = { category: c?.category, pattern: c?.pattern, ignoreCase: c?.ignore_case === true };
      try {
        customPatternDetector(spec);
      } catch (err) {
        fail(`${where}.custom_patterns[${i}]`, (err as Error).message);
      }
      return spec;
    });
  }
  if (p.redaction_mode !== undefined) {
    if (!REDACTION_MODES.includes(p.redaction_mode as RedactionMode))
      fail(`${where}.redaction_mode`, `must be one of ${REDACTION_MODES.join(', ')}`);
    policy.redactionMode = p.redaction_mode as RedactionMode;
  }
  return policy;
}

export function loadCatalogue(file: string): BrokerCatalogue {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(`AI_BROKER_CONFIG_FILE: cannot read ${file}`);
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(file) ? YAML.parse(text) : JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`AI_BROKER_CONFIG_FILE: ${file} does not parse: ${(err as Error).message}`);
  }
  return parseCatalogue(raw);
}
