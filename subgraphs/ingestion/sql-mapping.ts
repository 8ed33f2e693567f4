// A CSV pipeline's mapping, target-schema check and `remove` scrubbing as SQL over a table of the
// file's text columns (csv-staging.store.ts), so PostgreSQL parses and maps a CSV itself instead of
// this process parsing it record by record (issue 32: csv-parse alone reads a tenth of COPY's rate).
// The subset is fast-mapping.ts's (field names, string literals, `&`, `$number`, `$string`,
// `$lowercase`, `$uppercase`, `$trim`), PII scrubbing (mask of ASCII values, hash, tokenize, remove:
// csv-staging.store.ts writes each as SQL) and a target schema of `type`, `required`, `properties`
// with numeric bounds and string lengths, and `additionalProperties: false`. Each row gets the
// same JSON text, the same values and the same checksums the per-record path would give it, or the
// row is not "ok": a value this SQL cannot answer exactly as JSONata and Ajv would (a string
// `$number` refuses, a non-ASCII `$lowercase`, a record the schema rejects). The caller takes the
// batch this way only when every row is ok, else it runs the per-record path, which quarantines
// with JSONata's and Ajv's own reasons. Anything outside the subset compiles to null.
import jsonata from 'jsonata';
import type { PipelineDefinition } from './pipeline.types';

type Kind = 'string' | 'number';
/**
 * An SQL expression: text for a string, float8 for a number. It is NULL exactly when this SQL
 * cannot answer as JSONata would (the CSV's values are never NULL: COPY runs with FORCE_NOT_NULL),
 * and `||` and the functions used pass a NULL on.
 */
interface Expr {
  kind: Kind;
  sql: string;
}
type Compiled = Expr | 'absent' | null;

type Node = {
  type: string;
  value?: unknown;
  steps?: Node[];
  arguments?: Node[];
  procedure?: { type: string; value: string };
  lhs?: Node;
  rhs?: Node;
  [key: string]: unknown;
};

// JSONata's $number takes these strings (fast-mapping.ts DECIMAL); PostgreSQL's float8 input takes
// more ('NaN', ' 1', '+1'), which JSONata refuses, so the pattern is checked first.
const DECIMAL = `'^-?[0-9]+(\\.[0-9]+)?([Ee][-+]?[0-9]+)?$'`;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const only = (node: object, ...keys: string[]) =>
  Object.entries(node).every(([k, v]) => v === undefined || k === 'position' || keys.includes(k));

/** The PII actions done in SQL (csv-staging.store.ts); `remove` is `staged: false`. */
export type SqlScrub = 'mask' | 'hash' | 'tokenize';

export interface SqlPlan {
  /**
   * Every mapped field in the record's key order: name, kind, SQL value over the raw columns, the
   * alias (`f1`...) the checks name it by, and whether it is staged (`remove` drops it after the check).
   */
  fields: { name: string; kind: Kind; sql: string; alias: string; staged: boolean; scrub?: SqlScrub }[];
  /** Over the aliases, per row: every value is exact and the record passes the target schema. */
  ok: string;
  /** Any string value is built from a literal that needs JSON escaping. */
  literalNeedsEscaping: boolean;
}

/**
 * `columns`: the CSV header, the raw table's columns being `c1`..`cn` in that order (a name given
 * twice is the last one, as csv-parse's record has it).
 */
