// The ingestion service's own settings, read once at build: auth mode, input limits, the PII
// secret tenants' keys derive from, the roots a `secret://file/` reference may point into, and
// where the schema registry and the workflow service are.
import os from 'node:os';
import { createHash } from 'node:crypto';
import { readBool, readInt, readOptional } from '../../platform/config/env';
import { serviceRequiresAuth, serviceUrl } from '../../platform/config/platform.config';
import type { Env } from '../../platform/service';
import type { PullGuard } from './guarded-http';
import { DEFAULT_MAX_ROW_GROUP_BYTES } from './parquet-reader';
import type { IngestionLimits } from './pipeline.types';
import { DEFAULT_MAX_SHARED_STRINGS_BYTES } from './xlsx-reader';
import { DEFAULT_ARCHIVE_LIMITS } from './zip-archive';

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
  /** Where source schema changes are sent for a person's approval (WORKFLOW_URL, else port 8130 here). */
  workflowUrl: string;
  /** INGESTION_DROP_ROOT: the file-drop root (`<root>/<tenant>/<pipeline name>/<file>`); unset, no file drop runs. */
  dropRoot?: string;
  /** INGESTION_DROP_STABLE_MS (2,000): how long a dropped file's size must stay unchanged before it is taken. */
  dropStableMs: number;
  /**
   * NODE_ENV=test only: INGESTION_TEST_STALL_AFTER_CHUNKS and INGESTION_TEST_STALL_UNTIL_FILE hold
   * a batch after that many committed chunks until the file exists, so a crash test can kill the
   * process at a point it chose instead of racing the batch (test/e2e/ingestion/ingestion-kill).
   */
  testStall?: { afterChunks: number; untilFile: string };
  /** The pull connectors' guard: INGESTION_PULL_ALLOWED_HOSTS (comma-separated, `*.suffix` allowed;
   * empty: any public host), INGESTION_PULL_ALLOW_PRIVATE (false), INGESTION_PULL_TIMEOUT_MS (30,000). */
  pullGuard: PullGuard;
  /**
   * INGESTION_CSV_VIA_COPY (true): on PostgreSQL a plain CSV batch is staged whole into a table of
   * its own by one COPY in one transaction (batch-table.store.ts); false keeps every batch on the
   * per-record path (chunked commits with progress per chunk).
   */
  csvViaCopy: boolean;
  /** INGESTION_SCHEDULER_TICK_MS (5,000): how often the scheduler looks for due pulls; 0 turns it off. */
  schedulerTickMs: number;
  /**
   * INGESTION_CDC_FLUSH_MS (200): how long replicated changes wait to fill a batch. It bounds the
   * replication lag (issue 32: p99 0.75-0.81 s at 1,000 changes/s with 200, 1.2-1.7 s with 500, on a
   * loaded machine); each batch is a manifest in the ledger and an `ingestion.completed`.
   */
  cdcFlushMs: number;
  /** INGESTION_CDC_HEARTBEAT_MS (10,000): how often a quiet replication stream acknowledges the server's position. */
  cdcHeartbeatMs: number;
}

/**
 * INGESTION_MAX_BYTES (1 GiB), INGESTION_MAX_RECORD_BYTES (1 MiB), INGESTION_MAX_COLUMNS (2,000);
 * for ZIP containers (XLSX) INGESTION_MAX_ARCHIVE_ENTRIES (10,000), INGESTION_MAX_INFLATED_BYTES
 * (1 GiB an entry), INGESTION_MAX_INFLATE_RATIO (100) and INGESTION_XLSX_MAX_SHARED_STRINGS_BYTES (64 MiB);
 * for Parquet INGESTION_PARQUET_MAX_ROW_GROUP_BYTES (256 MiB).
 */
export function ingestionLimits(env: Env): IngestionLimits {
  return {
    maxBytes: readInt(env, 'INGESTION_MAX_BYTES', 1024 * 1024 * 1024, { min: 1 }),
    maxRecordBytes: readInt(env, 'INGESTION_MAX_RECORD_BYTES', 1024 * 1024, { min: 64 }),
    maxColumns: readInt(env, 'INGESTION_MAX_COLUMNS', 2000, { min: 1 }),
    archive: {
      maxEntries: readInt(env, 'INGESTION_MAX_ARCHIVE_ENTRIES', DEFAULT_ARCHIVE_LIMITS.maxEntries, { min: 1 }),
      maxEntryBytes: readInt(env, 'INGESTION_MAX_INFLATED_BYTES', DEFAULT_ARCHIVE_LIMITS.maxEntryBytes, { min: 1 }),
      maxRatio: readInt(env, 'INGESTION_MAX_INFLATE_RATIO', DEFAULT_ARCHIVE_LIMITS.maxRatio, { min: 1 }),
    },
    maxSharedStringsBytes: readInt(env, 'INGESTION_XLSX_MAX_SHARED_STRINGS_BYTES', DEFAULT_MAX_SHARED_STRINGS_BYTES, {
      min: 1,
    }),
    maxRowGroupBytes: readInt(env, 'INGESTION_PARQUET_MAX_ROW_GROUP_BYTES', DEFAULT_MAX_ROW_GROUP_BYTES, { min: 1 }),
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
    workflowUrl: serviceUrl(env, { name: 'workflow', port: 8130 }),
    dropRoot: readOptional(env, 'INGESTION_DROP_ROOT'),
    dropStableMs: readInt(env, 'INGESTION_DROP_STABLE_MS', 2000, { min: 50 }),
    testStall: testStall(env),
    pullGuard: {
      allowedHosts: (readOptional(env, 'INGESTION_PULL_ALLOWED_HOSTS') ?? '')
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
      allowPrivate: readBool(env, 'INGESTION_PULL_ALLOW_PRIVATE', false),
      timeoutMs: readInt(env, 'INGESTION_PULL_TIMEOUT_MS', 30_000, { min: 100 }),
    },
    csvViaCopy: readBool(env, 'INGESTION_CSV_VIA_COPY', true),
    schedulerTickMs: readInt(env, 'INGESTION_SCHEDULER_TICK_MS', 5000, { min: 0 }),
    cdcFlushMs: readInt(env, 'INGESTION_CDC_FLUSH_MS', 200, { min: 10 }),
    cdcHeartbeatMs: readInt(env, 'INGESTION_CDC_HEARTBEAT_MS', 10_000, { min: 100 }),
  };
}

function testStall(env: Env): IngestionConfig['testStall'] {
  const untilFile = readOptional(env, 'INGESTION_TEST_STALL_UNTIL_FILE');
  if (env.NODE_ENV !== 'test' || !untilFile) return undefined;
  return { afterChunks: readInt(env, 'INGESTION_TEST_STALL_AFTER_CHUNKS', 1, { min: 1 }), untilFile };
}
