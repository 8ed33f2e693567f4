// The operators as closures over their operand, built once per rule. Each takes the record's value
// (undefined when absent) and answers whether it passes. Nothing here evaluates pack text as code:
// operators are looked up by name in fixed tables, patterns run under re2js (linear time).
import type { RE2JS } from 're2js';
import { compare, equals, membership, numberOf } from './value-semantics';

export type ValueTest = (value: unknown) => boolean;
/** A test against another field's value, read from the same record at run time. */
export type PairTest = (value: unknown, other: unknown) => boolean;

export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';
export type LiteralOperator = ComparisonOperator | 'in' | 'not_in' | 'contains' | 'starts_with' | 'ends_with';

const ORDER: Record<'<' | '<=' | '>' | '>=', (order: number) => boolean> = {
  // NaN (incomparable) is false under every one of these.
  '<': (o) => o < 0,
  '<=': (o) => o <= 0,
  '>': (o) => o > 0,
  '>=': (o) => o >= 0,
};

function contains(haystack: unknown, needle: unknown): boolean {
  if (typeof haystack === 'string') return typeof needle === 'string' && haystack.includes(needle);
  if (Array.isArray(haystack)) {
    for (let i = 0; i < haystack.length; i++) if (equals(haystack[i], needle)) return true;
  }
  return false;
}

function inList(value: unknown, list: unknown): boolean {
  if (!Array.isArray(list)) return false;
  for (let i = 0; i < list.length; i++) if (equals(value, list[i])) return true;
  return false;
}

/** The operators comparing with another field (value_field). */
export const PAIR_TESTS: Record<LiteralOperator, PairTest> = {
  '==': (a, b) => equals(a, b),
  '!=': (a, b) => !equals(a, b),
  '<': (a, b) => compare(a, b) < 0,
  '<=': (a, b) => compare(a, b) <= 0,
  '>': (a, b) => compare(a, b) > 0,
  '>=': (a, b) => compare(a, b) >= 0,
  in: (a, b) => inList(a, b),
  not_in: (a, b) => !inList(a, b),
  contains: (a, b) => b != null && contains(a, b),
  starts_with: (a, b) => typeof a === 'string' && typeof b === 'string' && a.startsWith(b),
  ends_with: (a, b) => typeof a === 'string' && typeof b === 'string' && a.endsWith(b),
};

/** A literal operator's test, specialised on its operand (already checked by the compiler). */
export function literalTest(operator: LiteralOperator, operand: unknown): ValueTest {
  switch (operator) {
    case '==':
      return equalsTest(operand);
    case '!=': {
      const eq = equalsTest(operand);
      return (v) => !eq(v);
    }
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const holds = ORDER[operator];
      if (typeof operand === 'number') {
        // The hot path of numeric rules: no call into compare() for a number.
        return (v) => (typeof v === 'number' ? holds(v - operand) : holds(numberOf(v) - operand));
      }
      return (v) => holds(compare(v, operand));
    }
    case 'in':
      return membership(operand as unknown[]);
    case 'not_in': {
      const member = membership(operand as unknown[]);
      return (v) => !member(v);
    }
    case 'contains':
      return (v) => contains(v, operand);
    case 'starts_with': {
      const prefix = operand as string;
      return (v) => typeof v === 'string' && v.startsWith(prefix);
    }
    case 'ends_with': {
      const suffix = operand as string;
      return (v) => typeof v === 'string' && v.endsWith(suffix);
    }
  }
}

function equalsTest(operand: unknown): ValueTest {
  if (operand === null) return (v) => v == null;
  if (typeof operand === 'string') {
    const n = numberOf(operand);
    return n === n
      ? (v) => v === operand || equals(v, operand)
      : (v) => v === operand || (typeof v === 'boolean' && equals(v, operand));
  }
  return (v) => v === operand || equals(v, operand);
}

export const isNullTest: ValueTest = (v) => v == null;
export const isNotNullTest: ValueTest = (v) => v != null;
export const requiredTest: ValueTest = (v) => v != null && v !== '';

/** min/max inclusive, over numbers and numeric text; anything else is out of range. */
export function rangeTest(min: number | undefined, max: number | undefined): ValueTest {
  const lo = min ?? -Infinity;
  const hi = max ?? Infinity;
  return (v) => {
    const n = typeof v === 'number' ? v : numberOf(v);
    return n >= lo && n <= hi;
  };
}

/** matches: the pattern found anywhere in the text (anchor it with ^...$ for a whole match). */
export function patternTest(re: RE2JS): ValueTest {
  return (v) => {
    if (typeof v === 'string') return re.test(v);
    // A number or boolean is matched as its JSON text, so ^\d{5}$ works on a numeric zip.
    if (typeof v === 'number' || typeof v === 'boolean') return re.test(String(v));
    return false;
  };
}
