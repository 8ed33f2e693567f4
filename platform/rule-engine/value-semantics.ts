// How record values compare with operands. CSV and XML deliver every value as text, so a numeric
// string meets a number as a number ("100" == 100, "9" < "10"); the same holds for JSON records, so
// one pack behaves the same over all three formats. Absent (undefined) and null are the same
// "null". Nothing is converted otherwise: two non-numeric strings compare as text (code-unit order,
// so ISO dates order correctly), and mixed kinds (a number and "abc", an object and anything) are
// unequal and unordered, which fails every ordering operator.

// Decimal numbers as JSON writes them, plus a leading '+' and a bare '.5'. No hex, no Infinity, no
// whitespace: "0x10" and " 1" are text.
const NUMERIC_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number a value stands for, or NaN. */
export function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.length > 0 && value.length < 400 && NUMERIC_TEXT.test(value)) {
    const n = Number(value);
    return Number.isFinite(n) ? n : NaN;
  }
  return NaN;
}

/** "true"/"false" as the boolean they spell, otherwise undefined. */
function booleanOf(text: string): boolean | undefined {
  return text === 'true' ? true : text === 'false' ? false : undefined;
}

export function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Equality: same scalar; null equals absent; a number equals its numeric text; a boolean its text. */
export function equals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a == null || b == null) return a == null && b == null;
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'number' && tb === 'string') return a === numberOf(b);
  if (ta === 'string' && tb === 'number') return numberOf(a) === b;
  if (ta === 'boolean' && tb === 'string') return a === booleanOf(b as string);
  if (ta === 'string' && tb === 'boolean') return booleanOf(a as string) === b;
  return false;
}

/** Order of a and b: negative, zero or positive; NaN when they are not comparable. */
export function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') {
    const na = numberOf(a);
    const nb = numberOf(b);
    if (na === na && nb === nb) return na - nb;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'number' && typeof b === 'string') return a - numberOf(b);
  if (typeof a === 'string' && typeof b === 'number') return numberOf(a) - b;
  return NaN;
}

/**
 * A membership test equivalent to `list.some((item) => equals(value, item))`, answered from sets
 * built once at compile time instead of a scan per value.
 */
export function membership(list: readonly unknown[]): (value: unknown) => boolean {
  const numbers = new Set<number>();
  const texts = new Set<string>();
  const numbersOfTexts = new Set<number>();
  const booleans = new Set<boolean>();
  let hasNull = false;
  for (const item of list) {
    if (item === null) hasNull = true;
    else if (typeof item === 'number') numbers.add(item);
    else if (typeof item === 'boolean') booleans.add(item);
    else if (typeof item === 'string') {
      texts.add(item);
      const n = numberOf(item);
      if (n === n) numbersOfTexts.add(n);
      const b = booleanOf(item);
      if (b !== undefined) booleans.add(b);
    }
  }
  const checkNumericText = numbers.size > 0;
  return (value) => {
    if (value == null) return hasNull;
    switch (typeof value) {
      case 'string': {
        if (texts.has(value)) return true;
        if (checkNumericText) {
          const n = numberOf(value);
          if (n === n && numbers.has(n)) return true;
        }
        const b = booleanOf(value);
        return b !== undefined && booleans.has(b);
      }
      case 'number':
        return numbers.has(value) || numbersOfTexts.has(value);
      case 'boolean':
        return booleans.has(value);
      default:
        return false;
    }
  };
}
