// runRulePack: every rule over every record, in the pack's order within each record. The loop only
// calls the compiled closures and bumps counters; a failure allocates its entry only while under
// the reporting cap.
import { InputFormatError } from './input/input-format.error';
import { internalsOf, type CompiledRulePack } from './rule-pack.compile';
import type { RuleFailure, RuleResult, RunOptions, ValidationResult } from './rule-pack.types';

const DEFAULT_MAX_REPORTED_FAILURES = 1000;

export function runRulePack(
  pack: CompiledRulePack,
  records: readonly unknown[],
  options: RunOptions = {},
): ValidationResult {
  const { rules, limits } = internalsOf(pack);
  if (records.length > limits.maxRecords) {
    throw new InputFormatError(
      [],
      `the payload holds ${records.length} records; at most ${limits.maxRecords} are validated in one run`,
    );
  }
  const withRows = options.rows ?? true;
  const cap = options.maxReportedFailures ?? DEFAULT_MAX_REPORTED_FAILURES;
  const ruleCount = rules.length;
  const evaluated = new Float64Array(ruleCount);
  const failed = new Float64Array(ruleCount);
  const errors: RuleFailure[] = [];
  const warnings: RuleFailure[] = [];
  let reported = 0;
  let truncated = false;

  for (let row = 0; row < records.length; row++) {
    const record = records[row];
    for (let r = 0; r < ruleCount; r++) {
      const rule = rules[r]!;
      if (rule.when !== undefined && !rule.when(record)) continue;
      evaluated[r]! += 1;
      if (rule.test(record)) continue;
      failed[r]! += 1;
      if (rule.severity === 'INFO') continue;
      if (reported >= cap) {
        truncated = true;
        continue;
      }
      reported++;
      const failure: RuleFailure = {
        rule_id: rule.ruleId,
        severity: rule.severity,
        field: rule.field,
        message: rule.message,
      };
      if (withRows) failure.row = row;
      (rule.severity === 'FATAL' ? errors : warnings).push(failure);
    }
  }

  // A null-prototype map: a rule_id such as "__proto__" is an ordinary key here.
  const ruleResults = Object.create(null) as Record<string, RuleResult>;
  let fatal = 0;
  let warned = 0;
  let infos = 0;
  for (let r = 0; r < ruleCount; r++) {
    const rule = rules[r]!;
    const f = failed[r]!;
    ruleResults[rule.ruleId] = { severity: rule.severity, passed: f === 0, evaluated: evaluated[r]!, failed: f };
    if (rule.severity === 'FATAL') fatal += f;
    else if (rule.severity === 'WARNING') warned += f;
    else infos += f;
  }
  return {
    valid: fatal === 0 && !(options.strictMode && warned > 0),
    errors,
    warnings,
    rule_results: ruleResults,
    metadata: { rules_executed: ruleCount, records: records.length, violations: fatal + warned, infos, truncated },
  };
}
