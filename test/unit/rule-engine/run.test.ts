// runRulePack: severities, strict mode, `when`, field paths and wildcards, rows, the reporting cap,
// and what a failure may say (the pack's message, redacted; never the record's values).
import { compileRulePack, runRulePack, type CompiledRulePack } from '../../../platform/rule-engine';
import { pack, passes, rule, runOne } from './pack-builders';

describe('severities', () => {
  const compiled = compileRulePack(
    pack(
      rule({ field: 'a', operator: 'required', type: 'FATAL' }, 'fatal'),
      rule({ field: 'b', operator: 'required', type: 'WARNING' }, 'warning'),
      rule({ field: 'c', operator: 'required', type: 'INFO' }, 'info'),
    ),
  );

  test('FATAL failures are errors and make the result invalid', () => {
    const result = runRulePack(compiled, [{ b: 1, c: 1 }]);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      { rule_id: 'fatal', severity: 'FATAL', field: 'a', message: 'fatal failed', row: 0 },
    ]);
    expect(result.warnings).toEqual([]);
  });

  test('WARNING failures are warnings; the result stays valid', () => {
    const result = runRulePack(compiled, [{ a: 1, c: 1 }]);
    expect(result.valid).toBe(true);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([
      { rule_id: 'warning', severity: 'WARNING', field: 'b', message: 'warning failed', row: 0 },
    ]);
  });

  test('strict mode: a WARNING failure makes the result invalid', () => {
    expect(runRulePack(compiled, [{ a: 1, c: 1 }], { strictMode: true }).valid).toBe(false);
    expect(runRulePack(compiled, [{ a: 1, b: 1, c: 1 }], { strictMode: true }).valid).toBe(true);
  });

  test('INFO failures are in neither list, only in rule_results and metadata.infos', () => {
    const result = runRulePack(compiled, [{ a: 1, b: 1 }]);
    expect(result.valid).toBe(true);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.rule_results.info).toEqual({ severity: 'INFO', passed: false, evaluated: 1, failed: 1 });
    expect(result.metadata).toEqual({ rules_executed: 3, records: 1, violations: 0, infos: 1, truncated: false });
  });

  test('rule_results and metadata count over all records', () => {
    const result = runRulePack(compiled, [{ a: 1, b: 1, c: 1 }, {}, { a: 1 }]);
    expect(result.rule_results).toEqual({
      fatal: { severity: 'FATAL', passed: false, evaluated: 3, failed: 1 },
      warning: { severity: 'WARNING', passed: false, evaluated: 3, failed: 2 },
      info: { severity: 'INFO', passed: false, evaluated: 3, failed: 2 },
    });
    expect(result.metadata).toEqual({ rules_executed: 3, records: 3, violations: 3, infos: 2, truncated: false });
  });

  test('rules run in sequence within each record, records in order', () => {
    const result = runRulePack(compiled, [{}, {}], { strictMode: true });
    expect([...result.errors, ...result.warnings].map((f) => `${f.row}:${f.rule_id}`)).toEqual([
      '0:fatal',
      '1:fatal',
      '0:warning',
      '1:warning',
    ]);
  });

  test('no records: valid, nothing evaluated', () => {
    const result = runRulePack(compiled, []);
    expect(result.valid).toBe(true);
    expect(result.rule_results.fatal).toEqual({ severity: 'FATAL', passed: true, evaluated: 0, failed: 0 });
  });
});

describe('when', () => {
  const shippedAfterCreated = {
    field: 'shipped',
    operator: '>=',
    value_field: 'created',
    when: { field: 'shipped', operator: 'is_not_null' },
  };

  test('a rule whose precondition does not hold is not evaluated: neither pass nor fail', () => {
    const result = runOne(shippedAfterCreated, [
      { created: 5 },
      { created: 5, shipped: 7 },
      { created: 5, shipped: 3 },
    ]);
    expect(result.rule_results.r1).toEqual({ severity: 'FATAL', passed: false, evaluated: 2, failed: 1 });
    expect(result.errors.map((e) => e.row)).toEqual([2]);
  });

  test("a when without a field tests the rule's field", () => {
    const r = { field: 'discount', operator: '<=', value: 50, when: { operator: 'is_not_null' } };
    expect(runOne(r, [{}]).rule_results.r1!.evaluated).toBe(0);
    expect(passes(r, { discount: 80 })).toBe(false);
  });

  test('when may be a composite', () => {
    const r = {
      field: 'vat',
      operator: 'required',
      when: {
        field: 'country',
        operator: 'any',
        conditions: [
          { operator: '==', value: 'DE' },
          { operator: '==', value: 'FR' },
        ],
      },
    };
    expect(runOne(r, [{ country: 'US' }, { country: 'DE' }, { country: 'FR', vat: 'x' }]).rule_results.r1).toEqual({
      severity: 'FATAL',
      passed: false,
      evaluated: 2,
      failed: 1,
    });
  });
});

