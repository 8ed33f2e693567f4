// Configuration shared by every service process, parsed once at start (one schema per concern).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DEFAULT_MFA_REQUIRED_ROLES, type MfaPolicy } from '../auth/mfa';
import { ConfigError, readBool, readEnum, readInt, readOptional, readPort, readString, readUrl } from './env';

export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface DatabaseConfig {
  /** PostgreSQL URL; when absent the embedded PGlite database in `pgliteDir` is used. */
  url?: string;
  pgliteDir: string;
  poolSize: number;
}

export interface AuthConfig {
  jwtSecret: string;
  /** True when JWT_SECRET_KEY was absent and a secret was generated for this process. */
  jwtSecretGenerated: boolean;
  algorithm: 'HS256';
  accessTokenExpireMinutes: number;
  refreshTokenExpireDays: number;
  /**
   * REQUIRE_AUTH as set, or true (the secure default) when unset. Services read their own mode
   * with serviceRequiresAuth, where `<SERVICE>_REQUIRE_AUTH` wins over this one.
   */
  requireAuth: boolean;
  /**
   * IDENTITY_MFA_REQUIRED_ROLES (comma-separated; `none` for nobody): the roles that must sign in
   * with a second factor (identity's default for tenants without their own policy) and that need
   * one for sensitive actions in every service. Default admin, reviewer, platform-admin; none
   * under NODE_ENV=test, where suites sign in with passwords (docs/identity.md).
   */
  mfa: MfaPolicy;
  /** Where asymmetric (OIDC) access tokens come from and how their keys are found (docs/router.md). */
  oidc: OidcVerification;
}

export interface OidcVerification {
  /**
   * IDENTITY_OIDC_ISSUER: the provider's issuer URL; default identity's own URL + `/oidc`, where the
   * provider answers (the gateway does not proxy `/oidc`: its routes are authenticated REST).
   */
  issuer: string;
  /** IDENTITY_JWKS_URL: the provider's key set; default identity's URL + `/oidc/jwks`. */
  jwksUrl: string;
  /** IDENTITY_JWKS_CACHE_SECONDS: how long a fetched key set is trusted before it is fetched again. */
  jwksCacheSeconds: number;
}

export interface HttpConfig {
  host: string;
  bodyLimitBytes: number;
  /** Deepest JSON nesting accepted in a body (objects and arrays; the top level is 1). */
  jsonMaxDepth: number;
  /** Longest JSON string (keys included) accepted in a body, in characters. */
  jsonMaxStringLength: number;
  /** Longest request target (path and query) accepted; 414 above it. */
  maxUrlLength: number;
  /** Node's limit on the request line plus headers; 431 (or 414 for a long URL) above it. */
  maxHeaderBytes: number;
  /** How long a graceful shutdown waits for in-flight requests before closing sockets. */
  shutdownGraceMs: number;
}

/** The live event stream on NATS JetStream (platform/events/nats-event-bus.ts). */
export interface StreamConfig {
  /** `file` survives a NATS restart; `memory` does not. */
  storage: 'file' | 'memory';
  /** Oldest messages are discarded past these limits (discard policy `old`): the stream only wakes subscribers, who read the database. */
  maxBytes: number;
  maxMsgs: number;
  maxAgeSeconds: number;
}

export interface PlatformConfig {
  env: 'development' | 'production' | 'test';
  /**
   * PLATFORM_NAMESPACE: prefixes the NATS stream and subjects and every Redis key, so two
   * deployments can share one NATS and one Redis. Empty (the default) keeps the historical names.
   */
  namespace: string;
  logLevel: LogLevel;
  database: DatabaseConfig;
  auth: AuthConfig;
  http: HttpConfig;
  redisUrl?: string;
  natsUrl?: string;
  stream: StreamConfig;
}

type Env = Record<string, string | undefined>;

