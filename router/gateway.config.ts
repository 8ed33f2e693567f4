// Settings of the gateway process (REST gateway + federated router on :8080), parsed once at
// start with the kernel's env readers so a bad value stops the process with a clear message.
import path from 'node:path';
import { readBool, readEnum, readInt, readOptional, readString } from '../platform/config/env';
import { ConfigError } from '../platform/config/env';
import { serviceUrl } from '../platform/config/platform.config';
import { parseTrustedProxies, type TrustedProxies } from '../platform/http/trusted-proxies';
import type { Env, ServiceManifest } from '../platform/service';
import { PROJECT_ROOT } from '../platform/project-root';

export interface GatewayConfig {
  supergraphPath: string;
  /** Every service of the registry but the gateway: its URL from `<NAME>_URL` or its documented port. */
  backends: Record<string, string>;
  rateLimit: { perSecond: number; burst: number };
  /** Per client address, before authentication; perSecond 0 turns it off. */
  ipRateLimit: { perSecond: number; burst: number };
  /** TRUSTED_PROXIES: balancers whose X-Forwarded-For names the client; empty trusts nobody. */
  trustedProxies: TrustedProxies;
  corsOrigins: string[];
  upstreamTimeoutMs: number;
  breaker: { errorThresholdPercentage: number; volumeThreshold: number; resetTimeoutMs: number };
  graphql: { maxDepth: number; maxCost: number; defaultListSize: number; maxAliases: number; maxPageSize: number };
  /** GRAPHQL_EXPOSE_ERROR_DETAILS: masked errors carry their original message; ignored in production. */
  exposeErrorDetails: boolean;
  tokenVerification: 'local' | 'identity';
  tokenCache: { ttlMs: number; maxEntries: number };
  /** Debounce for supergraph.graphql reloads (editors write files in several steps). */
  reloadDebounceMs: number;
  maxUploadBytes: number;
  deduplicateQueries: boolean;
  /** Most subgraph answers kept by the Cache-Control-driven response cache; 0 turns it off. */
  responseCacheEntries: number;
  /** `SUBGRAPH_<NAME>_URL` overrides for subgraphs that are not platform backends (test fixtures). */
  subgraphUrls: Record<string, string>;
}

export function loadGatewayConfig(env: Env, registry: readonly ServiceManifest[]): GatewayConfig {
  const backends = Object.fromEntries(
    registry.filter((s) => s.name !== 'gateway').map((s) => [s.name, serviceUrl(env, s)]),
  );
  const origins = readOptional(env, 'CORS_ORIGINS');
  return {
    supergraphPath: path.resolve(PROJECT_ROOT, readString(env, 'SUPERGRAPH_PATH', 'supergraph.graphql')),
    backends,
    rateLimit: {
      perSecond: readInt(env, 'RATE_LIMIT_PER_SECOND', 100, { min: 1 }),
      burst: readInt(env, 'RATE_LIMIT_BURST', 200, { min: 1 }),
    },
    ipRateLimit: {
      perSecond: readInt(env, 'IP_RATE_LIMIT_PER_SECOND', 200, { min: 0 }),
      burst: readInt(env, 'IP_RATE_LIMIT_BURST', 400, { min: 1 }),
    },
    trustedProxies: readTrustedProxies(env),
    corsOrigins: origins
      ? origins
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean)
      : [],
    upstreamTimeoutMs: readInt(env, 'GATEWAY_UPSTREAM_TIMEOUT_MS', 30_000, { min: 1 }),
    breaker: {
      errorThresholdPercentage: readInt(env, 'BREAKER_ERROR_THRESHOLD_PERCENT', 50, { min: 1, max: 100 }),
      volumeThreshold: readInt(env, 'BREAKER_VOLUME_THRESHOLD', 5, { min: 1 }),
      resetTimeoutMs: readInt(env, 'BREAKER_RESET_TIMEOUT_MS', 10_000, { min: 1 }),
    },
    graphql: {
      maxDepth: readInt(env, 'GRAPHQL_MAX_DEPTH', 12, { min: 1 }),
      maxCost: readInt(env, 'GRAPHQL_MAX_COST', 5_000, { min: 1 }),
      defaultListSize: readInt(env, 'GRAPHQL_DEFAULT_LIST_SIZE', 10, { min: 1 }),
      maxAliases: readInt(env, 'GRAPHQL_MAX_ALIASES', 15, { min: 0 }),
      // The ledger serves at most 1000 events a page (identity 100): a larger page is a mistake.
      maxPageSize: readInt(env, 'GRAPHQL_MAX_PAGE_SIZE', 1000, { min: 1 }),
    },
    exposeErrorDetails: readBool(env, 'GRAPHQL_EXPOSE_ERROR_DETAILS', false),
    tokenVerification: readEnum(env, 'TOKEN_VERIFICATION', ['local', 'identity'] as const, 'local'),
    tokenCache: {
      ttlMs: readInt(env, 'TOKEN_CACHE_TTL_MS', 30_000, { min: 0 }),
      maxEntries: readInt(env, 'TOKEN_CACHE_SIZE', 10_000, { min: 1 }),
    },
    reloadDebounceMs: readInt(env, 'SUPERGRAPH_RELOAD_DEBOUNCE_MS', 200, { min: 0 }),
    deduplicateQueries: readBool(env, 'ROUTER_DEDUPLICATE_QUERIES', true),
    responseCacheEntries: readBool(env, 'ROUTER_RESPONSE_CACHE', true)
      ? readInt(env, 'ROUTER_RESPONSE_CACHE_SIZE', 10_000, { min: 1 })
      : 0,
    maxUploadBytes: readInt(env, 'GRAPHQL_MAX_UPLOAD_BYTES', 50 * 1024 * 1024, { min: 1 }),
    subgraphUrls: Object.fromEntries(
      Object.entries(env)
        .map(([k, v]) => [/^SUBGRAPH_(.+)_URL$/.exec(k)?.[1]?.toLowerCase(), v] as const)
        .filter((e): e is readonly [string, string] => Boolean(e[0] && e[1])),
    ),
  };
}

function readTrustedProxies(env: Env): TrustedProxies {
  try {
    return parseTrustedProxies(readOptional(env, 'TRUSTED_PROXIES'));
  } catch (err) {
    throw new ConfigError(
      `TRUSTED_PROXIES must be a comma list of IP addresses and CIDR ranges: ${(err as Error).message}`,
    );
  }
}

/** Subgraph name in supergraph.yaml -> the backend whose URL serves it. */
export function subgraphUrl(config: GatewayConfig, subgraph: string, fallback: string): string {
  const override = config.subgraphUrls[subgraph.toLowerCase()];
  if (override) return override;
  const backend = config.backends[subgraph];
  if (!backend) return fallback;
  return new URL('/graphql', backend).toString();
}
