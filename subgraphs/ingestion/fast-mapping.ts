// A mapping made only of plain renames and casts (`id`, `$number(id)`, `$lowercase(email)`,
// `$trim(first & " " & last)`) evaluated as plain JavaScript instead of by JSONata: profiling the
// benchmark showed JSONata's evaluation of such mappings as the largest cost of a batch
// (docs/benchmarks.md, issue 32). Compiled from JSONata's own syntax tree, so the expression
// language stays JSONata. It answers exactly what JSONata would, or `FALLBACK` when a value is
// outside the cases handled here (an array, an object, a string `$number` would refuse, a non-string
// operand of `&`, ...): the caller then evaluates the record with JSONata, which also words any
// error. Anything outside the subset compiles to null and the pipeline keeps JSONata throughout.
import type jsonata from 'jsonata';

export const FALLBACK: unique symbol = Symbol('fallback to JSONata');
export type Value = string | number | boolean | null | undefined;
type Field = (record: Record<string, unknown>) => Value | typeof FALLBACK;
export type FastMapping = (record: Record<string, unknown>) => Record<string, unknown> | typeof FALLBACK;

// jsonata's ExprNode type lacks some node types its parser makes (`path`, `binary`'s sides).
export type Node = Omit<jsonata.ExprNode, 'type'> & {
  type: string;
  procedure?: { type: string; value: string };
  lhs?: Node;
  rhs?: Node;
};

// JSONata's own test for a string `$number` accepts (jsonata 2.2.2, functions.js `number`); the
// hexadecimal, octal and binary forms it also takes are left to JSONata.
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?([Ee][-+]?[0-9]+)?$/;

/** A string's `$number` as JSONata answers it when the string is decimal, or FALLBACK. */
export function decimal(s: string): number | typeof FALLBACK {
  // Up to 15 digits alone (most ids and counts): exact as a double, so the value is read here
  // without the regular expression and parseFloat (about a tenth of a CSV batch's mapping).
  const len = s.length;
  if (len > 0 && len <= 15) {
    let v = 0;
    let i = 0;
    for (; i < len; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (i === len) return v;
  }
  if (!DECIMAL.test(s)) return FALLBACK;
  const n = parseFloat(s);
  return Number.isFinite(n) ? n : FALLBACK;
}

/** A source field by name: a scalar as JSONata answers it; a list, an object or an inherited name goes to JSONata. */
function field(name: string): Field {
  return (record) => {
    if (!Object.prototype.hasOwnProperty.call(record, name)) return name in record ? FALLBACK : undefined;
    const v = record[name];
    return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : FALLBACK;
  };
}

export const FUNCTIONS: Record<string, (v: Value) => Value | typeof FALLBACK> = {
  number: (v) => {
    if (v === undefined || typeof v === 'number') return v;
    if (typeof v === 'string') return decimal(v);
    if (typeof v === 'boolean') return v ? 1 : 0;
    return FALLBACK;
  },
  string: (v) => (v === undefined || typeof v === 'string' ? v : FALLBACK),
  lowercase: (v) => (v === undefined ? v : typeof v === 'string' ? v.toLowerCase() : FALLBACK),
  uppercase: (v) => (v === undefined ? v : typeof v === 'string' ? v.toUpperCase() : FALLBACK),
  trim: (v) => {
    if (v === undefined) return v;
    if (typeof v !== 'string') return FALLBACK;
    // JSONata's $trim: runs of space, tab, CR and LF become one space, then one leading and one trailing space go.
    let s = v.replace(/[ \t\n\r]+/gm, ' ');
    if (s.charAt(0) === ' ') s = s.substring(1);
    if (s.charAt(s.length - 1) === ' ') s = s.substring(0, s.length - 1);
    return s;
  },
};

/** The node has no member but these (a predicate, a `[]`, an index or focus binding makes it JSONata's). */
export const only = (node: object, ...keys: string[]) =>
  Object.entries(node).every(([k, v]) => v === undefined || k === 'position' || keys.includes(k));

function compileNode(node: Node): Field | null {
  if (node.type === 'string' && typeof node.value === 'string' && only(node, 'type', 'value')) {
    const text = node.value;
    return () => text;
  }
  if (node.type === 'path' && node.steps?.length === 1 && only(node, 'type', 'steps')) {
    const step = node.steps[0] as Node;
    if (step.type !== 'name' || typeof step.value !== 'string' || !only(step, 'type', 'value')) return null;
    return field(step.value);
  }
  if (
    node.type === 'function' &&
    node.procedure?.type === 'variable' &&
    only(node.procedure, 'type', 'value') &&
    node.arguments?.length === 1 &&
    only(node, 'type', 'value', 'arguments', 'procedure')
  ) {
    const fn = Object.prototype.hasOwnProperty.call(FUNCTIONS, node.procedure.value)
      ? FUNCTIONS[node.procedure.value]
      : undefined;
    const arg = compileNode(node.arguments[0] as Node);
    if (!fn || !arg) return null;
    return (record) => {
      const v = arg(record);
      return v === FALLBACK ? FALLBACK : fn(v);
    };
  }
  if (
    node.type === 'binary' &&
    node.value === '&' &&
    node.lhs &&
    node.rhs &&
    only(node, 'type', 'value', 'lhs', 'rhs')
  ) {
    const lhs = compileNode(node.lhs);
    const rhs = compileNode(node.rhs);
    if (!lhs || !rhs) return null;
    // JSONata casts each side with $string (undefined becomes ''); strings alone are taken here.
    return (record) => {
      const l = lhs(record);
      if (l !== undefined && typeof l !== 'string') return FALLBACK;
      const r = rhs(record);
      if (r !== undefined && typeof r !== 'string') return FALLBACK;
      return (l ?? '') + (r ?? '');
    };
  }
  return null;
}

/** The mapping as JavaScript, or null when an expression is outside the subset (JSONata then evaluates every record). */
export function compileFastMapping(fields: [name: string, expression: jsonata.Expression][]): FastMapping | null {
  const compiled: [string, Field][] = [];
  for (const [name, expression] of fields) {
    const f = compileNode(expression.ast() as Node);
    if (!f) return null;
    compiled.push([name, f]);
  }
  return (record) => {
    const out: Record<string, unknown> = {};
    for (const [name, f] of compiled) {
      const v = f(record);
      if (v === FALLBACK) return FALLBACK;
      // JSONata's object constructor leaves out a member whose value is undefined.
      if (v !== undefined) out[name] = v;
    }
    return out;
  };
}