export function loadPlatformConfig(env: Env = process.env): PlatformConfig {
  const nodeEnv = readEnum(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const secret = readOptional(env, 'JWT_SECRET_KEY');
  if (secret !== undefined && Buffer.byteLength(secret) < 32) {
    throw new ConfigError('JWT_SECRET_KEY must be at least 32 bytes for HS256');
  }
  const algorithm = readString(env, 'ALGORITHM', 'HS256');
  if (algorithm !== 'HS256') throw new ConfigError(`ALGORITHM must be HS256, got "${algorithm}"`);

  const namespace = readString(env, 'PLATFORM_NAMESPACE', '');
  if (namespace !== '' && !/^[a-z0-9][a-z0-9_-]{0,31}$/.test(namespace)) {
    throw new ConfigError(
      `PLATFORM_NAMESPACE must be 1-32 characters of a-z, 0-9, '-' or '_' (starting with a letter or digit), got "${namespace}"`,
    );
  }
  const pgliteDir = readString(env, 'PGLITE_DIR', '.data/pglite');

  return {
    env: nodeEnv,
    namespace,
    logLevel: readEnum(env, 'LOG_LEVEL', LOG_LEVELS, 'INFO'),
    database: {
      // POSTGRES_URL is the ledger's name for the same setting (spec 03).
      url:
        readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']) ??
        readUrl(env, 'POSTGRES_URL', ['postgres:', 'postgresql:']),
      // `memory://` is PGlite's throwaway in-memory database, not a folder.
      pgliteDir: pgliteDir.startsWith('memory://') ? pgliteDir : path.resolve(pgliteDir),
      poolSize: readInt(env, 'DATABASE_POOL_SIZE', 10, { min: 1, max: 200 }),
    },
    auth: {
      jwtSecret: secret ?? randomBytes(48).toString('base64url'),
      jwtSecretGenerated: secret === undefined,
      algorithm: 'HS256',
      accessTokenExpireMinutes: readInt(env, 'ACCESS_TOKEN_EXPIRE_MINUTES', 1440, { min: 1 }),
      refreshTokenExpireDays: readInt(env, 'REFRESH_TOKEN_EXPIRE_DAYS', 7, { min: 1 }),
      requireAuth: readBool(env, 'REQUIRE_AUTH', true),
      mfa: { requiredRoles: readMfaRoles(env, nodeEnv === 'test' ? [] : DEFAULT_MFA_REQUIRED_ROLES) },
      oidc: {
        issuer:
          readUrl(env, 'IDENTITY_OIDC_ISSUER', ['http:', 'https:']) ??
          `${serviceUrl(env, { name: 'identity', port: 8082 })}/oidc`,
        jwksUrl:
          readUrl(env, 'IDENTITY_JWKS_URL', ['http:', 'https:']) ??
          `${serviceUrl(env, { name: 'identity', port: 8082 })}/oidc/jwks`,
        jwksCacheSeconds: readInt(env, 'IDENTITY_JWKS_CACHE_SECONDS', 300, { min: 0, max: 86_400 }),
      },
    },
    http: {
      host: readString(env, 'HOST', '127.0.0.1'),
      bodyLimitBytes: readInt(env, 'BODY_LIMIT_BYTES', 1024 * 1024, { min: 1024 }),
      // Capped: recursive code after the guard (canonical JSON, the database's json parser) must
      // stay far from its stack limits.
      jsonMaxDepth: readInt(env, 'JSON_MAX_DEPTH', 64, { min: 1, max: 1000 }),
      jsonMaxStringLength: readInt(env, 'JSON_MAX_STRING_LENGTH', 1_000_000, { min: 1 }),
      maxUrlLength: readInt(env, 'HTTP_MAX_URL_LENGTH', 8192, { min: 256 }),
      maxHeaderBytes: readInt(env, 'HTTP_MAX_HEADER_BYTES', 16384, { min: 1024 }),
      shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 10_000, { min: 0 }),
    },
    redisUrl: readUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    natsUrl: readUrl(env, 'NATS_URL', ['nats:', 'tls:']),
    stream: {
      storage: readEnum(env, 'NATS_STREAM_STORAGE', ['file', 'memory'] as const, 'file'),
      // 1 GiB and 5 million notices (about 40 minutes at 2,000 appends/s) by default; a day at most.
      maxBytes: readInt(env, 'NATS_STREAM_MAX_BYTES', 1024 * 1024 * 1024, { min: 1024 }),
      maxMsgs: readInt(env, 'NATS_STREAM_MAX_MSGS', 5_000_000, { min: 1 }),
      maxAgeSeconds: readInt(env, 'NATS_STREAM_MAX_AGE_SECONDS', 24 * 3600, { min: 1 }),
    },
  };
}

