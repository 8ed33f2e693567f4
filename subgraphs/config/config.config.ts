// The config service's own settings, parsed once at build time: a bad value stops the service
// with a message naming the variable.
import crypto from 'node:crypto';
import path from 'node:path';
import { ConfigError, readInt, readOptional, readString } from '../../platform/config/env';
import { serviceRequiresAuth, serviceUrl } from '../../platform/config/platform.config';
import type { Env, ServiceManifest } from '../../platform/service';
import type { SecretRules } from './secret-reference';

export interface ConfigConfig {
  /** CONFIG_REQUIRE_AUTH, else REQUIRE_AUTH, else true: the platform's one rule. */
  requireAuth: boolean;
  /** CONFIG_SIGNING_KEY: PKCS8 PEM Ed25519 key promotions are signed with; absent, one is generated and kept in the database. */
  signingKeyPem?: string;
  /** CONFIG_SECRET_ENV_PREFIXES (comma-separated, default CONFIG_SECRET_) and CONFIG_SECRET_FILE_ROOTS (absolute, default /run/secrets). */
  secrets: SecretRules;
  /** CONFIG_ROLLOUT_POLL_MS: how often waiting rollouts ask the workflow for their approval (and scheduled ones come due). */
  rolloutPollMs: number;
  /** CONFIG_EFFECTIVE_BODY_CACHE: serialised `/effective` answers kept in memory (0 keeps none; default 1024). */
  effectiveBodyCache: number;
  schemaRegistryUrl: string;
  workflowUrl: string;
}

const SCHEMA_REGISTRY = { name: 'schema-registry', port: 8084 };
const WORKFLOW = { name: 'workflow', port: 8130 };

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function loadConfigConfig(env: Env, registry: readonly ServiceManifest[] = []): ConfigConfig {
  const pem = readOptional(env, 'CONFIG_SIGNING_KEY')?.replace(/\\n/g, '\n');
  if (pem !== undefined) {
    try {
      if (crypto.createPrivateKey(pem).asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 key');
    } catch (err) {
      throw new ConfigError(`CONFIG_SIGNING_KEY must be a PKCS8 PEM Ed25519 private key: ${(err as Error).message}`);
    }
  }
  const fileRoots = list(readString(env, 'CONFIG_SECRET_FILE_ROOTS', '/run/secrets'));
  for (const root of fileRoots)
    if (!path.isAbsolute(root) || path.normalize(root) === '/')
      throw new ConfigError('CONFIG_SECRET_FILE_ROOTS must list absolute directories other than /');
  const address = (fallback: { name: string; port: number }) =>
    registry.find((s) => s.name === fallback.name) ?? fallback;
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'config' }),
    signingKeyPem: pem,
    secrets: {
      envPrefixes: list(readString(env, 'CONFIG_SECRET_ENV_PREFIXES', 'CONFIG_SECRET_')),
      fileRoots: fileRoots.map((r) => path.normalize(r)),
    },
    rolloutPollMs: readInt(env, 'CONFIG_ROLLOUT_POLL_MS', 2000, { min: 10, max: 600_000 }),
    effectiveBodyCache: readInt(env, 'CONFIG_EFFECTIVE_BODY_CACHE', 1024, { min: 0, max: 1_000_000 }),
    schemaRegistryUrl: serviceUrl(env, address(SCHEMA_REGISTRY)),
    workflowUrl: serviceUrl(env, address(WORKFLOW)),
  };
}
