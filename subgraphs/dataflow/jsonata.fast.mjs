// A synchronous evaluator for a small, common subset of JSONata (issue 33: JSONata transforms at
// >= 50,000 records/s a core). jsonata's own evaluator is asynchronous at every node (an `await`
// and two environment lookups per node, a new environment per call): for a record-shaping
// expression that is most of the time, not the work. This compiles the parsed expression (the
// AST jsonata itself produced) into plain closures when every node is in the subset below, and
// the worker runs them per record.
//
// Correctness rule: the closures answer only when they are sure to answer as jsonata would. Any
// value outside the cases written out here (an array anywhere, a missing function argument, a
// non-finite number, a type jsonata would reject with an error, ...) throws, and the worker
// evaluates that record with jsonata itself, which gives its exact result or its exact error.
// Supported: string/number/true/false/null literals; `$`; paths of plain field names; object
// constructors with literal keys; `( ... )` blocks without bindings; unary minus;
// + - * / % = != < <= > >= & and or; `?:`; and calls of a few pure built-in functions, run
// through jsonata's own implementations. No lambdas, bindings, ranges or higher-order functions:
// nothing here can loop, so the worker's deadline and heap limit are only needed by the fallback.
// test/unit/dataflow/jsonata.transform.test.ts compares both evaluators over a corpus.
import jsonata from 'jsonata';

/** Thrown when a record needs jsonata's own evaluator. */
class Unsupported extends Error {}
const bail = () => {
  throw new Unsupported();
};

const finite = (v) => typeof v === 'number' && Number.isFinite(v);
/** A value whose handling below is the same as jsonata's: no arrays, functions or odd numbers. */
const scalar = (v) => v === null || typeof v === 'string' || typeof v === 'boolean' || finite(v);

// Built-ins run through jsonata's implementations: argument kinds (s string, n finite number,
// x scalar, u anything incl. missing) and how many are optional. jsonata's signature checks
// would accept these arguments as they are; anything else bails to jsonata.
const FUNCTIONS = {
  uppercase: ['s'],
  lowercase: ['s'],
  trim: ['s'],
  length: ['s'],
  substring: ['s', 'n', 'n?'],
  substringBefore: ['s', 's'],
  substringAfter: ['s', 's'],
  string: ['x'],
  number: ['x'],
  round: ['n', 'n?'],
  floor: ['n'],
  ceil: ['n'],
  abs: ['n'],
  boolean: ['x'],
  not: ['x'],
  exists: ['u'],
};

/** jsonata's own implementations of FUNCTIONS (they are values in JSONata: `$uppercase`). */
export async function loadBuiltins() {
  const out = {};
  for (const name of Object.keys(FUNCTIONS)) out[name] = (await jsonata(`$${name}`).evaluate({})).implementation;
  return out;
}

const ARG_OK = {
  s: (v) => typeof v === 'string',
  n: finite,
  x: scalar,
  u: (v) => v === undefined || scalar(v) || (v !== null && typeof v === 'object' && !Array.isArray(v)),
};

/** jsonata's boolean cast, for scalars and missing values only. */
function truthy(v) {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (finite(v)) return v !== 0;
  return bail();
}

const only = (node, keys) => Object.keys(node).every((k) => keys.includes(k));
const BASE = ['type', 'value', 'position'];

/**
 * The expression as `(record) => result`, or null when some node is outside the subset. The
 * function throws when a record needs jsonata's own evaluator.
 */
export function compileFast(ast, builtins) {
  try {
    const root = compile(ast, builtins);
    return (record) => {
      if (record === null || typeof record !== 'object' || Array.isArray(record)) bail();
      return root(record);
    };
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
}

function compile(node, fns) {
  if (node === null || typeof node !== 'object') bail();
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value': {
      if (!only(node, BASE)) bail();
      const v = node.value;
      return () => v;
    }
    case 'variable': {
      // `$`, the record (the root context of a per-record evaluation).
      if (!only(node, BASE) || node.value !== '') bail();
      return (input) => input;
    }
    case 'path':
      return path(node);
    case 'block': {
      if (!only(node, ['type', 'position', 'expressions']) || node.expressions.length === 0) bail();
      const parts = node.expressions.map((e) => compile(e, fns));
      return (input) => {
        let v;
        for (const p of parts) v = p(input);
        return v;
      };
    }
    case 'unary':
      if (node.value === '-' && only(node, [...BASE, 'expression'])) {
        const e = compile(node.expression, fns);
        return (input) => {
          const v = e(input);
          if (v === undefined) return undefined;
          return finite(v) ? -v : bail();
        };
      }
      if (node.value === '{' && only(node, [...BASE, 'lhs'])) return object(node, fns);
      return bail();
    case 'binary':
      if (!only(node, [...BASE, 'lhs', 'rhs'])) bail();
      return binary(node.value, compile(node.lhs, fns), compile(node.rhs, fns), fns);
    case 'condition': {
      if (!only(node, ['type', 'position', 'condition', 'then', 'else'])) bail();
      const c = compile(node.condition, fns);
      const t = compile(node.then, fns);
      const e = node.else === undefined ? () => undefined : compile(node.else, fns);
      return (input) => (truthy(c(input)) ? t(input) : e(input));
    }
    case 'function':
      return call(node, fns);
    default:
      return bail();
  }
}

