// The scanner's own settings, parsed once at build time: a bad value stops the service with a
// message naming the variable.
import path from 'node:path';
import { ConfigError, readBool, readInt, readOptional } from '../../platform/config/env';
import { serviceRequiresAuth, serviceUrl } from '../../platform/config/platform.config';
import { complianceUrl } from '../../platform/clients/compliance.client';
import type { Env, ServiceManifest } from '../../platform/service';
import { parseSigningKeyPem } from '../rulepack-registry/pack-signature';

export interface ScannerConfig {
  /** COMPLIANCE_SCANNER_REQUIRE_AUTH, else REQUIRE_AUTH, else true. */
  requireAuth: boolean;
  /** SCANNER_ALLOWED_ROOTS: absolute directories (comma-separated) repository targets must lie in; none by default. */
  allowedRoots: string[];
  /** SCANNER_ALLOWED_REMOTES: URL prefixes or host names (comma-separated) remote repositories must match; none by default. */
  allowedRemotes: string[];
  /** SCANNER_REMOTE_ALLOW_LOOPBACK: remotes on loopback addresses (plain http too) allowed: tests, local mirrors (false). */
  remoteAllowLoopback: boolean;
  /** SCANNER_MAX_CLONE_BYTES: what one clone may download at most (256 MiB). */
  maxCloneBytes: number;
  /** SCANNER_CLONE_TIMEOUT_SECONDS: one clone's deadline (120). */
  cloneTimeoutSeconds: number;
  /** SCANNER_MAX_FILE_BYTES: a larger file is reported as skipped, never read (1 MiB). */
  maxFileBytes: number;
  /** SCANNER_MAX_FILES: files read per scan at most (20,000). */
  maxFiles: number;
  /** SCANNER_SUPPRESSION_MAX_DAYS: the furthest a suppression's expiry may lie (365). */
  suppressionMaxDays: number;
  /** SCANNER_SWEEP_SECONDS: how often expiries and pending approvals are checked (60). */
  sweepSeconds: number;
  /** SCANNER_SIGNING_KEY: PKCS8 PEM Ed25519 key signing certified packs; absent, one is generated and kept in the database. */
  signingKeyPem?: string;
  /** Where suppressions are approved: WORKFLOW_URL, else the workflow service's registry port. */
  workflowUrl: string;
  /** Where config targets are read: CONFIG_URL, else the config service's registry port. */
  configUrl: string;
  /** Where data assets (ingestion batches) are read: INGESTION_URL, else the ingestion service's registry port. */
  ingestionUrl: string;
  /** Where retrieval documents (data assets) are read: RAG_URL, else the retrieval service's registry port. */
  retrievalUrl: string;
  /** Where retention policies are read: PLATFORM_COMPLIANCE_URL, else COMPLIANCE_URL, else the registry's port. */
  complianceUrl: string;
  /** SCANNER_MAX_DATA_ASSET_RECORDS: the records of a data asset sampled for PII (10,000). */
  maxDataAssetRecords: number;
  /** SCANNER_SCHEDULE_TICK_SECONDS: how often due schedules are looked for (30). */
  scheduleTickSeconds: number;
  /** SCANNER_SCHEDULE_MIN_SECONDS: the shortest interval a schedule may ask for (300). */
  scheduleMinSeconds: number;
  /** SCANNER_MAX_LOCKFILE_BYTES: the largest package-lock.json an SBOM is made from (32 MiB). */
  maxLockfileBytes: number;
  /** The environment a configuration target without settings reads (the platform's effective settings). */
  environment: Record<string, string | undefined>;
}

const WORKFLOW = { name: 'workflow', port: 8130 };
const CONFIG = { name: 'config', port: 8086 };
const INGESTION = { name: 'ingestion', port: 8092 };
const RETRIEVAL = { name: 'rag', port: 8138 };

export function loadComplianceScannerConfig(env: Env, registry: readonly ServiceManifest[] = []): ScannerConfig {
  const pem = readOptional(env, 'SCANNER_SIGNING_KEY')?.replace(/\\n/g, '\n');
  if (pem !== undefined) {
    try {
      parseSigningKeyPem(pem);
    } catch (err) {
      throw new ConfigError(`SCANNER_SIGNING_KEY must be a PKCS8 PEM Ed25519 private key: ${(err as Error).message}`);
    }
  }
  const roots = (readOptional(env, 'SCANNER_ALLOWED_ROOTS') ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  for (const r of roots)
    if (!path.isAbsolute(r)) throw new ConfigError(`SCANNER_ALLOWED_ROOTS must list absolute directories, got "${r}"`);
  const remotes = (readOptional(env, 'SCANNER_ALLOWED_REMOTES') ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  for (const r of remotes)
    if (r.includes('://') && !/^https?:\/\/[^/@?#]+(\/[^?#]*)?$/i.test(r))
      throw new ConfigError(
        `SCANNER_ALLOWED_REMOTES must list URL prefixes (https://host/path/) or host names, got "${r}"`,
      );
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'compliance-scanner' }),
    allowedRoots: roots,
    allowedRemotes: remotes,
    remoteAllowLoopback: readBool(env, 'SCANNER_REMOTE_ALLOW_LOOPBACK', false),
    maxCloneBytes: readInt(env, 'SCANNER_MAX_CLONE_BYTES', 256 * 1024 * 1024, {
      min: 1024,
      max: 4 * 1024 * 1024 * 1024,
    }),
    cloneTimeoutSeconds: readInt(env, 'SCANNER_CLONE_TIMEOUT_SECONDS', 120, { min: 1, max: 3600 }),
    maxFileBytes: readInt(env, 'SCANNER_MAX_FILE_BYTES', 1024 * 1024, { min: 1024, max: 64 * 1024 * 1024 }),
    maxFiles: readInt(env, 'SCANNER_MAX_FILES', 20_000, { min: 1, max: 1_000_000 }),
    suppressionMaxDays: readInt(env, 'SCANNER_SUPPRESSION_MAX_DAYS', 365, { min: 1, max: 3650 }),
    sweepSeconds: readInt(env, 'SCANNER_SWEEP_SECONDS', 60, { min: 1, max: 86_400 }),
    signingKeyPem: pem,
    workflowUrl: serviceUrl(env, registry.find((s) => s.name === WORKFLOW.name) ?? WORKFLOW),
    configUrl: serviceUrl(env, registry.find((s) => s.name === CONFIG.name) ?? CONFIG),
    ingestionUrl: serviceUrl(env, registry.find((s) => s.name === INGESTION.name) ?? INGESTION),
    retrievalUrl: serviceUrl(env, registry.find((s) => s.name === RETRIEVAL.name) ?? RETRIEVAL),
    complianceUrl: complianceUrl(env),
    maxDataAssetRecords: readInt(env, 'SCANNER_MAX_DATA_ASSET_RECORDS', 10_000, { min: 1, max: 1_000_000 }),
    scheduleTickSeconds: readInt(env, 'SCANNER_SCHEDULE_TICK_SECONDS', 30, { min: 1, max: 3600 }),
    scheduleMinSeconds: readInt(env, 'SCANNER_SCHEDULE_MIN_SECONDS', 300, { min: 1, max: 86_400 }),
    maxLockfileBytes: readInt(env, 'SCANNER_MAX_LOCKFILE_BYTES', 32 * 1024 * 1024, {
      min: 1024,
      max: 256 * 1024 * 1024,
    }),
    environment: env,
  };
}