export function compileSqlPlan(
  definition: Pick<PipelineDefinition, 'mapping' | 'target' | 'pii'>,
  columns: string[],
): SqlPlan | null {
  const byName = new Map<string, number>();
  columns.forEach((c, i) => byName.set(c, i + 1));
  let literalNeedsEscaping = false;

  const compile = (node: Node): Compiled => {
    if (node.type === 'string' && typeof node.value === 'string' && only(node, 'type', 'value')) {
      // eslint-disable-next-line no-control-regex
      if (/["\\\u0000-\u001f]/.test(node.value)) literalNeedsEscaping = true;
      return { kind: 'string', sql: literal(node.value) };
    }
    if (node.type === 'path' && node.steps?.length === 1 && only(node, 'type', 'steps')) {
      const step = node.steps[0]!;
      if (step.type !== 'name' || typeof step.value !== 'string' || !only(step, 'type', 'value')) return null;
      const column = byName.get(step.value);
      if (column !== undefined) return { kind: 'string', sql: `c${column}` };
      // A name every object inherits (`constructor`) is JSONata's to answer.
      return step.value in {} ? null : 'absent';
    }
    if (
      node.type === 'function' &&
      node.procedure?.type === 'variable' &&
      only(node.procedure, 'type', 'value') &&
      node.arguments?.length === 1 &&
      only(node, 'type', 'value', 'arguments', 'procedure')
    ) {
      const arg = compile(node.arguments[0]!);
      if (arg === null || arg === 'absent') return arg;
      switch (node.procedure.value) {
        case 'number':
          if (arg.kind === 'number') return arg;
          return { kind: 'number', sql: `(CASE WHEN ${arg.sql} ~ ${DECIMAL} THEN (${arg.sql})::float8 END)` };
        case 'string':
          return arg.kind === 'string' ? arg : null;
        case 'lowercase':
        case 'uppercase':
          // ASCII only: JavaScript's case mapping and the server's agree there, whatever its locale.
          if (arg.kind !== 'string') return null;
          return {
            kind: 'string',
            sql: `(CASE WHEN octet_length(${arg.sql}) = char_length(${arg.sql}) THEN ${node.procedure.value === 'lowercase' ? 'lower' : 'upper'}(${arg.sql} COLLATE "C") END)`,
          };
        case 'trim':
          // JSONata's $trim: runs of space, tab, CR and LF become one space, then the ends' spaces go.
          if (arg.kind !== 'string') return null;
          return { kind: 'string', sql: `btrim(regexp_replace(${arg.sql}, '[ \\t\\n\\r]+', ' ', 'g'), ' ')` };
        default:
          return null;
      }
    }
    if (
      node.type === 'binary' &&
      node.value === '&' &&
      node.lhs &&
      node.rhs &&
      only(node, 'type', 'value', 'lhs', 'rhs')
    ) {
      const l = compile(node.lhs);
      const r = compile(node.rhs);
      if (l === null || r === null) return null;
      if ((l !== 'absent' && l.kind !== 'string') || (r !== 'absent' && r.kind !== 'string')) return null;
      // An absent side is '' (JSONata's $string of undefined).
      const side = (e: Expr | 'absent') => (e === 'absent' ? "''" : e.sql);
      return { kind: 'string', sql: `(${side(l)} || ${side(r)})` };
    }
    return null;
  };

  const present: (Expr & { name: string; alias: string })[] = [];
  for (const [name, expression] of Object.entries(definition.mapping)) {
    if (!IDENTIFIER.test(name)) return null;
    let ast: Node;
    try {
      ast = jsonata(expression).ast() as unknown as Node;
    } catch {
      return null;
    }
    const c = compile(ast);
    if (c === null) return null;
    if (c !== 'absent') present.push({ name, ...c, alias: `f${present.length + 1}` });
  }
  const checks = schemaChecks(definition.target.schema, present);
  if (checks === null) return null;
  const policy = definition.pii?.fields ?? {};
  if (Object.values(policy).some((action) => !['remove', 'mask', 'hash', 'tokenize'].includes(action))) return null;
  const ok = [...present.map((f) => `${f.alias} IS NOT NULL`), ...checks];
  return {
    // Scrubbing follows the schema check, as on the record path (normalise, check, then scrub).
    fields: present.map((f) => {
      const action = policy[f.name];
      return { ...f, staged: action !== 'remove', ...(action && action !== 'remove' ? { scrub: action } : {}) };
    }),
    ok: ok.length > 0 ? ok.map((c) => `(${c})`).join(' AND ') : 'true',
    literalNeedsEscaping,
  };
}

const NOTES = new Set(['title', 'description', '$comment', 'examples', 'default', '$id', '$schema']);
const PROPERTY_KEYS = new Set([
  'type',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
]);

/** Ajv's answer for a record of these fields as SQL conditions, or null when the schema is outside the subset. */
function schemaChecks(
  schema: Record<string, unknown>,
  present: (Expr & { name: string; alias: string })[],
): string[] | null {
  const fields = new Map(present.map((f) => [f.name, f]));
  const checks: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (NOTES.has(key)) continue;
    if (key === 'type') {
      if (value !== 'object') return null;
    } else if (key === 'required') {
      // A required field the mapping never gives fails every record: the per-record path says so.
      if (!Array.isArray(value) || !value.every((n) => typeof n === 'string' && fields.has(n))) return null;
    } else if (key === 'additionalProperties') {
      if (value === false) {
        const declared = (schema.properties ?? {}) as Record<string, unknown>;
        if (![...fields.keys()].every((n) => Object.prototype.hasOwnProperty.call(declared, n))) return null;
      } else if (value !== true) return null;
    } else if (key === 'properties') {
      if (typeof value !== 'object' || value === null) return null;
      for (const [name, property] of Object.entries(value as Record<string, unknown>)) {
        const field = fields.get(name);
        if (typeof property !== 'object' || property === null || Array.isArray(property)) return null;
        const c = field ? propertyChecks(property as Record<string, unknown>, field) : [];
        if (c === null) return null;
        checks.push(...c);
      }
    } else return null;
  }
  return checks;
}

function propertyChecks(property: Record<string, unknown>, field: Expr & { alias: string }): string[] | null {
  const v = field.alias;
  const checks: string[] = [];
  const number = (v: unknown) =>
    typeof v === 'number' && Number.isFinite(v) ? `'${JSON.stringify(v)}'::float8` : null;
  for (const [key, value] of Object.entries(property)) {
    if (NOTES.has(key)) continue;
    if (!PROPERTY_KEYS.has(key)) return null;
    if (key === 'type') {
      const types = Array.isArray(value) ? value : [value];
      if (field.kind === 'string' && !types.includes('string')) return null;
      if (field.kind === 'number' && !types.includes('number')) {
        if (!types.includes('integer')) return null;
        checks.push(`${v} = trunc(${v})`);
      }
    } else if (key === 'minLength' || key === 'maxLength') {
      if (!Number.isInteger(value)) return null;
      // Ajv counts code points, as char_length does.
      if (field.kind === 'string')
        checks.push(`char_length(${v}) ${key === 'minLength' ? '>=' : '<='} ${value as number}`);
    } else {
      const bound = number(value);
      if (bound === null) return null;
      const op = { minimum: '>=', maximum: '<=', exclusiveMinimum: '>', exclusiveMaximum: '<' }[key]!;
      if (field.kind === 'number') checks.push(`${v} ${op} ${bound}`);
    }
  }
  return checks;
}
