// POST /validate's answer writer (rest-compat/validation/validate.answer-json.ts) against
// JSON.stringify: the same text for every answer the engine can give, including text that needs
// escaping, and JSON.stringify's own text for anything of another shape.
import { compileRulePack, runRulePack } from '../../../platform/rule-engine';
import { runJson } from '../../../rest-compat/validation';
import { validateAnswerJson } from '../../../rest-compat/validation/validate.answer-json';
import type { ValidationRun } from '../../../subgraphs/validation/validation.types';

const pack = compileRulePack({
  metadata: { pack_id: 'orders', version: '1.0.0' },
  rules: [
    {
      rule_id: 'R1',
      type: 'FATAL',
      field: 'amount',
      operator: '>',
      value: 0,
      error_message: 'amount must be positive',
    },
    { rule_id: 'R"2\\', type: 'WARNING', field: 'email', operator: 'required', error_message: 'say "hi"\n\u2028é' },
    { rule_id: '10', type: 'INFO', field: 'note', operator: 'is_null', error_message: 'a note \ud800 was left' },
    { rule_id: '__proto__', type: 'FATAL', field: 'id', operator: 'required', error_message: 'id\u0001 missing' },
  ],
});

function answer(records: unknown[], overrides: Partial<ValidationRun> = {}, rows = true) {
  return runJson({
    result: runRulePack(pack, records, { rows }),
    correlationId: 'corr-1',
    executionTimeMs: 0.123,
    rulePackId: 'orders',
    rulePackVersion: '1.0.0',
    registryVersion: '1.0.0',
    packSource: 'registry',
    packSha256: 'a'.repeat(64),
    inputSha256: 'b'.repeat(64),
    records: records.length,
    ...overrides,
  });
}

describe('validateAnswerJson', () => {
  it('writes the same text as JSON.stringify for passing and failing runs, with and without rows', () => {
    const cases = [
      answer([{ amount: 5, email: 'a@b.c', note: null, id: 1 }], {}, false),
      answer([{ amount: -1, note: 'x' }, { amount: 2, email: '' }, {}]),
      answer([], { rulePackVersion: null, correlationId: 'ünïcode "quoted" \u0000', executionTimeMs: 1e21 }),
      answer([{ amount: 1 }], { rulePackId: 'inline:\ud83d\ude00', packSource: 'inline' }),
    ];
    for (const a of cases) expect(validateAnswerJson(a)).toBe(JSON.stringify(a));
  });

  it('keeps the rule ids in JSON.stringify order (integer-like ids first) and escapes them', () => {
    const text = validateAnswerJson(answer([{ amount: -1 }]));
    expect(Object.keys((JSON.parse(text) as { result: { rule_results: object } }).result.rule_results)).toEqual([
      '10',
      'R1',
      'R"2\\',
      '__proto__',
    ]);
  });

  it('leaves anything of another shape to JSON.stringify', () => {
    const run = answer([{ amount: -1 }]);
    const odd = [
      { detail: 'Not found' },
      { ...run, extra: 1 },
      {
        ...run,
        result: { ...run.result, rule_results: { R1: { severity: 'FATAL', passed: true, evaluated: 1, failed: 0 } } },
      },
      { ...run, result: { ...run.result, errors: [{ ...run.result.errors[0], row: Number.NaN }] } },
      { ...run, result: { ...run.result, warnings: [{ rule_id: 'x', severity: 'LOUD', field: 'f', message: 'm' }] } },
      { ...run, execution_time_ms: Number.POSITIVE_INFINITY },
      { ...run, correlation_id: undefined },
      null,
      'text',
    ];
    for (const a of odd) expect(validateAnswerJson(a)).toBe(JSON.stringify(a));
  });
});
