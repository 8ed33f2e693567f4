// Field paths, compiled once into accessors. Two spellings of one grammar:
//   dotted    customer.address.zip   items[0].sku   items[*].price   lines.0.qty
//   JSONPath  $.items[*].price   $['order id']   $.*   $  (the record itself)
// Supported: names, ['quoted names'], [n] indexes, [*] and .* wildcards. Refused (compile issue):
// recursive descent (..), filters ([?...]), slices, unions and negative indexes, which have no
// single obvious meaning for validation and would make evaluation cost depend on the pack.
// A dotted path (not starting with $) that contains '.' or '[' first looks for a key spelled
// exactly like the whole path, so a CSV column named "unit.price" is found as written.
// Only a record's own properties are read: `constructor` or `__proto__` never reach a prototype.

export class FieldPathError extends Error {}

/** A key, an array index, or WILDCARD. */
type Segment = string | number | typeof WILDCARD;
const WILDCARD = null;

/** A value visitor: true when the value passes. `arg` carries a per-record operand (value_field). */
export type Visit = (value: unknown, arg: unknown) => boolean;

export interface CompiledField {
  readonly raw: string;
  /** The path can match several values ([*] or .*). */
  readonly wildcard: boolean;
  /** The value at the path; undefined when absent (JSON has no undefined, so it means missing). */
  get(record: unknown): unknown;
  /**
   * Whether every value the path matches passes `visit`, stopping at the first that fails. Where
   * the path finds nothing (an absent key, an empty array under [*]) undefined (missing) is
   * visited, exactly like a plain path whose value is absent: `required` fails there and
   * `is_null` passes.
   */
  every(record: unknown, visit: Visit, arg: unknown): boolean;
}

const IDENTIFIER_END = /[.[\]]/;

function parseSegments(raw: string): Segment[] {
  const segments: Segment[] = [];
  const jsonPath = raw.startsWith('$');
  let i = jsonPath ? 1 : readName(raw, 0, segments);
  while (i < raw.length) {
    const c = raw[i];
    if (c === '.') {
      if (raw[i + 1] === '.') throw new FieldPathError('recursive descent (..) is not supported');
      if (raw[i + 1] === '*') {
        segments.push(WILDCARD);
        i += 2;
      } else {
        i = readName(raw, i + 1, segments);
      }
    } else if (c === '[') {
      i = readBracket(raw, i, segments);
    } else {
      throw new FieldPathError(`unexpected '${c}' at position ${i}`);
    }
  }
  return segments;
}

function readName(raw: string, start: number, segments: Segment[]): number {
  const rest = raw.slice(start);
  const end = rest.search(IDENTIFIER_END);
  const name = end < 0 ? rest : rest.slice(0, end);
  if (name.length === 0) throw new FieldPathError(`empty name at position ${start}`);
  if (name === '*') throw new FieldPathError('a wildcard is written [*] or .*');
  segments.push(name);
  return start + name.length;
}

function readBracket(raw: string, open: number, segments: Segment[]): number {
  const close = (quote: string): number => {
    const end = raw.indexOf(quote + ']', open + 2);
    if (end < 0) throw new FieldPathError(`unterminated [${quote} at position ${open}`);
    return end;
  };
  const q = raw[open + 1];
  if (q === "'" || q === '"') {
    const end = close(q);
    const name = raw.slice(open + 2, end);
    if (name.includes('\\')) throw new FieldPathError('escapes in quoted names are not supported');
    segments.push(name);
    return end + 2;
  }
  const end = raw.indexOf(']', open);
  if (end < 0) throw new FieldPathError(`unterminated [ at position ${open}`);
  const inner = raw.slice(open + 1, end);
  if (inner === '*') segments.push(WILDCARD);
  else if (/^(0|[1-9][0-9]{0,8})$/.test(inner)) segments.push(Number(inner));
  else if (inner.startsWith('?')) throw new FieldPathError('filter expressions are not supported');
  else throw new FieldPathError(`unsupported index [${inner}] (a non-negative integer or *)`);
  return end + 1;
}

