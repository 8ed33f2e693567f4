// The OIDC provider's settings (docs/identity.md, OIDC). The issuer and the JWKS location are
// platform settings (every verifier needs them: platform/config auth.oidc); these are identity's own.
import { createHmac } from 'node:crypto';
import { readEnum, readInt } from '../../../platform/config/env';
import type { Env } from '../../../platform/service';
import { loadConsoleRedirectUris } from './console-client';
import { ASYMMETRIC_ALGORITHMS, type AsymmetricAlgorithm } from '../../../platform/auth/asymmetric-tokens';

/** Where the provider is mounted in identity's app (and, through the gateway, in the issuer). */
export const OIDC_MOUNT_PATH = '/oidc';

export interface OidcConfig {
  issuer: string;
  /** IDENTITY_OIDC_KEY_ALG: the algorithm of new signing keys (EdDSA: Ed25519, or RS256). */
  keyAlg: AsymmetricAlgorithm;
  /** IDENTITY_OIDC_KEY_PUBLISH_SECONDS: how long a new key is published before it signs. */
  keyPublishSeconds: number;
  /** IDENTITY_OIDC_KEY_RELOAD_SECONDS: how often a process rereads the key table (other processes' rotations). */
  keyReloadSeconds: number;
  /** IDENTITY_OIDC_ACCESS_TOKEN_SECONDS (and ID tokens). */
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  /** The console's redirect URIs (console-client.ts); empty: no console client. */
  consoleRedirectUris: string[];
  /** IDENTITY_OIDC_PURGE_SECONDS: how often expired oidc_payloads rows are deleted (0: never). */
  purgeSeconds: number;
  /** Keys signing the provider's cookies, derived from the MFA key (so every process agrees). */
  cookieKeys: string[];
}

export function loadOidcConfig(env: Env, issuer: string, secretKey: Buffer, refreshTokenDays: number): OidcConfig {
  return {
    issuer,
    keyAlg: readEnum(env, 'IDENTITY_OIDC_KEY_ALG', ASYMMETRIC_ALGORITHMS, 'EdDSA'),
    keyPublishSeconds: readInt(env, 'IDENTITY_OIDC_KEY_PUBLISH_SECONDS', 600, { min: 0, max: 7 * 86_400 }),
    keyReloadSeconds: readInt(env, 'IDENTITY_OIDC_KEY_RELOAD_SECONDS', 30, { min: 1, max: 3600 }),
    accessTokenSeconds: readInt(env, 'IDENTITY_OIDC_ACCESS_TOKEN_SECONDS', 3600, { min: 60, max: 86_400 }),
    refreshTokenSeconds: refreshTokenDays * 86_400,
    consoleRedirectUris: loadConsoleRedirectUris(env),
    purgeSeconds: readInt(env, 'IDENTITY_OIDC_PURGE_SECONDS', 600, { min: 0, max: 86_400 }),
    cookieKeys: [createHmac('sha256', secretKey).update('identity-oidc:cookies').digest('base64url')],
  };
}
