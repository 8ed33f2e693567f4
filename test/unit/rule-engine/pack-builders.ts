// Small builders for rule packs in tests: one rule, or a pack of rules, with the required members
// filled in so each test states only what it is about.
import { compileRulePack, runRulePack, type ValidationResult } from '../../../platform/rule-engine';

export type RuleSpec = Record<string, unknown>;

export function rule(spec: RuleSpec, id = 'r1'): RuleSpec {
  return { rule_id: id, type: 'FATAL', error_message: `${id} failed`, ...spec };
}

export function pack(...rules: RuleSpec[]): { metadata: Record<string, unknown>; rules: RuleSpec[] } {
  return { metadata: { pack_id: 'test.pack', version: '1.0.0' }, rules };
}

/** Runs one rule over the records; the result of the single rule. */
export function runOne(spec: RuleSpec, records: unknown[]): ValidationResult {
  return runRulePack(compileRulePack(pack(rule(spec))), records);
}

/** Whether one record passes one rule (a rule whose `when` does not hold counts as passing). */
export function passes(spec: RuleSpec, record: unknown): boolean {
  return runOne(spec, [record]).rule_results.r1!.failed === 0;
}
