// compileRulePack: schema, then semantics, then the compiled form. Every path becomes an accessor,
// every operator a closure over its operand, every pattern one re2js program, every message its
// redacted text, all once per pack; a run only calls closures.
import crypto from 'node:crypto';
import canonicalize from 'canonicalize';
import { redactText } from '../redaction';
import { compileField, FieldPathError, type CompiledField } from './field-path';
import {
  isNotNullTest,
  isNullTest,
  literalTest,
  PAIR_TESTS,
  patternTest,
  rangeTest,
  requiredTest,
  type LiteralOperator,
  type PairTest,
  type ValueTest,
} from './operators';
import { prescanPack } from './pack-prescan';
import { compilePattern, PatternError } from './pattern';
import { resolveLimits, type RuleEngineLimits } from './rule-engine.limits';
import { RulePackError, type RulePackIssue } from './rule-pack.error';
import { schemaIssues } from './rule-pack.schema-check';
import type { Severity } from './rule-pack.types';
import { isScalar } from './value-semantics';

/** A compiled pack. Opaque: only runRulePack can run it. */
export interface CompiledRulePack {
  readonly packId?: string;
  readonly version?: string;
  readonly ruleCount: number;
  /** Hex SHA-256 of the pack's RFC 8785 canonical JSON (what the registry signs and stores). */
  readonly sha256: string;
}

/** A whole-record test. */
export type Predicate = (record: unknown) => boolean;

export interface CompiledRule {
  readonly ruleId: string;
  readonly severity: Severity;
  readonly field: string;
  readonly message: string;
  /** Absent: the rule applies to every record. */
  readonly when: Predicate | undefined;
  readonly test: Predicate;
}

export interface PackInternals {
  readonly rules: readonly CompiledRule[];
  readonly limits: RuleEngineLimits;
}

// The compiled rules live here, keyed by the public object, so a caller cannot forge or alter a
// compiled pack and runRulePack never runs something compileRulePack did not check.
const internals = new WeakMap<CompiledRulePack, PackInternals>();

export function internalsOf(pack: CompiledRulePack): PackInternals {
  const found = internals.get(pack);
  if (!found) throw new TypeError('not a compiled rule pack: pass the result of compileRulePack');
  return found;
}

type Json = Record<string, unknown>;
type Path = (string | number)[];

const LITERAL_OPERATORS = new Set<string>([
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  'not_in',
  'contains',
  'starts_with',
  'ends_with',
]);
const COMPOSITES = new Set<string>(['all', 'any', 'not']);
const OPERAND_KEYS = ['value', 'value_field', 'min', 'max', 'flags', 'conditions'] as const;

function allowedOperands(operator: string): readonly string[] {
  if (LITERAL_OPERATORS.has(operator)) return ['value', 'value_field'];
  if (operator === 'matches') return ['value', 'flags'];
  if (operator === 'range') return ['min', 'max'];
  if (COMPOSITES.has(operator)) return ['conditions'];
  return []; // is_null, is_not_null, required
}

const describe = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** Why a literal operand does not suit its operator, or undefined when it does. */
function literalOperandProblem(operator: string, value: unknown): string | undefined {
  switch (operator) {
    case '==':
    case '!=':
      return isScalar(value)
        ? undefined
        : `${operator} compares with a string, number, boolean or null, not ${describe(value)}`;
    case '<':
    case '<=':
    case '>':
    case '>=':
      return typeof value === 'number' || typeof value === 'string'
        ? undefined
        : `${operator} compares with a number or a string, not ${describe(value)}`;
    case 'in':
    case 'not_in':
      if (!Array.isArray(value)) return `${operator} needs an array of values, not ${describe(value)}`;
      return value.every(isScalar) ? undefined : `${operator} lists strings, numbers, booleans or null only`;
    case 'contains':
      return isScalar(value) && value !== null
        ? undefined
        : `contains looks for a string, number or boolean, not ${describe(value)}`;
    case 'starts_with':
    case 'ends_with':
      return typeof value === 'string' ? undefined : `${operator} needs a string, not ${describe(value)}`;
    default:
      return undefined;
  }
}

class Compiler {
  readonly issues: RulePackIssue[] = [];
  private readonly fields = new Map<string, CompiledField>();

  constructor(private readonly limits: RuleEngineLimits) {}

  issue(path: Path, message: string, type: string): void {
    this.issues.push({ path, message, type });
  }

