// The linear pre-scan every JSON body passes BEFORE JSON.parse or anything recursive sees it.
// One left-to-right pass with an explicit stack (no recursion, O(length) time, O(maxDepth)
// memory) that refuses what the platform cannot store or hash faithfully or cannot process
// safely: nesting deeper than the limit (a 7,000-level event_data pinned the embedded database;
// recursive code further on, e.g. canonicalize, would overflow its stack), strings longer than the
// limit, NUL and lone surrogates (raw or as \u escapes; PostgreSQL text/json refuses NUL and a
// lone surrogate cannot be encoded as UTF-8), numbers JavaScript cannot hold as written (1e400 ->
// Infinity, 1e-400 -> 0, integers past 2^53 rounded) and `__proto__` keys. Each refusal names
// the offending field in `loc`. Grammar errors are left to JSON.parse, which runs next.
import { InputError, type InputIssue } from '../errors/domain-errors';

export interface JsonLimits {
  /** Deepest nesting of objects/arrays; the top-level container is depth 1. */
  maxDepth: number;
  /** Longest string (keys included), in UTF-16 code units as JavaScript counts `length`. */
  maxStringLength: number;
}

type Loc = (string | number)[];

const OBJECT = 1;
const ARRAY = 2;

export const decodeError = (prefix: Loc): InputError =>
  InputError.of([...prefix, 0], 'JSON decode error', 'json_invalid');

const isHigh = (u: number) => u >= 0xd800 && u <= 0xdbff;
const isLow = (u: number) => u >= 0xdc00 && u <= 0xdfff;

