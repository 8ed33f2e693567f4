// What a flagd targeting rule reads from its evaluation context, so an answer can be reused for
// the next context that holds the same values there (FlagSet's per-flag memo). flagd-core costs
// ~0.6 µs a call (a copy of the context, the compiled rule, `fractional`'s BigInt bucketing); a
// service asks the same flag for the same few users and tenants again and again.
//
// The analysis is deliberately narrow: a rule qualifies only when every operator is one whose
// answer depends on nothing but its arguments (a fixed list, below), and every `var` names a fixed
// path. Anything else (time through `$flagd.timestamp`, a computed or empty path, the iterators
// whose `var`s are relative to an array element, `$ref`s, operators added later) gives null:
// evaluated every time, exactly as before.

/** Operators whose result is a function of their arguments alone (json-logic-engine and flagd's own). */
const PURE_OPERATORS = new Set([
  'if',
  '?:',
  '==',
  '===',
  '!=',
  '!==',
  '!',
  '!!',
  'or',
  'and',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  'cat',
  'substr',
  '+',
  '-',
  '*',
  '/',
  '%',
  'min',
  'max',
  'starts_with',
  'ends_with',
  'sem_ver',
  'fractional',
]);

/** The `$flagd` property that is the same on every call of a flag; its `timestamp` is not. */
const FLAG_KEY_PATH = '$flagd.flagKey';

/** The top-level context key a fixed `var` path starts at; null when the path is not a plain one. */
function rootOf(path: unknown): string | null | undefined {
  if (typeof path !== 'string' || path === '' || path.startsWith('.') || path.includes('\\')) return null;
  if (path === FLAG_KEY_PATH) return undefined; // a constant: no input
  const root = path.split('.', 1)[0]!;
  // `$flagd` is flagd's own (its timestamp changes every second); Object.prototype's names would
  // be read off the prototype of flagd-core's copy of the context, not off the caller's object.
  if (root === '$flagd' || root in Object.prototype) return null;
  return root;
}

/**
 * The top-level context keys `rule` reads (without duplicates, sorted, targetingKey last), or null
 * when its answer may depend on anything else. `fractional` adds `targetingKey`, its default bucketing input.
 */
export function targetingInputs(rule: unknown): string[] | null {
  const inputs = new Set<string>();
  const stack: unknown[] = [rule];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    const keys = Object.keys(node);
    if (keys.length !== 1) return null;
    const operator = keys[0]!;
    const args = (node as Record<string, unknown>)[operator];
    if (operator === 'var') {
      const path = Array.isArray(args) ? args[0] : args;
      const root = rootOf(path);
      if (root === null) return null;
      if (root !== undefined) inputs.add(root);
      // A default value (`{"var": ["a", default]}`) may itself be a rule.
      if (Array.isArray(args)) stack.push(...args.slice(1));
      continue;
    }
    if (!PURE_OPERATORS.has(operator)) return null;
    if (operator === 'fractional') inputs.add('targetingKey');
    stack.push(args);
  }
  // targetingKey last: it is usually the key with the most values, and the memo keeps one Map
  // per distinct value of every key but the last (answer-memo.ts).
  return [...inputs].sort((a, b) => Number(a === 'targetingKey') - Number(b === 'targetingKey') || (a < b ? -1 : 1));
}
