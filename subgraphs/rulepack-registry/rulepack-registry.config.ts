// The registry's own settings, parsed once at build time: a bad value stops the service with a
// message naming the variable.
import { ConfigError, readOptional } from '../../platform/config/env';
import type { Env } from '../../platform/service';
import { parseSigningKeyPem } from './pack-signature';

export interface RulePackRegistryConfig {
  /** RULEPACK_SIGNING_KEY: a PKCS8 PEM Ed25519 private key; absent, a key is generated and kept in the database. */
  signingKeyPem?: string;
}

export function loadRulePackRegistryConfig(env: Env): RulePackRegistryConfig {
  // Environments often carry PEM on one line with literal \n.
  const pem = readOptional(env, 'RULEPACK_SIGNING_KEY')?.replace(/\\n/g, '\n');
  if (pem !== undefined) {
    try {
      parseSigningKeyPem(pem);
    } catch (err) {
      throw new ConfigError(`RULEPACK_SIGNING_KEY must be a PKCS8 PEM Ed25519 private key: ${(err as Error).message}`);
    }
  }
  return { signingKeyPem: pem };
}