describe('field paths', () => {
  test('dotted paths and array indexes', () => {
    const record = { customer: { address: { zip: '12345' } }, items: [{ sku: 'A' }, { sku: 'B' }] };
    expect(passes({ field: 'customer.address.zip', operator: '==', value: '12345' }, record)).toBe(true);
    expect(passes({ field: 'items[1].sku', operator: '==', value: 'B' }, record)).toBe(true);
    expect(passes({ field: 'items.0.sku', operator: '==', value: 'A' }, record)).toBe(true);
    expect(passes({ field: 'items[2].sku', operator: 'is_null' }, record)).toBe(true);
    expect(passes({ field: 'customer.address.zip.more', operator: 'is_null' }, record)).toBe(true);
  });

  test("JSONPath: $, $.a.b, $['quoted name'], $.items[0]", () => {
    const record = { 'order id': 'X1', a: { b: 2 }, items: [{ sku: 'A' }] };
    expect(passes({ field: "$['order id']", operator: '==', value: 'X1' }, record)).toBe(true);
    expect(passes({ field: '$.a.b', operator: '==', value: 2 }, record)).toBe(true);
    expect(passes({ field: '$.items[0].sku', operator: '==', value: 'A' }, record)).toBe(true);
    expect(passes({ field: '$', operator: 'is_not_null' }, record)).toBe(true);
  });

  test('a CSV column whose name contains dots is found as written', () => {
    expect(passes({ field: 'unit.price', operator: '>', value: 2 }, { 'unit.price': '3' })).toBe(true);
    expect(passes({ field: 'unit.price', operator: '>', value: 2 }, { unit: { price: 3 } })).toBe(true);
  });

  test("only the record's own properties are read", () => {
    expect(passes({ field: 'constructor', operator: 'is_null' }, {})).toBe(true);
    expect(passes({ field: 'toString', operator: 'is_null' }, {})).toBe(true);
    expect(passes({ field: '__proto__', operator: 'is_null' }, {})).toBe(true);
    expect(passes({ field: 'items.length', operator: 'is_null' }, { items: [1, 2] })).toBe(true);
    expect(passes({ field: 'constructor', operator: '==', value: 'mine' }, JSON.parse('{"constructor":"mine"}'))).toBe(
      true,
    );
  });

  test('a record that is not an object has no fields', () => {
    expect(runOne({ field: 'a', operator: 'required' }, [null, 5, 'text', [1]]).rule_results.r1!.failed).toBe(4);
  });
});

