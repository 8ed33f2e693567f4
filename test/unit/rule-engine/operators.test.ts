// The operators' meaning, one behaviour per case, over JSON and CSV-like (all-text) records.
import { passes } from './pack-builders';

describe('comparison operators', () => {
  test.each([
    ['==', 5, 5, true],
    ['==', 5, 6, false],
    ['==', 'a', 'a', true],
    ['==', 'a', 'A', false],
    ['!=', 5, 6, true],
    ['!=', 5, 5, false],
    ['<', 5, 4, true],
    ['<', 5, 5, false],
    ['<=', 5, 5, true],
    ['<=', 5, 6, false],
    ['>', 5, 6, true],
    ['>', 5, 5, false],
    ['>=', 5, 5, true],
    ['>=', 5, 4, false],
  ])('%s %p with value %p -> %p', (operator, value, actual, expected) => {
    expect(passes({ field: 'x', operator, value }, { x: actual })).toBe(expected);
  });

  test('numeric text compares as a number (CSV and XML deliver text)', () => {
    expect(passes({ field: 'amount', operator: '>', value: 9 }, { amount: '10' })).toBe(true);
    expect(passes({ field: 'amount', operator: '<', value: 100 }, { amount: '99.5' })).toBe(true);
    expect(passes({ field: 'amount', operator: '==', value: 100 }, { amount: '100' })).toBe(true);
    expect(passes({ field: 'amount', operator: '==', value: 100 }, { amount: '1e2' })).toBe(true);
    // Two numeric texts order as numbers, not as text ("9" > "10" as text).
    expect(passes({ field: 'a', operator: '<', value_field: 'b' }, { a: '9', b: '10' })).toBe(true);
  });

  test('text that is not a plain decimal is not a number', () => {
    for (const text of ['0x10', ' 16', '16 ', 'Infinity', '', '1e400', '1,000']) {
      expect(passes({ field: 'x', operator: '>', value: 1 }, { x: text })).toBe(false);
    }
  });

  test('two non-numeric strings order as text (ISO dates order correctly)', () => {
    expect(passes({ field: 'd', operator: '<', value: '2025-01-01' }, { d: '2024-12-31' })).toBe(true);
    expect(passes({ field: 'd', operator: '<', value: '2025-01-01' }, { d: '2025-01-02' })).toBe(false);
  });

  test('mixed kinds are unordered: every ordering operator fails', () => {
    for (const operator of ['<', '<=', '>', '>=']) {
      expect(passes({ field: 'x', operator, value: 5 }, { x: 'abc' })).toBe(false);
      expect(passes({ field: 'x', operator, value: 5 }, { x: true })).toBe(false);
      expect(passes({ field: 'x', operator, value: 5 }, { x: { n: 5 } })).toBe(false);
      expect(passes({ field: 'x', operator, value: 5 }, {})).toBe(false);
    }
  });

  test('absent and null are the same null', () => {
    expect(passes({ field: 'x', operator: '==', value: null }, {})).toBe(true);
    expect(passes({ field: 'x', operator: '==', value: null }, { x: null })).toBe(true);
    expect(passes({ field: 'x', operator: '==', value: null }, { x: 0 })).toBe(false);
    expect(passes({ field: 'x', operator: '!=', value: 'cancelled' }, {})).toBe(true);
    expect(passes({ field: 'x', operator: '==', value: 'a' }, {})).toBe(false);
  });

  test('a boolean equals its text, "true"/"false"', () => {
    expect(passes({ field: 'b', operator: '==', value: true }, { b: 'true' })).toBe(true);
    expect(passes({ field: 'b', operator: '==', value: true }, { b: 'false' })).toBe(false);
    expect(passes({ field: 'b', operator: '==', value: 'false' }, { b: false })).toBe(true);
    expect(passes({ field: 'b', operator: '==', value: true }, { b: 1 })).toBe(false);
  });

  test('equality between two texts is exact ("007" is not "7")', () => {
    expect(passes({ field: 'a', operator: '==', value: '7' }, { a: '007' })).toBe(false);
    expect(passes({ field: 'a', operator: '==', value_field: 'b' }, { a: '007', b: '007' })).toBe(true);
  });
});

