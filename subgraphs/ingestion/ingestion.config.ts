// The ingestion service's own settings, read once at build: auth mode, input limits, the PII
// secret tenants' keys derive from, the roots a `secret://file/` reference may point into, and
// where the schema registry is.
import os from 'node:os';
import { createHash } from 'node:crypto';
import { readInt, readOptional } from '../../platform/config/env';
import { serviceRequiresAuth, serviceUrl } from '../../platform/config/platform.config';
import type { Env } from '../../platform/service';
import type { IngestionLimits } from './pipeline.types';

export interface IngestionConfig {
  /** INGESTION_REQUIRE_AUTH, else REQUIRE_AUTH, else true. */
  requireAuth: boolean;
  limits: IngestionLimits;
  /** INGESTION_PII_SECRET; by default derived from the platform's JWT secret (set it in production). */
  piiSecret: string;
  /** INGESTION_SECRET_ROOTS (colon-separated): where `secret://file/` references may point. */
  secretRoots: string[];
  /** INGESTION_SPOOL_DIR: where sources are spooled while a batch runs (the system's temporary directory). */
  spoolDir: string;
  schemaRegistryUrl: string;
  /** INGESTION_DROP_ROOT: the file-drop root (`<root>/<tenant>/<pipeline name>/<file>`); unset, no file drop runs. */
  dropRoot?: string;
  /** INGESTION_DROP_STABLE_MS (2,000): how long a dropped file's size must stay unchanged before it is taken. */
  dropStableMs: number;
}

/** INGESTION_MAX_BYTES (1 GiB), INGESTION_MAX_RECORD_BYTES (1 MiB), INGESTION_MAX_COLUMNS (2,000). */
export function ingestionLimits(env: Env): IngestionLimits {
  return {
    maxBytes: readInt(env, 'INGESTION_MAX_BYTES', 1024 * 1024 * 1024, { min: 1 }),
    maxRecordBytes: readInt(env, 'INGESTION_MAX_RECORD_BYTES', 1024 * 1024, { min: 64 }),
    maxColumns: readInt(env, 'INGESTION_MAX_COLUMNS', 2000, { min: 1 }),
  };
}

export function loadIngestionConfig(env: Env, jwtSecret: string): IngestionConfig {
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'ingestion' }),
    limits: ingestionLimits(env),
    piiSecret:
      readOptional(env, 'INGESTION_PII_SECRET') ??
      createHash('sha256').update(`ingestion-pii:${jwtSecret}`).digest('hex'),
    secretRoots: (readOptional(env, 'INGESTION_SECRET_ROOTS') ?? '/run/secrets').split(':').filter(Boolean),
    spoolDir: readOptional(env, 'INGESTION_SPOOL_DIR') ?? os.tmpdir(),
    schemaRegistryUrl: serviceUrl(env, { name: 'schema-registry', port: 8084 }),
    dropRoot: readOptional(env, 'INGESTION_DROP_ROOT'),
    dropStableMs: readInt(env, 'INGESTION_DROP_STABLE_MS', 2000, { min: 50 }),
  };
}