  field(raw: string, path: Path, allowWildcard = true): CompiledField | undefined {
    let compiled = this.fields.get(raw);
    if (!compiled) {
      try {
        compiled = compileField(raw);
      } catch (err) {
        if (!(err instanceof FieldPathError)) throw err;
        this.issue(path, `invalid field path: ${err.message}`, 'field_path');
        return undefined;
      }
      this.fields.set(raw, compiled);
    }
    if (!allowWildcard && compiled.wildcard) {
      this.issue(path, 'value_field must name one value (no wildcard)', 'field_path');
      return undefined;
    }
    return compiled;
  }

  /**
   * One condition (a rule's own test, a `when`, or an entry of `conditions`) as a predicate, or
   * undefined after recording issues. `inherited` is the enclosing field, used when the condition
   * names none.
   */
  condition(node: Json, path: Path, inherited: string | undefined, level: number): Predicate | undefined {
    if (level > this.limits.maxDepth) {
      this.issue(path, `conditions are nested deeper than ${this.limits.maxDepth} levels`, 'depth_limit');
      return undefined;
    }
    const operator = node.operator as string;
    const allowed = allowedOperands(operator);
    let ok = true;
    for (const key of OPERAND_KEYS) {
      if (node[key] !== undefined && !allowed.includes(key)) {
        this.issue([...path, key], `${operator} takes no ${key}`, 'operand_unexpected');
        ok = false;
      }
    }
    const fieldName = typeof node.field === 'string' ? node.field : inherited;
    if (COMPOSITES.has(operator)) return ok ? this.composite(node, path, fieldName, level) : undefined;
    if (fieldName === undefined) {
      this.issue(
        [...path, 'field'],
        `${operator} needs a field (here or on an enclosing condition)`,
        'operand_missing',
      );
      return undefined;
    }
    const field = this.field(fieldName, [...path, 'field']);
    const test = this.leafTest(node, path, operator);
    if (!ok || !field || !test) return undefined;
    if (typeof test === 'function') {
      if (!field.wildcard) {
        const get = field.get;
        return (record) => test(get(record));
      }
      const visit = (v: unknown): boolean => test(v);
      return (record) => field.every(record, visit, undefined);
    }
    const { pair, other } = test;
    if (!field.wildcard) {
      const get = field.get;
      const getOther = other.get;
      return (record) => pair(get(record), getOther(record));
    }
    return (record) => field.every(record, pair, other.get(record));
  }

  private leafTest(
    node: Json,
    path: Path,
    operator: string,
  ): ValueTest | { pair: PairTest; other: CompiledField } | undefined {
    switch (operator) {
      case 'is_null':
        return isNullTest;
      case 'is_not_null':
        return isNotNullTest;
      case 'required':
        return requiredTest;
      case 'range': {
        const { min, max } = node as { min?: number; max?: number };
        if (min === undefined && max === undefined) {
          this.issue([...path, 'min'], 'range needs min, max or both', 'operand_missing');
          return undefined;
        }
        if (min !== undefined && max !== undefined && min > max) {
          this.issue([...path, 'max'], 'max is below min', 'operand_value');
          return undefined;
        }
        return rangeTest(min, max);
      }
      case 'matches': {
        if (typeof node.value !== 'string') {
          this.issue(
            [...path, 'value'],
            node.value === undefined
              ? 'matches needs the pattern in value'
              : `matches needs a string pattern, not ${describe(node.value)}`,
            node.value === undefined ? 'operand_missing' : 'operand_type',
          );
          return undefined;
        }
        try {
          return patternTest(
            compilePattern(node.value, node.flags as string | undefined, this.limits.maxPatternLength),
          );
        } catch (err) {
          if (!(err instanceof PatternError)) throw err;
          this.issue([...path, 'value'], err.message, 'pattern');
          return undefined;
        }
      }
      default: {
        // The literal operators (the schema admits no other names).
        const hasValue = node.value !== undefined;
        const hasField = node.value_field !== undefined;
        if (hasValue === hasField) {
          this.issue(
            [...path, hasValue ? 'value_field' : 'value'],
            hasValue ? 'give value or value_field, not both' : `${operator} needs value or value_field`,
            hasValue ? 'operand_conflict' : 'operand_missing',
          );
          return undefined;
        }
        if (hasField) {
          const other = this.field(node.value_field as string, [...path, 'value_field'], false);
          return other ? { pair: PAIR_TESTS[operator as LiteralOperator], other } : undefined;
        }
        const problem = literalOperandProblem(operator, node.value);
        if (problem) {
          this.issue([...path, 'value'], problem, 'operand_type');
          return undefined;
        }
        return literalTest(operator as LiteralOperator, node.value);
      }
    }
  }

