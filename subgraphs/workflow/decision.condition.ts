// A decision step's `when`: a rule-pack condition, evaluated by the platform's rule engine (the
// same operators and value semantics as validation) rather than a second implementation. The
// condition becomes a one-rule pack; it holds when that rule passes on the execution's data.
import { compileRulePack, runRulePack, type CompiledRulePack } from '../../platform/rule-engine';
import type { Condition } from './workflow.types';

const compiled = new Map<string, CompiledRulePack>();

export function conditionHolds(when: Condition, data: Record<string, unknown>): boolean {
  const key = JSON.stringify(when);
  let pack = compiled.get(key);
  if (!pack) {
    const { field, ...rest } = when;
    pack = compileRulePack({
      metadata: { pack_id: 'decision' },
      // Composites name no field of their own; the rule needs one, which they ignore.
      rules: [
        { rule_id: 'when', type: 'FATAL', field: field ?? '$', error_message: 'condition does not hold', ...rest },
      ],
    });
    if (compiled.size > 1000) compiled.clear();
    compiled.set(key, pack);
  }
  return runRulePack(pack, [data]).valid;
}
