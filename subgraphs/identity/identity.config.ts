// Identity's own settings, parsed once at build time with the platform's env helpers so a bad
// value stops the service with a message naming the variable. Shared settings (JWT secret,
// token lifetimes) stay in PlatformConfig.
import { createHash } from 'node:crypto';
import { ConfigError, readBool, readInt, readOptional, readString } from '../../platform/config/env';
import type { Env } from '../../platform/service';
import { DEFAULT_THROTTLE, type ThrottleSettings } from './login.throttle';
import { loadWebauthnConfig, type WebauthnSettings } from './webauthn.config';

export interface DevUser {
  username: string;
  password: string;
}

export interface IdentityConfig {
  /** Create the built-in roles, tenant `default` and the two development users at start. */
  seedDevUsers: boolean;
  devAdmin: DevUser;
  devUser: DevUser;
  /** scrypt cost as log2(N); 15 (N=32768, r=8, p=1, 32 MiB) costs about 95 ms here. */
  scryptLogN: number;
  /** Bounded cache of verified access tokens (entries); 0 disables it. */
  verifyCacheSize: number;
  /**
   * Seconds other subgraphs' callers (through the router) may reuse a User/Tenant entity answer:
   * the `_entities` response carries `Cache-Control: max-age=N, private`. 0 disables it.
   */
  entityMaxAgeSeconds: number;
  /** Page size limit of user listings. */
  maxPageSize: number;
  /**
   * The platform operator (role `platform-admin`) created at first start from
   * PLATFORM_ADMIN_USERNAME / PLATFORM_ADMIN_PASSWORD, in its own tenant (PLATFORM_ADMIN_TENANT,
   * default `platform`). None when unset: no seeded user crosses tenants.
   */
  platformAdmin?: DevUser & { tenantId: string };
  /** Login backoff per tenant and username (LOGIN_MAX_FAILURES in LOGIN_FAILURE_WINDOW_SECONDS). */
  loginThrottle: ThrottleSettings;
  mfa: MfaSettings;
  webauthn: WebauthnSettings;
}

export interface MfaSettings {
  /**
   * 32 bytes sealing TOTP secrets (AES-256-GCM) and keying recovery-code hashes: SHA-256 of
   * IDENTITY_MFA_KEY, or of the JWT secret when unset (as the AI broker's PII vault). Changing it
   * makes every enrolled factor unusable (users enrol again after an admin reset).
   */
  key: Buffer;
  /** True when derived from the JWT secret rather than set. */
  keyDerived: boolean;
  /** The issuer authenticator apps show (IDENTITY_TOTP_ISSUER). */
  issuer: string;
  /** Seconds a sign-in challenge may be answered (IDENTITY_MFA_CHALLENGE_SECONDS). */
  challengeSeconds: number;
  /** Wrong codes one challenge takes before the password must be given again. */
  maxAttempts: number;
}

/** Documented defaults for development only (docs/identity.md); override them anywhere shared. */
export const DEV_DEFAULTS = {
  admin: { username: 'admin', password: 'admin-dev-password' },
  user: { username: 'user', password: 'user-dev-password' },
} as const;

export function loadIdentityConfig(env: Env, jwtSecret = ''): IdentityConfig {
  const production = env.NODE_ENV === 'production';
  const mfaKey = readOptional(env, 'IDENTITY_MFA_KEY');
  if (mfaKey !== undefined && Buffer.byteLength(mfaKey) < 32)
    throw new ConfigError('IDENTITY_MFA_KEY must be at least 32 bytes');
  const config: IdentityConfig = {
    // Development users with well-known passwords must be asked for explicitly in production.
    seedDevUsers: readBool(env, 'IDENTITY_SEED_DEV_USERS', !production),
    devAdmin: {
      username: readString(env, 'DEV_ADMIN_USERNAME', DEV_DEFAULTS.admin.username),
      password: readString(env, 'DEV_ADMIN_PASSWORD', DEV_DEFAULTS.admin.password),
    },
    devUser: {
      username: readString(env, 'DEV_USER_USERNAME', DEV_DEFAULTS.user.username),
      password: readString(env, 'DEV_USER_PASSWORD', DEV_DEFAULTS.user.password),
    },
    scryptLogN: readInt(env, 'PASSWORD_SCRYPT_LOG_N', 15, { min: 10, max: 20 }),
    verifyCacheSize: readInt(env, 'IDENTITY_VERIFY_CACHE_SIZE', 10_000, { min: 0, max: 1_000_000 }),
    entityMaxAgeSeconds: readInt(env, 'IDENTITY_ENTITY_MAX_AGE_SECONDS', 5, { min: 0, max: 300 }),
    maxPageSize: 100,
    loginThrottle: {
      allowed: readInt(env, 'LOGIN_MAX_FAILURES', DEFAULT_THROTTLE.allowed, { min: 1, max: 1000 }),
      windowMs: readInt(env, 'LOGIN_FAILURE_WINDOW_SECONDS', DEFAULT_THROTTLE.windowMs / 1000, { min: 1 }) * 1000,
      baseLockMs: DEFAULT_THROTTLE.baseLockMs,
      maxLockMs: readInt(env, 'LOGIN_MAX_LOCK_SECONDS', DEFAULT_THROTTLE.maxLockMs / 1000, { min: 1 }) * 1000,
    },
    mfa: {
      key: createHash('sha256')
        .update(mfaKey ?? `identity-mfa:${jwtSecret}`)
        .digest(),
      keyDerived: mfaKey === undefined,
      issuer: readString(env, 'IDENTITY_TOTP_ISSUER', 'Regulated Platform'),
      challengeSeconds: readInt(env, 'IDENTITY_MFA_CHALLENGE_SECONDS', 300, { min: 30, max: 3600 }),
      maxAttempts: 5,
    },
    webauthn: loadWebauthnConfig(env, readString(env, 'IDENTITY_TOTP_ISSUER', 'Regulated Platform')),
  };
  const operator = readOptional(env, 'PLATFORM_ADMIN_USERNAME');
  const operatorPassword = readOptional(env, 'PLATFORM_ADMIN_PASSWORD');
  if ((operator === undefined) !== (operatorPassword === undefined)) {
    throw new ConfigError('PLATFORM_ADMIN_USERNAME and PLATFORM_ADMIN_PASSWORD go together');
  }
  if (operator !== undefined && operatorPassword !== undefined) {
    if (operatorPassword.length < 12) throw new ConfigError('PLATFORM_ADMIN_PASSWORD must be at least 12 characters');
    config.platformAdmin = {
      username: operator,
      password: operatorPassword,
      tenantId: readString(env, 'PLATFORM_ADMIN_TENANT', 'platform'),
    };
  }
  if (config.devAdmin.username === config.devUser.username) {
    throw new ConfigError('DEV_ADMIN_USERNAME and DEV_USER_USERNAME must differ');
  }
  return config;
}