describe('membership', () => {
  test('in and not_in', () => {
    const currencies = ['USD', 'EUR'];
    expect(passes({ field: 'c', operator: 'in', value: currencies }, { c: 'EUR' })).toBe(true);
    expect(passes({ field: 'c', operator: 'in', value: currencies }, { c: 'GBP' })).toBe(false);
    expect(passes({ field: 'c', operator: 'not_in', value: currencies }, { c: 'GBP' })).toBe(true);
    expect(passes({ field: 'c', operator: 'not_in', value: currencies }, { c: 'USD' })).toBe(false);
  });

  test('membership follows equality: numbers meet numeric text, null meets absent', () => {
    expect(passes({ field: 'n', operator: 'in', value: [1, 2, 3] }, { n: '2' })).toBe(true);
    expect(passes({ field: 'n', operator: 'in', value: ['2.0'] }, { n: 2 })).toBe(true);
    expect(passes({ field: 'n', operator: 'in', value: ['2.0'] }, { n: '2' })).toBe(false);
    expect(passes({ field: 'n', operator: 'in', value: [null, 'a'] }, {})).toBe(true);
    expect(passes({ field: 'n', operator: 'in', value: ['a'] }, {})).toBe(false);
    expect(passes({ field: 'n', operator: 'in', value: [true] }, { n: 'true' })).toBe(true);
    expect(passes({ field: 'n', operator: 'not_in', value: [1] }, { n: [1] })).toBe(true);
  });

  test("in with value_field looks in another field's array", () => {
    expect(passes({ field: 'pick', operator: 'in', value_field: 'allowed' }, { pick: 'b', allowed: ['a', 'b'] })).toBe(
      true,
    );
    expect(passes({ field: 'pick', operator: 'in', value_field: 'allowed' }, { pick: 'c', allowed: ['a', 'b'] })).toBe(
      false,
    );
    expect(passes({ field: 'pick', operator: 'in', value_field: 'allowed' }, { pick: 'a', allowed: 'abc' })).toBe(
      false,
    );
  });
});