// Keys a plain object or an array inherits: read only when the record owns them.
const hasOwn = Object.prototype.hasOwnProperty;
function inherited(key: string): boolean {
  return key in Object.prototype || key in Array.prototype || key === '__proto__';
}

interface Step {
  key: string | undefined;
  index: number;
  guarded: boolean;
}

function toStep(segment: string | number): Step {
  if (typeof segment === 'number') return { key: undefined, index: segment, guarded: false };
  return { key: segment, index: -1, guarded: inherited(segment) };
}

function step(value: unknown, s: Step): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  if (s.key === undefined) return Array.isArray(value) && s.index < value.length ? value[s.index] : undefined;
  if (s.guarded)
    return !Array.isArray(value) && hasOwn.call(value, s.key) ? (value as Record<string, unknown>)[s.key] : undefined;
  return (value as Record<string, unknown>)[s.key];
}

function compileGetter(steps: readonly Step[]): (record: unknown) => unknown {
  // Short paths are the common case; unrolled they avoid the loop's bookkeeping.
  const [a, b, c] = steps;
  switch (steps.length) {
    case 0:
      return (r) => r;
    case 1:
      return (r) => step(r, a!);
    case 2:
      return (r) => step(step(r, a!), b!);
    case 3:
      return (r) => step(step(step(r, a!), b!), c!);
    default:
      return (r) => {
        let v = r;
        for (let i = 0; i < steps.length && v !== undefined; i++) v = step(v, steps[i]!);
        return v;
      };
  }
}

// Walks the segments from `at`, visiting every matched value; stops at the first failure. Every
// branch ends in exactly one visit: a missing key, or a wildcard over an empty or non-container
// value, visits undefined (missing), so an item without the field fails `required` like a record
// without it, and an empty array is not a silent pass.
function walk(value: unknown, segments: readonly (Step | null)[], at: number, visit: Visit, arg: unknown): boolean {
  let v = value;
  for (let i = at; i < segments.length; i++) {
    const s = segments[i];
    if (s !== null && s !== undefined) {
      v = step(v, s);
      if (v === undefined) return visit(undefined, arg);
      continue;
    }
    let matched = false;
    if (Array.isArray(v)) {
      for (let k = 0; k < v.length; k++) {
        matched = true;
        if (!walk(v[k], segments, i + 1, visit, arg)) return false;
      }
    } else if (typeof v === 'object' && v !== null) {
      for (const key in v) {
        if (!hasOwn.call(v, key)) continue;
        matched = true;
        if (!walk((v as Record<string, unknown>)[key], segments, i + 1, visit, arg)) return false;
      }
    }
    return matched || visit(undefined, arg);
  }
  return visit(v, arg);
}

/** Compiles a path; throws FieldPathError naming what is wrong with it. */
export function compileField(raw: string): CompiledField {
  const segments = parseSegments(raw);
  const wildcard = segments.includes(WILDCARD);
  const exactKeyFirst = !raw.startsWith('$') && /[.[]/.test(raw);
  let get: (record: unknown) => unknown;
  let every: CompiledField['every'];
  if (!wildcard) {
    get = compileGetter(segments.map((s) => toStep(s as string | number)));
    every = (record, visit, arg) => visit(get(record), arg);
  } else {
    const steps = segments.map((s) => (s === WILDCARD ? null : toStep(s)));
    get = () => {
      throw new FieldPathError(`${raw} matches several values`);
    };
    every = (record, visit, arg) => walk(record, steps, 0, visit, arg);
  }
  if (exactKeyFirst) {
    const nested = { get, every };
    const own = (r: unknown): boolean =>
      typeof r === 'object' && r !== null && !Array.isArray(r) && hasOwn.call(r, raw);
    get = (r) => (own(r) ? (r as Record<string, unknown>)[raw] : nested.get(r));
    every = (r, visit, arg) => (own(r) ? visit((r as Record<string, unknown>)[raw], arg) : nested.every(r, visit, arg));
  }
  return { raw, wildcard, get, every };
}
