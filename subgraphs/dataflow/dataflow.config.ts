// DataFlow's settings, parsed once at build time (a bad value stops the service naming the variable).
import { readInt } from '../../platform/config/env';
import { serviceRequiresAuth, serviceUrl } from '../../platform/config/platform.config';
import type { Env, ServiceManifest } from '../../platform/service';

export interface DataflowConfig {
  /** DATAFLOW_REQUIRE_AUTH, else REQUIRE_AUTH, else true. */
  requireAuth: boolean;
  packsRegistryUrl: string;
  /** The ingestion service (a batch's staged records): INGESTION_URL, else its registry port. */
  ingestionUrl: string;
  /** A pack's SQL statement is cancelled after this long (PostgreSQL's statement_timeout). */
  sqlTimeoutMs: number;
  /** A JSONata transform's worker thread is stopped after this long... */
  jsonataTimeoutMs: number;
  /** ...or when its heap grows past this. */
  jsonataHeapMb: number;
  /** The most records one input may hold for a run (match reconciliations and transforms read them into memory). */
  maxInputRecords: number;
  /** How often the schedule runner looks for due slots of scheduled packs (0: not at all). */
  schedulePollMs: number;
}

const PACKS_REGISTRY = { name: 'packs-registry', port: 8089 };
const INGESTION = { name: 'ingestion', port: 8092 };

export function loadDataflowConfig(env: Env, registry: readonly ServiceManifest[]): DataflowConfig {
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'dataflow' }),
    packsRegistryUrl: serviceUrl(env, registry.find((s) => s.name === PACKS_REGISTRY.name) ?? PACKS_REGISTRY),
    ingestionUrl: serviceUrl(env, registry.find((s) => s.name === INGESTION.name) ?? INGESTION),
    sqlTimeoutMs: readInt(env, 'DATAFLOW_SQL_TIMEOUT_MS', 5000, { min: 10, max: 600_000 }),
    jsonataTimeoutMs: readInt(env, 'DATAFLOW_JSONATA_TIMEOUT_MS', 5000, { min: 10, max: 600_000 }),
    jsonataHeapMb: readInt(env, 'DATAFLOW_JSONATA_HEAP_MB', 64, { min: 16, max: 4096 }),
    maxInputRecords: readInt(env, 'DATAFLOW_MAX_INPUT_RECORDS', 200_000, { min: 1, max: 10_000_000 }),
    schedulePollMs: readInt(env, 'DATAFLOW_SCHEDULE_POLL_MS', 15_000, { min: 0, max: 3_600_000 }),
  };
}