/** Field names from the record: missing or a non-object on the way is undefined; an array bails. */
function path(node) {
  if (!only(node, ['type', 'steps', 'position'])) bail();
  const names = node.steps.map((s) =>
    s.type === 'name' && only(s, BASE) && typeof s.value === 'string' ? s.value : bail(),
  );
  if (names.length === 0) bail();
  return (input) => {
    let v = input;
    for (const name of names) {
      if (v === null || typeof v !== 'object') return undefined;
      if (Array.isArray(v)) bail();
      v = Object.prototype.hasOwnProperty.call(v, name) ? v[name] : undefined;
      if (v === undefined) return undefined;
    }
    return Array.isArray(v) || typeof v === 'function' ? bail() : v;
  };
}

/** `{ "k": v, ... }` with literal, distinct keys; a missing value leaves its key out (as jsonata). */
function object(node, fns) {
  const keys = new Set();
  const pairs = node.lhs.map(([k, v]) => {
    if (k.type !== 'string' || !only(k, BASE) || keys.has(k.value)) bail();
    if (k.value === '_jsonata_lambda' || k.value === '_jsonata_function') bail();
    keys.add(k.value);
    return [k.value, compile(v, fns)];
  });
  return (input) => {
    // jsonata builds its objects without a prototype.
    const out = Object.create(null);
    for (const [k, v] of pairs) {
      const value = v(input);
      if (value !== undefined) out[k] = value;
    }
    return out;
  };
}

function binary(op, l, r, fns) {
  const number = (v) => (v === undefined || finite(v) ? v : bail());
  switch (op) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '%': {
      const apply = {
        '+': (a, b) => a + b,
        '-': (a, b) => a - b,
        '*': (a, b) => a * b,
        '/': (a, b) => a / b,
        '%': (a, b) => a % b,
      }[op];
      return (input) => {
        const a = number(l(input));
        const b = number(r(input));
        return a === undefined || b === undefined ? undefined : apply(a, b);
      };
    }
    case '=':
    case '!=':
      return (input) => {
        const a = l(input);
        const b = r(input);
        if (a === undefined || b === undefined) return false;
        if (!scalar(a) || !scalar(b)) bail();
        return op === '=' ? a === b : a !== b;
      };
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const apply = { '<': (a, b) => a < b, '<=': (a, b) => a <= b, '>': (a, b) => a > b, '>=': (a, b) => a >= b }[op];
      const comparable = (v) => v === undefined || typeof v === 'string' || finite(v);
      return (input) => {
        const a = l(input);
        const b = r(input);
        if (!comparable(a) || !comparable(b)) bail();
        if (a === undefined || b === undefined) return undefined;
        return typeof a === typeof b ? apply(a, b) : bail();
      };
    }
    case '&': {
      // jsonata's $string for each operand (numbers to 15 significant digits), missing as ''.
      const text = (v) => (v === undefined ? '' : typeof v === 'string' ? v : scalar(v) ? fns.string(v) : bail());
      return (input) => text(l(input)) + text(r(input));
    }
    case 'and':
      return (input) => truthy(l(input)) && truthy(r(input));
    case 'or':
      return (input) => truthy(l(input)) || truthy(r(input));
    default:
      return bail();
  }
}

function call(node, fns) {
  if (!only(node, [...BASE, 'name', 'arguments', 'procedure'])) bail();
  const proc = node.procedure;
  if (!proc || proc.type !== 'variable' || !only(proc, BASE)) bail();
  const kinds = Object.hasOwn(FUNCTIONS, proc.value) ? FUNCTIONS[proc.value] : bail();
  const impl = fns[proc.value] ?? bail();
  const required = kinds.filter((k) => !k.endsWith('?')).length;
  if (node.arguments.length < required || node.arguments.length > kinds.length) bail();
  const args = node.arguments.map((a) => compile(a, fns));
  const checks = args.map((_, i) => ARG_OK[kinds[i].replace('?', '')]);
  return (input) => {
    const values = args.map((a) => a(input));
    for (let i = 0; i < values.length; i++) if (!checks[i](values[i])) bail();
    const out = impl(...values);
    return out instanceof Promise || Array.isArray(out) ? bail() : out;
  };
}
