// The compliance service's own settings, parsed once at build time: a bad value stops the
// service with a message naming the variable.
import { ConfigError, readInt, readOptional } from '../../platform/config/env';
import { serviceRequiresAuth, serviceUrl } from '../../platform/config/platform.config';
import { loadLegalMinimums, type LegalMinimums } from '../../platform/retention/retention.types';
import type { Env, ServiceManifest } from '../../platform/service';
import { parseSigningKeyPem } from '../rulepack-registry/pack-signature';

export interface ComplianceConfig {
  /** COMPLIANCE_REQUIRE_AUTH, else REQUIRE_AUTH, else true: the platform's one rule. */
  requireAuth: boolean;
  /** How long evidence stays in force when neither it nor its mapping rule says (COMPLIANCE_EVIDENCE_TTL_DAYS). */
  evidenceTtlDays: number;
  /** A control whose evidence expires within this many days is `expiring` (COMPLIANCE_EXPIRING_DAYS). */
  expiringDays: number;
  /** COMPLIANCE_SIGNING_KEY: PKCS8 PEM Ed25519 key that signs certified mapping packs; absent, one is generated and kept in the database. */
  signingKeyPem?: string;
  /** Where evidence is recorded and proved: LEDGER_URL, else the ledger's registry port. */
  ledgerUrl: string;
  /** Where report sign-offs run as approval workflows: WORKFLOW_URL, else the workflow's registry port. */
  workflowUrl: string;
  /** The legal minimum of each record type (RETENTION_MIN_DAYS_<TYPE>): no policy may be shorter. */
  legalMinimums: LegalMinimums;
  /** How often evidence still without a ledger entry is appended again (COMPLIANCE_LEDGER_SWEEP_SECONDS, 300; 0 never). */
  ledgerSweepSeconds?: number;
  /** How often report generations a crash cut short are discarded (COMPLIANCE_REPORT_SWEEP_SECONDS, 300; 0 never). */
  reportSweepSeconds?: number;
  /** How long a report may stay `generating` before the sweep counts it as cut (COMPLIANCE_REPORT_GENERATING_TIMEOUT_SECONDS, 900). */
  reportGeneratingTimeoutSeconds?: number;
}

const LEDGER = { name: 'ledger', port: 8136 };
const WORKFLOW = { name: 'workflow', port: 8085 };

export function loadComplianceConfig(env: Env, registry: readonly ServiceManifest[] = []): ComplianceConfig {
  const pem = readOptional(env, 'COMPLIANCE_SIGNING_KEY')?.replace(/\\n/g, '\n');
  if (pem !== undefined) {
    try {
      parseSigningKeyPem(pem);
    } catch (err) {
      throw new ConfigError(
        `COMPLIANCE_SIGNING_KEY must be a PKCS8 PEM Ed25519 private key: ${(err as Error).message}`,
      );
    }
  }
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'compliance' }),
    evidenceTtlDays: readInt(env, 'COMPLIANCE_EVIDENCE_TTL_DAYS', 90, { min: 1, max: 3650 }),
    expiringDays: readInt(env, 'COMPLIANCE_EXPIRING_DAYS', 14, { min: 0, max: 365 }),
    signingKeyPem: pem,
    ledgerUrl: serviceUrl(env, registry.find((s) => s.name === LEDGER.name) ?? LEDGER),
    workflowUrl: serviceUrl(env, registry.find((s) => s.name === WORKFLOW.name) ?? WORKFLOW),
    legalMinimums: loadLegalMinimums(env),
    ledgerSweepSeconds: readInt(env, 'COMPLIANCE_LEDGER_SWEEP_SECONDS', 300, { min: 0, max: 86_400 }),
    reportSweepSeconds: readInt(env, 'COMPLIANCE_REPORT_SWEEP_SECONDS', 300, { min: 0, max: 86_400 }),
    reportGeneratingTimeoutSeconds: readInt(env, 'COMPLIANCE_REPORT_GENERATING_TIMEOUT_SECONDS', 900, {
      min: 60,
      max: 86_400,
    }),
  };
}
