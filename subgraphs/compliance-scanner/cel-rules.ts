// CEL rules of scanner packs (@marcbachmann/cel-js): compiled once when a pack is submitted or
// loaded, with the library's structural limits (AST size, depth) and our own cost bound. CEL has
// no loops, but comprehension macros nest: `a.all(x, b.exists(y, c.map(...)))` costs the product
// of the lists' lengths. Every list and map a rule sees is capped at MAX_LIST entries (a file's
// lines reach CEL in windows of MAX_LIST), so the worst case is the AST's nodes weighted by
// MAX_LIST per enclosing macro; a rule above MAX_COST is refused at submission, before it can run
// (docs/scanner.md, "Rule cost").
import { Environment } from '@marcbachmann/cel-js';

/** The longest list (or map) a rule ever iterates: a window of lines, instructions, documents, items. */
export const MAX_LIST = 1_000;
/** Worst-case node evaluations per rule invocation: two nested macros with a small body, not three. */
export const MAX_COST = 50_000_000;

/** Deepest a parsed value is handed to a rule; deeper members are dropped. */
export const MAX_VALUE_DEPTH = 32;

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

const environment = new Environment({
  unlistedVariablesAreDyn: true,
  homogeneousAggregateLiterals: false,
  limits: { maxAstNodes: 2_000, maxDepth: 48, maxListElements: 200, maxMapEntries: 200, maxCallArguments: 8 },
});

export type CompiledCel = (vars: Record<string, unknown>) => unknown;

interface AstNode {
  op: string;
  args: unknown;
}

const isNode = (v: unknown): v is AstNode =>
  typeof v === 'object' && v !== null && typeof (v as AstNode).op === 'string' && 'args' in v;

/** Worst-case evaluations of `node`: each node once, a macro's body once per element of the longest list. */
export function celCost(node: unknown): number {
  if (Array.isArray(node)) return node.reduce<number>((sum, n) => sum + celCost(n), 0);
  if (!isNode(node)) return 0;
  const args = node.args;
  if (node.op === 'rcall' && Array.isArray(args) && MACROS.has(args[0] as string)) {
    const [, receiver, body] = args as [string, unknown, unknown[]];
    return 1 + celCost(receiver) + MAX_LIST * celCost(body);
  }
  return 1 + celCost(args);
}

export class CelRuleError extends Error {}

/** Parses, bounds and returns the evaluator; throws CelRuleError naming the problem. */
export function compileCel(expression: string): CompiledCel {
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = environment.parse(expression);
  } catch (err) {
    throw new CelRuleError(`not a valid CEL expression: ${firstLine((err as Error).message)}`);
  }
  const cost = celCost(parsed.ast);
  if (cost > MAX_COST)
    throw new CelRuleError(
      `the rule may cost ${cost.toExponential(1)} evaluations, above the limit of ${MAX_COST.toExponential(1)} (nested macros over lists of up to ${MAX_LIST} items)`,
    );
  return (vars) => parsed(vars);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}

/** A parsed value as a rule may see it: lists and maps cut to MAX_LIST entries, depth to MAX_VALUE_DEPTH. */
export function capped(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_VALUE_DEPTH) return null;
  if (Array.isArray(value)) return value.slice(0, MAX_LIST).map((v) => capped(v, depth + 1));
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).slice(0, MAX_LIST))
    out[key] = capped((value as Record<string, unknown>)[key], depth + 1);
  return out;
}