describe('string operators', () => {
  test('contains: a substring of text, or an element of an array', () => {
    expect(passes({ field: 's', operator: 'contains', value: 'bc' }, { s: 'abcd' })).toBe(true);
    expect(passes({ field: 's', operator: 'contains', value: 'x' }, { s: 'abcd' })).toBe(false);
    expect(passes({ field: 'tags', operator: 'contains', value: 'gift' }, { tags: ['priority', 'gift'] })).toBe(true);
    expect(passes({ field: 'tags', operator: 'contains', value: 'gift' }, { tags: ['priority'] })).toBe(false);
    expect(passes({ field: 'ids', operator: 'contains', value: 7 }, { ids: ['7'] })).toBe(true);
    expect(passes({ field: 's', operator: 'contains', value: 'a' }, {})).toBe(false);
  });

  test('starts_with and ends_with work on text only', () => {
    expect(passes({ field: 's', operator: 'starts_with', value: 'ORD-' }, { s: 'ORD-1' })).toBe(true);
    expect(passes({ field: 's', operator: 'starts_with', value: 'ORD-' }, { s: 'ord-1' })).toBe(false);
    expect(passes({ field: 's', operator: 'ends_with', value: '.com' }, { s: 'a@b.com' })).toBe(true);
    expect(passes({ field: 's', operator: 'ends_with', value: '.com' }, { s: 'a@b.org' })).toBe(false);
    expect(passes({ field: 's', operator: 'starts_with', value: '12' }, { s: 12345 })).toBe(false);
  });

  test('matches finds the pattern anywhere; ^...$ anchors it', () => {
    expect(passes({ field: 's', operator: 'matches', value: '[0-9]{3}' }, { s: 'ab123cd' })).toBe(true);
    expect(passes({ field: 's', operator: 'matches', value: '^[0-9]{3}$' }, { s: 'ab123cd' })).toBe(false);
    expect(passes({ field: 's', operator: 'matches', value: '^[0-9]{3}$' }, { s: '123' })).toBe(true);
  });

  test('matches flags: i, m, s', () => {
    expect(passes({ field: 's', operator: 'matches', value: '^abc$' }, { s: 'ABC' })).toBe(false);
    expect(passes({ field: 's', operator: 'matches', value: '^abc$', flags: 'i' }, { s: 'ABC' })).toBe(true);
    expect(passes({ field: 's', operator: 'matches', value: '^b$' }, { s: 'a\nb' })).toBe(false);
    expect(passes({ field: 's', operator: 'matches', value: '^b$', flags: 'm' }, { s: 'a\nb' })).toBe(true);
    expect(passes({ field: 's', operator: 'matches', value: 'a.b' }, { s: 'a\nb' })).toBe(false);
    expect(passes({ field: 's', operator: 'matches', value: 'a.b', flags: 's' }, { s: 'a\nb' })).toBe(true);
  });

  test('matches reads a number as its JSON text and fails on absent or structured values', () => {
    expect(passes({ field: 'zip', operator: 'matches', value: '^[0-9]{5}$' }, { zip: 12345 })).toBe(true);
    expect(passes({ field: 'zip', operator: 'matches', value: '^[0-9]{5}$' }, {})).toBe(false);
    expect(passes({ field: 'zip', operator: 'matches', value: '.*' }, { zip: ['12345'] })).toBe(false);
  });

  test('a catastrophic-backtracking pattern runs in linear time under RE2', () => {
    // (a+)+$ against "aaaa...b" takes exponential time in a backtracking engine; RE2 answers at once.
    expect(passes({ field: 's', operator: 'matches', value: '^(a+)+$' }, { s: `${'a'.repeat(50_000)}b` })).toBe(false);
  });
});

describe('null checks, required and range', () => {
  test('is_null and is_not_null', () => {
    expect(passes({ field: 'x', operator: 'is_null' }, {})).toBe(true);
    expect(passes({ field: 'x', operator: 'is_null' }, { x: null })).toBe(true);
    expect(passes({ field: 'x', operator: 'is_null' }, { x: '' })).toBe(false);
    expect(passes({ field: 'x', operator: 'is_not_null' }, { x: 0 })).toBe(true);
    expect(passes({ field: 'x', operator: 'is_not_null' }, { x: null })).toBe(false);
  });

  test('required: present, not null and not the empty string', () => {
    expect(passes({ field: 'x', operator: 'required' }, { x: 'a' })).toBe(true);
    expect(passes({ field: 'x', operator: 'required' }, { x: 0 })).toBe(true);
    expect(passes({ field: 'x', operator: 'required' }, { x: false })).toBe(true);
    expect(passes({ field: 'x', operator: 'required' }, { x: '' })).toBe(false);
    expect(passes({ field: 'x', operator: 'required' }, { x: null })).toBe(false);
    expect(passes({ field: 'x', operator: 'required' }, {})).toBe(false);
  });

  test('range is inclusive and numeric', () => {
    const r = { field: 'n', operator: 'range', min: 1, max: 10 };
    expect(passes(r, { n: 1 })).toBe(true);
    expect(passes(r, { n: 10 })).toBe(true);
    expect(passes(r, { n: '5' })).toBe(true);
    expect(passes(r, { n: 0.999 })).toBe(false);
    expect(passes(r, { n: 10.001 })).toBe(false);
    expect(passes(r, { n: 'five' })).toBe(false);
    expect(passes(r, {})).toBe(false);
  });

  test('range with only min or only max is open on the other side', () => {
    expect(passes({ field: 'n', operator: 'range', min: 0 }, { n: 1e12 })).toBe(true);
    expect(passes({ field: 'n', operator: 'range', min: 0 }, { n: -1 })).toBe(false);
    expect(passes({ field: 'n', operator: 'range', max: 0 }, { n: -1e12 })).toBe(true);
    expect(passes({ field: 'n', operator: 'range', max: 0 }, { n: 1 })).toBe(false);
  });
});

