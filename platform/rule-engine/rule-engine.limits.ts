// The engine's limits. Each one bounds a cost a pack author or a payload sender could otherwise
// choose: pack size and rule count bound compile time and memory, nesting depth bounds recursion
// (composites are evaluated recursively), pattern length bounds the regex program, and the record
// count bounds one run. The registry compiles with the defaults on submission, so a pack that
// compiled there also compiles in the validation service.
export interface RuleEngineLimits {
  /** UTF-8 bytes of the pack's canonical JSON. */
  maxPackBytes: number;
  /** Rules in one pack (the contract's schema also caps it at 1,000). */
  maxRules: number;
  /** Nesting of conditions: a rule's own test is level 1, each `when` or composite adds one. */
  maxDepth: number;
  /** Characters of one `matches` pattern. */
  maxPatternLength: number;
  /** Records in one run (and parsed from one payload). */
  maxRecords: number;
}

export const DEFAULT_RULE_ENGINE_LIMITS: RuleEngineLimits = Object.freeze({
  maxPackBytes: 1024 * 1024,
  maxRules: 1000,
  maxDepth: 8,
  maxPatternLength: 1000,
  maxRecords: 100_000,
});

export function resolveLimits(limits?: Partial<RuleEngineLimits>): RuleEngineLimits {
  const resolved = { ...DEFAULT_RULE_ENGINE_LIMITS };
  for (const key of Object.keys(resolved) as (keyof RuleEngineLimits)[]) {
    const value = limits?.[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`rule engine limit ${key} must be a positive integer`);
    resolved[key] = value;
  }
  return resolved;
}
