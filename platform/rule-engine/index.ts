// The rule engine: compile a rule pack once (schema, semantics, limits; paths to accessors,
// operators to closures, patterns to re2js programs), then run it over records. Framework-free:
// the validation service and the rule-pack registry call it; nothing here knows HTTP or storage.
export { compileRulePack, type CompiledRulePack } from './rule-pack.compile';
export { runRulePack } from './rule-pack.run';
export { RulePackError, type RulePackIssue } from './rule-pack.error';
export { DEFAULT_RULE_ENGINE_LIMITS, type RuleEngineLimits } from './rule-engine.limits';
export type { RuleFailure, RuleResult, RunOptions, Severity, ValidationResult } from './rule-pack.types';
export { parseRecords, InputFormatError, type InputFormat, type InputOptions } from './input';