describe('composites', () => {
  const adultOrApproved = {
    field: 'age',
    operator: 'any',
    conditions: [
      { operator: '>=', value: 18 },
      { field: 'approved', operator: '==', value: true },
    ],
  };

  test('any: one condition holding is enough', () => {
    expect(passes(adultOrApproved, { age: 20 })).toBe(true);
    expect(passes(adultOrApproved, { age: 12, approved: true })).toBe(true);
    expect(passes(adultOrApproved, { age: 12, approved: false })).toBe(false);
  });

  test('all: every condition must hold; a condition without a field uses the enclosing one', () => {
    const r = {
      field: 'n',
      operator: 'all',
      conditions: [
        { operator: '>', value: 0 },
        { operator: '<', value: 10 },
      ],
    };
    expect(passes(r, { n: 5 })).toBe(true);
    expect(passes(r, { n: 10 })).toBe(false);
    expect(passes(r, { n: 0 })).toBe(false);
  });

  test('not: none of the conditions holds', () => {
    const r = {
      field: 'status',
      operator: 'not',
      conditions: [
        { operator: '==', value: 'cancelled' },
        { operator: '==', value: 'lost' },
      ],
    };
    expect(passes(r, { status: 'paid' })).toBe(true);
    expect(passes(r, { status: 'cancelled' })).toBe(false);
    expect(passes(r, { status: 'lost' })).toBe(false);
  });

  test('composites nest', () => {
    const r = {
      field: 'x',
      operator: 'all',
      conditions: [
        { field: 'age', operator: '>=', value: 18 },
        {
          operator: 'any',
          conditions: [
            { field: 'country', operator: 'in', value: ['US', 'GB'] },
            { field: 'tier', operator: '==', value: 'gold' },
          ],
        },
      ],
    };
    expect(passes(r, { age: 30, country: 'US' })).toBe(true);
    expect(passes(r, { age: 30, country: 'FR', tier: 'gold' })).toBe(true);
    expect(passes(r, { age: 30, country: 'FR', tier: 'none' })).toBe(false);
    expect(passes(r, { age: 12, country: 'US' })).toBe(false);
  });
});

describe('value_field', () => {
  test('compares with another field of the same record', () => {
    const r = { field: 'end', operator: '>=', value_field: 'start' };
    expect(passes(r, { start: 5, end: 7 })).toBe(true);
    expect(passes(r, { start: 5, end: 3 })).toBe(false);
    expect(passes(r, { start: '2024-01-01', end: '2024-02-01' })).toBe(true);
    expect(passes(r, { end: 7 })).toBe(false);
  });

  test('works with equality and string operators, and nested paths', () => {
    expect(
      passes({ field: 'a.confirm', operator: '==', value_field: 'a.password' }, { a: { password: 'x', confirm: 'x' } }),
    ).toBe(true);
    expect(
      passes({ field: 'a.confirm', operator: '==', value_field: 'a.password' }, { a: { password: 'x', confirm: 'y' } }),
    ).toBe(false);
    expect(
      passes(
        { field: 'email', operator: 'ends_with', value_field: 'domain' },
        { email: 'a@corp.com', domain: 'corp.com' },
      ),
    ).toBe(true);
    expect(
      passes(
        { field: 'email', operator: 'contains', value_field: 'domain' },
        { email: 'a@corp.com', domain: 'other.com' },
      ),
    ).toBe(false);
  });
});
