// What a run reports. Shapes follow spec 03's "Validation result" (valid, errors, warnings,
// rule_results, metadata); the entries' fields are ours (the spec does not show them).
export type Severity = 'FATAL' | 'WARNING' | 'INFO';

export interface RuleFailure {
  rule_id: string;
  severity: Severity;
  /** The rule's field as the pack wrote it (never the record's value). */
  field: string;
  /** The pack's error_message, passed through PII redaction. */
  message: string;
  /** 0-based index of the failing record (absent when the run was told there is one record). */
  row?: number;
}

export interface RuleResult {
  severity: Severity;
  /** No record failed the rule (a rule evaluated on no record passed). */
  passed: boolean;
  /** Records the rule applied to (its `when` held). */
  evaluated: number;
  failed: number;
}

export interface ValidationResult {
  /** No FATAL failure (and, in strict mode, no WARNING failure). */
  valid: boolean;
  errors: RuleFailure[];
  warnings: RuleFailure[];
  rule_results: Record<string, RuleResult>;
  metadata: {
    /** Rules in the pack, each run over every record. */
    rules_executed: number;
    records: number;
    /** FATAL and WARNING failures, counted even past the reporting cap. */
    violations: number;
    /** INFO failures (reported only in rule_results). */
    infos: number;
    /** True when errors/warnings were cut at `maxReportedFailures`; the counts stay exact. */
    truncated: boolean;
  };
}

export interface RunOptions {
  /** WARNING failures also make the result invalid. */
  strictMode?: boolean;
  /** Set `row` on failures (default true; false for a payload that was a single object). */
  rows?: boolean;
  /** Failures listed in errors + warnings at most (default 1,000): a bounded response. */
  maxReportedFailures?: number;
}