  private composite(node: Json, path: Path, fieldName: string | undefined, level: number): Predicate | undefined {
    const conditions = node.conditions as Json[] | undefined;
    if (!conditions) {
      this.issue([...path, 'conditions'], `${node.operator as string} needs conditions`, 'operand_missing');
      return undefined;
    }
    const parts: Predicate[] = [];
    conditions.forEach((c, i) => {
      const p = this.condition(c, [...path, 'conditions', i], fieldName, level + 1);
      if (p) parts.push(p);
    });
    if (parts.length !== conditions.length) return undefined;
    const n = parts.length;
    const only = parts[0]!;
    switch (node.operator) {
      case 'all':
        return n === 1
          ? only
          : (record) => {
              for (let i = 0; i < n; i++) if (!parts[i]!(record)) return false;
              return true;
            };
      case 'any':
        return n === 1
          ? only
          : (record) => {
              for (let i = 0; i < n; i++) if (parts[i]!(record)) return true;
              return false;
            };
      default: // not: none of the conditions holds (with one condition, its negation)
        return (record) => {
          for (let i = 0; i < n; i++) if (parts[i]!(record)) return false;
          return true;
        };
    }
  }

  rule(node: Json, index: number): CompiledRule | undefined {
    const path: Path = ['rules', index];
    const field = node.field as string;
    const test = this.condition(node, path, field, 1);
    let when: Predicate | undefined;
    if (node.when !== undefined) {
      when = this.condition(node.when as Json, [...path, 'when'], field, 2);
      if (!when) return undefined;
    }
    if (!test) return undefined;
    return {
      ruleId: node.rule_id as string,
      severity: node.type as Severity,
      field,
      // Fixed text from the pack, never the record's values; redacted anyway, since a pack author
      // could have written PII into it, and results are shown to other people.
      message: redactText(node.error_message as string).text,
      when,
      test,
    };
  }
}

export function compileRulePack(pack: unknown, limits?: Partial<RuleEngineLimits>): CompiledRulePack {
  const resolved = resolveLimits(limits);
  const scan = prescanPack(pack, resolved.maxDepth, resolved.maxPackBytes);
  if (scan) throw new RulePackError([scan]);
  const canonical = canonicalize(pack);
  if (canonical === undefined)
    throw new RulePackError([{ path: [], message: 'the pack is not JSON', type: 'json_value' }]);
  if (Buffer.byteLength(canonical, 'utf8') > resolved.maxPackBytes) {
    throw new RulePackError([
      { path: [], message: `the pack is larger than ${resolved.maxPackBytes} bytes`, type: 'pack_too_large' },
    ]);
  }
  const shapeIssues = schemaIssues(pack);
  if (shapeIssues.length > 0) throw new RulePackError(shapeIssues);

  const { metadata, rules } = pack as { metadata: Json; rules: Json[] };
  if (rules.length > resolved.maxRules) {
    throw new RulePackError([
      { path: ['rules'], message: `a pack holds at most ${resolved.maxRules} rules`, type: 'too_many_rules' },
    ]);
  }
  const compiler = new Compiler(resolved);
  const compiled: CompiledRule[] = [];
  const ids = new Map<string, number>();
  rules.forEach((node, i) => {
    const id = node.rule_id as string;
    const first = ids.get(id);
    if (first !== undefined)
      compiler.issue(
        ['rules', i, 'rule_id'],
        `rule_id ${JSON.stringify(id)} is already used by rule ${first}`,
        'duplicate_rule_id',
      );
    else ids.set(id, i);
    const rule = compiler.rule(node, i);
    if (rule) compiled.push(rule);
  });
  if (compiler.issues.length > 0) throw new RulePackError(compiler.issues);

  const result: CompiledRulePack = Object.freeze({
    ...(typeof metadata.pack_id === 'string' ? { packId: metadata.pack_id } : {}),
    ...(typeof metadata.version === 'string' ? { version: metadata.version } : {}),
    ruleCount: compiled.length,
    sha256: crypto.createHash('sha256').update(canonical, 'utf8').digest('hex'),
  });
  internals.set(result, { rules: compiled, limits: resolved });
  return result;
}
