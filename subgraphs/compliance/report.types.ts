// A compliance report's records (docs/compliance.md, "Reports"): what a report is at each step of
// its review, its per-control verdicts and the evidence snapshot it was built from.
import type { LedgerCheckpoint } from '../../platform/clients/ledger.client';
import type { Freshness } from './compliance.types';

/**
 * generating (rows being written; never shown) -> generated -> pending_review -> signing (the
 * ledger append in flight; back to pending_review if it fails) -> signed_off, or -> rejected.
 */
export type ReportStatus = 'generating' | 'generated' | 'pending_review' | 'signing' | 'signed_off' | 'rejected';

/** The statuses a reader ever sees (`generating` rows are never served). */
export type ReviewedReportStatus = Exclude<ReportStatus, 'generating'>;

export type ReportDecision = 'approve' | 'reject';

/** pass: every control satisfied; fail: none; partial: some. */
export type ReportResult = 'pass' | 'partial' | 'fail';

export interface ReportPeriod {
  /** Inclusive. */
  start: Date;
  /** Exclusive. */
  end: Date;
  /** "2026-Q3", or the ISO 8601 interval "start/end". */
  label: string;
}

/** Counts over the report, in wire names (stored and served as they are). */
export interface ReportSummary {
  controls: number;
  satisfied: number;
  not_satisfied: number;
  fresh: number;
  expiring: number;
  stale: number;
  /** Distinct evidence items in the period. */
  evidence_items: number;
  /** (control, item) pairs: an item counts once for each control it is evidence for. */
  evidence_links: number;
  /** Evidence the ledger had not recorded when the report was generated (no proof possible). */
  unrecorded: number;
}

export interface ComplianceReport {
  tenantId: string;
  id: string;
  framework: string;
  reportType: string;
  period: ReportPeriod;
  status: ReportStatus;
  result: ReportResult | null;
  summary: ReportSummary;
  /** The one signed checkpoint every proof of the report is built against (null: no evidence in the ledger). */
  checkpoint: LedgerCheckpoint | null;
  /** SHA-256 of the RFC 8785 canonical JSON of the report's verdicts (reportDigest). */
  contentSha256: string | null;
  generatedBy: string | null;
  generatedAt: Date;
  submittedBy: string | null;
  submittedAt: Date | null;
  reviewedBy: string | null;
  reviewedAt: Date | null;
  reviewNotes: string | null;
  /** The `compliance_report` ledger entry written at sign-off. */
  ledgerEntryId: string | null;
  ledgerChainHash: string | null;
  /** The sign-off's workflow execution and approval task (null before submission). */
  workflowId: string | null;
  approvalTaskId: string | null;
}

export interface ReportControl {
  controlId: string;
  title: string;
  position: number;
  /** At the report's as-of instant: the period's end, or the generation if that came first. */
  freshness: Freshness;
  satisfied: boolean;
  evidenceCount: number;
  lastCollectedAt: Date | null;
  expiresAt: Date | null;
}

/** An evidence item in a report: its newest revision collected in the period. */
export interface ReportEvidence {
  controlId: string;
  itemId: string;
  revision: number;
  contentSha256: string;
  source: string;
  collectedAt: Date;
  expiresAt: Date;
  ledgerEntryId: string | null;
}

export const REPORT_LIMITS = {
  /** Longest period one report covers. */
  periodDays: 366,
  /** Evidence per page of the JSON export; with proofs, fewer (each is a ledger call). */
  pageSize: 100,
  maxPageSize: 1000,
  maxProofPageSize: 100,
  /** Evidence listed per control in the OSCAL export (the rest are counted, and in the JSON export). */
  oscalEvidencePerControl: 200,
  /** Evidence listed (with proofs) per control in the human-readable document. */
  documentEvidencePerControl: 25,
  /** Entries per call of the ledger's batch proof route (its maximum). */
  proofBatch: 1000,
  /** Ledger proof calls in flight at once while exporting. */
  proofConcurrency: 2,
  notesLength: 2000,
} as const;
