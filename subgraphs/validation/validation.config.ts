// The validation service's own settings, parsed once at build time with the platform's env
// helpers, so a bad value stops the service with a message naming the variable.
import { readInt } from '../../platform/config/env';
import { serviceRequiresAuth, serviceUrl } from '../../platform/config/platform.config';
import type { Env, ServiceManifest } from '../../platform/service';

export interface ValidationConfig {
  /** Largest /validate request body in bytes (VALIDATION_MAX_PAYLOAD_BYTES); 413 above it. */
  maxPayloadBytes: number;
  /** Most records one run evaluates (rows of a CSV, elements of a JSON array...); 422 above it. */
  maxRecords: number;
  /** Compiled certified packs kept in memory, by (pack_id, version). */
  packCacheSize: number;
  /** How long a cached pack (and the registry's key set) is trusted without asking again. */
  packCacheTtlMs: number;
  /** A token is required on every route (VALIDATION_REQUIRE_AUTH, else REQUIRE_AUTH, else true: serviceRequiresAuth). */
  requireAuth: boolean;
  rulepackRegistryUrl: string;
  schemaRegistryUrl: string;
}

/** Documented ports of the registries (spec 01 names); the registry's manifest wins when it lists them. */
const RULEPACK_REGISTRY = { name: 'rulepack-registry', port: 8091 };
const SCHEMA_REGISTRY = { name: 'schema-registry', port: 8084 };

function addressOf(
  registry: readonly ServiceManifest[],
  fallback: { name: string; port: number },
): { name: string; port: number } {
  return registry.find((s) => s.name === fallback.name) ?? fallback;
}

export function loadValidationConfig(env: Env, registry: readonly ServiceManifest[]): ValidationConfig {
  return {
    maxPayloadBytes: readInt(env, 'VALIDATION_MAX_PAYLOAD_BYTES', 5 * 1024 * 1024, {
      min: 1024,
      max: 512 * 1024 * 1024,
    }),
    maxRecords: readInt(env, 'VALIDATION_MAX_RECORDS', 100_000, { min: 1 }),
    packCacheSize: readInt(env, 'VALIDATION_PACK_CACHE_SIZE', 256, { min: 0 }),
    packCacheTtlMs: readInt(env, 'VALIDATION_PACK_CACHE_TTL_SECONDS', 300, { min: 0 }) * 1000,
    requireAuth: serviceRequiresAuth(env, { name: 'validation' }),
    rulepackRegistryUrl: serviceUrl(env, addressOf(registry, RULEPACK_REGISTRY)),
    schemaRegistryUrl: serviceUrl(env, addressOf(registry, SCHEMA_REGISTRY)),
  };
}
