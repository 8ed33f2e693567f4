// The validation service's domain types: what a run is asked (in domain names; each door maps
// its own wire names onto these) and what it answers.
import type { ValidationResult } from '../../platform/rule-engine';

export const PAYLOAD_FORMATS = ['json', 'csv', 'xml'] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];
export type PackSource = 'registry' | 'inline';

/** A run as asked: exactly one of rulePackId (registry) and rulePack (inline). */
export interface ValidateInput {
  rulePackId?: string | null;
  rulePackVersion?: string | null;
  rulePack?: unknown;
  /** Required; `undefined` means absent. JSON: an object (one record) or an array; CSV/XML: text. */
  payload?: unknown;
  payloadFormat?: PayloadFormat | null;
  validationType?: string | null;
  strictMode?: boolean | null;
  /** The caller's context for the run; neither stored nor echoed (it may carry anything). */
  metadata?: unknown;
}

/** Credentials forwarded to the registries, which apply their own tenant rules to the caller. */
export interface Forwarding {
  token?: string;
}

export interface ValidationRun {
  result: ValidationResult;
  correlationId: string;
  executionTimeMs: number;
  /** The registry's pack id, or the inline pack's metadata.pack_id (`inline:<sha256>` without one). */
  rulePackId: string;
  /** The pack's metadata.version (the registry version for registry packs); null for an inline pack without one. */
  rulePackVersion: string | null;
  /** The registry version that ran, for the RulePack reference; null for inline packs. */
  registryVersion: string | null;
  packSource: PackSource;
  packSha256: string;
  inputSha256: string;
  /** Records evaluated (rows, array elements; 1 for a JSON object). */
  records: number;
}

/** The `rule_execution` ledger event (spec 03) plus the run's provenance; nothing of the payload. */
export interface RuleExecutionData {
  rulepack_id: string;
  rules_executed: number;
  violations: number;
  result: 'passed' | 'failed';
  input_sha256: string;
  pack_sha256: string;
  pack_source: PackSource;
  rule_pack_version: string | null;
  validation_type: string;
  payload_format: PayloadFormat;
  strict_mode: boolean;
  records: number;
  [key: string]: unknown;
}