const ROLE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/;

function readMfaRoles(env: Env, fallback: readonly string[]): string[] {
  const raw = readOptional(env, 'IDENTITY_MFA_REQUIRED_ROLES');
  if (raw === undefined) return [...fallback];
  if (raw.trim().toLowerCase() === 'none') return [];
  const roles = raw
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  const bad = roles.find((r) => !ROLE_NAME.test(r));
  if (bad !== undefined) throw new ConfigError(`IDENTITY_MFA_REQUIRED_ROLES: "${bad}" is not a role name`);
  return [...new Set(roles)];
}

/** A service's name and documented port, as its manifest declares them (platform/service.ts). */
export interface ServiceAddress {
  name: string;
  port: number;
}

function envPrefix(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
}

/** `<SERVICE>_PORT` overrides the documented port; `PORT` applies to a service started alone. */
export function servicePort(env: Env, service: ServiceAddress, alone = false): number {
  const specific = `${envPrefix(service.name)}_PORT`;
  if (alone && readOptional(env, specific) === undefined) return readPort(env, 'PORT', service.port);
  return readPort(env, specific, service.port);
}

/**
 * Whether a service's ports demand a bearer token: the one rule for every service.
 * `<SERVICE>_REQUIRE_AUTH` (e.g. LEDGER_REQUIRE_AUTH, AI_BROKER_REQUIRE_AUTH) wins either way when
 * set; else REQUIRE_AUTH when set; else true. So REQUIRE_AUTH=false alone gives the spec's
 * trust-the-gateway mode (the caller's tenant is the gateway's X-Tenant-ID) on every port, and
 * REQUIRE_AUTH=false LEDGER_REQUIRE_AUTH=true keeps the ledger strict. With nothing set, a token
 * is required: a port reachable from outside the gateway must not trust a header anyone can set.
 */
export function serviceRequiresAuth(env: Env, service: Pick<ServiceAddress, 'name'>): boolean {
  const own = `${envPrefix(service.name)}_REQUIRE_AUTH`;
  if (readOptional(env, own) !== undefined) return readBool(env, own, true);
  return readBool(env, 'REQUIRE_AUTH', true);
}

/** Where clients find a service: `<SERVICE>_URL`, or its port on this host. */
export function serviceUrl(env: Env, service: ServiceAddress): string {
  return (
    readUrl(env, `${envPrefix(service.name)}_URL`, ['http:', 'https:']) ??
    `http://127.0.0.1:${servicePort(env, service)}`
  );
}

/** The NATS stream and subject prefix of a namespace (the historical names without one). */
export function streamNames(namespace: string): { stream: string; subjectPrefix: string } {
  if (!namespace) return { stream: 'PLATFORM_EVENTS', subjectPrefix: 'platform.' };
  // Stream names allow no '.', '*', '>' or spaces; the namespace's characters are all safe.
  return {
    stream: `PLATFORM_EVENTS_${namespace.toUpperCase().replace(/-/g, '_')}`,
    subjectPrefix: `${namespace}.platform.`,
  };
}

/** The prefix of every Redis key of a namespace ('' without one: the historical keys). */
export function redisKeyPrefix(namespace: string): string {
  return namespace ? `${namespace}:` : '';
}