describe('wildcards: the rule fails if any matched value fails', () => {
  const priced = { field: '$.items[*].price', operator: '>', value: 0 };

  test('every matched value must pass', () => {
    expect(passes(priced, { items: [{ price: 1 }, { price: 2 }] })).toBe(true);
    expect(passes(priced, { items: [{ price: 1 }, { price: 0 }] })).toBe(false);
  });

  test('an element without the field is a missing value', () => {
    expect(passes({ field: 'items[*].sku', operator: 'required' }, { items: [{ sku: 'A' }, { qty: 1 }] })).toBe(false);
    expect(passes(priced, { items: [{ price: 1 }, {}] })).toBe(false);
  });

  test('an empty or absent array is one missing value: required fails, is_null passes', () => {
    expect(passes({ field: 'items[*].sku', operator: 'required' }, { items: [] })).toBe(false);
    expect(passes({ field: 'items[*].sku', operator: 'required' }, {})).toBe(false);
    expect(passes({ field: 'items[*].sku', operator: 'is_null' }, { items: [] })).toBe(true);
  });

  test('nested wildcards and object wildcards', () => {
    const record = { orders: [{ lines: [{ qty: 1 }, { qty: 2 }] }, { lines: [{ qty: 3 }] }] };
    expect(passes({ field: '$.orders[*].lines[*].qty', operator: 'range', min: 1, max: 3 }, record)).toBe(true);
    expect(passes({ field: '$.orders[*].lines[*].qty', operator: 'range', min: 1, max: 2 }, record)).toBe(false);
    expect(passes({ field: '$.prices.*', operator: '>', value: 0 }, { prices: { a: 1, b: 2 } })).toBe(true);
    expect(passes({ field: '$.prices.*', operator: '>', value: 0 }, { prices: { a: 1, b: -2 } })).toBe(false);
  });

  test('a wildcard compared with value_field compares each value with the one other value', () => {
    const r = { field: 'items[*].price', operator: '<=', value_field: 'max_price' };
    expect(passes(r, { max_price: 10, items: [{ price: 5 }, { price: 10 }] })).toBe(true);
    expect(passes(r, { max_price: 10, items: [{ price: 5 }, { price: 11 }] })).toBe(false);
  });

  test("one failure per rule and record, naming the rule's field", () => {
    const result = runOne(priced, [{ items: [{ price: 0 }, { price: -1 }] }]);
    expect(result.errors).toEqual([
      { rule_id: 'r1', severity: 'FATAL', field: '$.items[*].price', message: 'r1 failed', row: 0 },
    ]);
  });
});

describe('failure messages', () => {
  test("are the pack's error_message and never echo the record's values", () => {
    const secret = '078-05-1120';
    const result = runOne({ field: 'ssn', operator: 'matches', value: '^x', error_message: 'ssn is malformed' }, [
      { ssn: secret },
    ]);
    expect(result.errors[0]!.message).toBe('ssn is malformed');
    expect(JSON.stringify(result)).not.toContain(secret);
  });

  test('are redacted: PII a pack author wrote into a message does not reach results', () => {
    const result = runOne(
      { field: 'a', operator: 'required', error_message: 'call 555-867-5309 or mail ops@corp.example.com' },
      [{}],
    );
    expect(result.errors[0]!.message).toBe('call ***-***-**** or mail ***@****.*******.***');
  });
});

describe('run options', () => {
  let compiled: CompiledRulePack;
  beforeAll(() => {
    compiled = compileRulePack(
      pack(
        rule({ field: 'a', operator: 'required' }, 'f'),
        rule({ field: 'a', operator: 'required', type: 'WARNING' }, 'w'),
      ),
    );
  });

  test('rows: false leaves row out (a payload that was one object)', () => {
    expect(runRulePack(compiled, [{}], { rows: false }).errors[0]).not.toHaveProperty('row');
  });

  test('failures past maxReportedFailures are counted, not listed', () => {
    const result = runRulePack(compiled, [{}, {}, {}], { maxReportedFailures: 4 });
    expect(result.errors.length + result.warnings.length).toBe(4);
    expect(result.metadata.violations).toBe(6);
    expect(result.metadata.truncated).toBe(true);
    expect(result.valid).toBe(false);
  });

  test('a rule_id such as __proto__ is an ordinary key of rule_results', () => {
    const result = runRulePack(compileRulePack(pack(rule({ field: 'a', operator: 'required' }, '__proto__'))), [{}]);
    expect(Object.keys(result.rule_results)).toEqual(['__proto__']);
    expect(JSON.parse(JSON.stringify(result)).rule_results.__proto__.failed).toBe(1);
  });

  test('a pack that compileRulePack did not make is refused', () => {
    const forged = { ruleCount: 0, sha256: '0'.repeat(64) };
    expect(() => runRulePack(forged, [{}])).toThrow(TypeError);
  });

  test("more records than the pack's maxRecords limit are refused", () => {
    const small = compileRulePack(pack(rule({ field: 'a', operator: 'required' })), { maxRecords: 2 });
    expect(() => runRulePack(small, [{}, {}, {}])).toThrow(/at most 2/);
  });
});
