// The scanner's records and the limits both doors share.
import { CONFIG_CHANGED } from '../../platform/contracts/config.events';
import { INGESTION_COMPLETED } from '../../platform/contracts/pipeline.events';
import type { ScannerPackDocument, ScannerSeverity } from '../../platform/contracts/scanner-pack.schema';

export type ScannerPackStatus = 'draft' | 'certified';

export interface ScannerPack {
  tenantId: string;
  packId: string;
  version: string;
  status: ScannerPackStatus;
  pack: ScannerPackDocument;
  sha256: string;
  author: string;
  submittedAt: Date;
  certifiedBy: string | null;
  certifiedAt: Date | null;
  signature: string | null;
  keyId: string | null;
}

/** `config`: the tenant's effective configuration, read from the config service at scan time. */
export type TargetKind = 'repository' | 'configuration' | 'config' | 'data_asset';

export interface ScanTarget {
  id: string;
  tenantId: string;
  name: string;
  kind: TargetKind;
  path: string | null;
  /** Null: the scanner's own environment, the platform's effective settings. */
  settings: Record<string, string> | null;
  /** A config target's namespace; null reads every namespace in force for the tenant. */
  namespace: string | null;
  createdBy: string;
  createdAt: Date;
}

export type ScanStatus = 'running' | 'completed' | 'failed';

/** The topics a schedule may run on (their contracts' topics, so a renamed topic cannot drift). */
export const SCAN_EVENT_TRIGGERS = [CONFIG_CHANGED.topic, INGESTION_COMPLETED.topic] as const;
export type ScanEventTrigger = (typeof SCAN_EVENT_TRIGGERS)[number];
export type ScanTrigger = 'manual' | 'schedule' | ScanEventTrigger;

/** A standing order: scan a target with a pack every `everySeconds`, and/or on events. */
export interface ScanSchedule {
  id: string;
  tenantId: string;
  targetId: string;
  packId: string;
  everySeconds: number | null;
  onEvents: ScanEventTrigger[];
  /** When it runs next; null: only an event will make it due. */
  dueAt: Date | null;
  dueTrigger: Exclude<ScanTrigger, 'manual'> | null;
  lastRunAt: Date | null;
  lastScanId: string | null;
  lastError: string | null;
  createdBy: string;
  createdAt: Date;
}

export interface IgnoredInlineSkip {
  rule_id: string;
  path: string;
  line: number | null;
  fingerprint: string;
}

export interface ScanSummary {
  matches: number;
  opened: number;
  reopened: number;
  fixed: number;
  suppressed: number;
  rule_errors: { rule_id: string; path: string; message: string }[];
  skipped_files: { path: string; reason: string }[];
  /** Inline `scanner:ignore` comments no approved suppression backs: their findings stay open. */
  ignored_inline_skips: IgnoredInlineSkip[];
}

export interface Scan {
  id: string;
  tenantId: string;
  targetId: string;
  packId: string;
  packVersion: string;
  status: ScanStatus;
  requestedBy: string;
  /** What started it: a person (`manual`), its schedule, or an event. */
  trigger: ScanTrigger;
  scheduleId: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  filesScanned: number;
  summary: ScanSummary | null;
  error: string | null;
}

export type FindingStatus = 'open' | 'fixed' | 'suppressed' | 'reopened';

export interface Finding {
  id: string;
  tenantId: string;
  targetId: string;
  fingerprint: string;
  ruleId: string;
  packId: string;
  packVersion: string;
  severity: ScannerSeverity;
  status: FindingStatus;
  path: string;
  line: number | null;
  detail: string | null;
  controls: string[];
  inlineSkip: boolean;
  suppressionId: string | null;
  firstSeen: Date;
  lastSeen: Date;
  lastScanId: string;
}

export type SuppressionScope = 'fingerprint' | 'rule_path' | 'purl';
export type SuppressionStatus = 'pending' | 'approved' | 'rejected' | 'expired';

export interface Suppression {
  id: string;
  tenantId: string;
  scope: SuppressionScope;
  fingerprint: string | null;
  ruleId: string | null;
  pathGlob: string | null;
  purl: string | null;
  owner: string;
  justification: string;
  expiresAt: Date;
  status: SuppressionStatus;
  requestedBy: string;
  approver: string | null;
  workflowId: string | null;
  createdAt: Date;
  decidedAt: Date | null;
}

export const LIMITS = {
  pageSize: 200,
  justification: 4000,
  /** SCANNER_SUPPRESSION_MAX_DAYS caps how far an expiry may lie. */
  nameLength: 200,
} as const;