function hex4(text: string, at: number): number {
  let value = 0;
  for (let k = 0; k < 4; k++) {
    const c = text.charCodeAt(at + k);
    const digit =
      c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** Throws InputError (422 issues) when `text` breaks a limit or a rule above; returns otherwise. */
export function scanJson(text: string, limits: JsonLimits, prefix: Loc = ['body']): void {
  const n = text.length;
  // The open containers: kind, current array index, and the raw [start, end) of the current key.
  const kinds: number[] = [];
  const indices: number[] = [];
  const keyStarts: number[] = [];
  const keyEnds: number[] = [];
  let depth = 0;
  let expectKey = false;

  // Only on failure: the path of open containers, decoding the keys it passes through.
  const pathTo = (levels: number): Loc => {
    const path: Loc = [...prefix];
    for (let d = 0; d < levels; d++) {
      if (kinds[d] === ARRAY) path.push(indices[d]!);
      else if (keyStarts[d]! >= 0) path.push(decodeKey(keyStarts[d]!, keyEnds[d]!));
    }
    return path;
  };
  // A key already scanned: valid escapes, no raw control character but possibly a raw NUL.
  const decodeKey = (start: number, end: number): string =>
    JSON.parse(text.slice(start, end).replace(/\0/g, '\\u0000')) as string;
  const fail = (loc: Loc, msg: string, type: string): never => {
    throw new InputError([{ loc, msg, type } satisfies InputIssue]);
  };

  // Scans the string opening at `start`; returns the index after its closing quote.
  const scanString = (start: number, isKey: boolean): number => {
    let j = start + 1;
    let length = 0;
    let problem: string | undefined;
    let pendingHigh = false;
    for (;;) {
      if (j >= n) throw decodeError(prefix);
      let unit = text.charCodeAt(j);
      if (unit === 0x22) break;
      if (unit >= 0x20 && unit !== 0x5c && (unit < 0xd800 || unit > 0xdfff) && !pendingHigh) {
        j++;
        if (++length > limits.maxStringLength) break;
        continue;
      }
      if (unit === 0x5c) {
        const escape = text.charCodeAt(j + 1);
        if (escape === 0x75) {
          unit = hex4(text, j + 2);
          if (unit < 0) throw decodeError(prefix);
          j += 6;
        } else if (
          escape === 0x22 ||
          escape === 0x5c ||
          escape === 0x2f ||
          escape === 0x62 ||
          escape === 0x66 ||
          escape === 0x6e ||
          escape === 0x72 ||
          escape === 0x74
        ) {
          unit = 0x20; // any ordinary character: only its count matters
          j += 2;
        } else {
          throw decodeError(prefix);
        }
      } else if (unit < 0x20 && unit !== 0) {
        throw decodeError(prefix); // a raw control character: JSON forbids it
      } else {
        j++;
      }
      if (++length > limits.maxStringLength) break;
      if (unit === 0) problem ??= 'NUL (\\u0000) is not allowed';
      if (pendingHigh) {
        pendingHigh = false;
        if (isLow(unit)) continue;
        problem ??= 'a lone UTF-16 surrogate is not allowed';
      }
      if (isHigh(unit)) pendingHigh = true;
      else if (isLow(unit)) problem ??= 'a lone UTF-16 surrogate is not allowed';
    }
    if (length > limits.maxStringLength) {
      fail(
        isKey ? [...pathTo(depth - 1), '[key]'] : pathTo(depth),
        `String should have at most ${limits.maxStringLength} characters`,
        'string_too_long',
      );
    }
    if (pendingHigh) problem ??= 'a lone UTF-16 surrogate is not allowed';
    const end = j + 1;
    if (isKey) {
      keyStarts[depth - 1] = start;
      keyEnds[depth - 1] = end;
      if (problem) fail([...pathTo(depth), '[key]'], `Input should be a valid string: ${problem}`, 'string_unicode');
      // `__proto__` spelt plainly or with escapes (at most 6 characters per letter).
      const raw = end - start;
      if (
        raw >= 11 &&
        raw <= 56 &&
        (raw === 11 ? text.startsWith('"__proto__"', start) : text.slice(start, end).includes('\\'))
      ) {
        if (decodeKey(start, end) === '__proto__')
          fail(pathTo(depth), 'Forbidden key (prototype poisoning)', 'value_error');
      }
    } else if (problem) {
      fail(pathTo(depth), `Input should be a valid string: ${problem}`, 'string_unicode');
    }
    return end;
  };

  // Scans the number starting at `start`; returns the index after it.
  const scanNumber = (start: number): number => {
    let j = start;
    if (text.charCodeAt(j) === 0x2d) j++;
    const digits = (): void => {
      const from = j;
      while (j < n && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++;
      if (j === from) throw decodeError(prefix);
    };
    digits();
    let integer = true;
    let mantissaEnd = -1;
    if (text.charCodeAt(j) === 0x2e) {
      j++;
      digits();
      integer = false;
    }
    const e = text.charCodeAt(j);
    if (e === 0x65 || e === 0x45) {
      mantissaEnd = j;
      j++;
      const sign = text.charCodeAt(j);
      if (sign === 0x2b || sign === 0x2d) j++;
      digits();
      integer = false;
    }
    // Up to 15 digits without an exponent are always exact doubles: skip the conversion.
    if (j - start <= 15 && mantissaEnd < 0) return j;
    const value = Number(text.slice(start, j));
    if (!Number.isFinite(value)) fail(pathTo(depth), 'Input should be a finite number', 'finite_number');
    if (integer && !Number.isSafeInteger(value)) {
      fail(
        pathTo(depth),
        `Integer should be between ${-Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}; send larger ones as strings`,
        'number_out_of_range',
      );
    }
    if (value === 0 && /[1-9]/.test(text.slice(start, mantissaEnd < 0 ? j : mantissaEnd))) {
      fail(pathTo(depth), 'Number is too small to be represented (it would become 0)', 'number_out_of_range');
    }
    return j;
  };

  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
        i++;
        break;
      case 0x7b: // {
      case 0x5b: // [
        if (depth >= limits.maxDepth)
          fail(pathTo(depth), `JSON nesting should be at most ${limits.maxDepth} levels deep`, 'json_too_deep');
        kinds[depth] = c === 0x7b ? OBJECT : ARRAY;
        indices[depth] = 0;
        keyStarts[depth] = -1;
        depth++;
        expectKey = c === 0x7b;
        i++;
        break;
      case 0x7d: // }
      case 0x5d: // ]
        if (depth === 0) throw decodeError(prefix);
        depth--;
        expectKey = false;
        i++;
        break;
      case 0x2c: // ,
        if (depth > 0) {
          if (kinds[depth - 1] === OBJECT) expectKey = true;
          else indices[depth - 1]!++;
        }
        i++;
        break;
      case 0x3a: // :
        expectKey = false;
        i++;
        break;
      case 0x22: {
        const isKey = expectKey && depth > 0;
        i = scanString(i, isKey);
        if (isKey) expectKey = false;
        break;
      }
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          i = scanNumber(i);
        } else if (c >= 0x61 && c <= 0x7a) {
          while (i < n && text.charCodeAt(i) >= 0x61 && text.charCodeAt(i) <= 0x7a) i++; // true, false, null
        } else {
          throw decodeError(prefix);
        }
    }
  }
}
