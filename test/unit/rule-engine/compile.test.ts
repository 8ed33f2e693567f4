// compileRulePack: the contract's schema, then the operands' meaning, patterns, paths and limits.
// Every refusal is a RulePackError whose issues name the place in the pack.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import canonicalize from 'canonicalize';
import {
  compileRulePack,
  DEFAULT_RULE_ENGINE_LIMITS,
  RulePackError,
  type RulePackIssue,
} from '../../../platform/rule-engine';
import { pack, passes, rule } from './pack-builders';

function issuesOf(candidate: unknown, limits?: Parameters<typeof compileRulePack>[1]): RulePackIssue[] {
  try {
    compileRulePack(candidate, limits);
  } catch (err) {
    expect(err).toBeInstanceOf(RulePackError);
    return (err as RulePackError).issues;
  }
  throw new Error('the pack compiled');
}

describe('a valid pack', () => {
  test('compiles to its id, version, rule count and the SHA-256 of its canonical JSON', () => {
    const p = pack(rule({ field: 'a', operator: 'required' }), rule({ field: 'b', operator: '>', value: 1 }, 'r2'));
    const compiled = compileRulePack(p);
    expect(compiled).toEqual({
      packId: 'test.pack',
      version: '1.0.0',
      ruleCount: 2,
      sha256: crypto.createHash('sha256').update(canonicalize(p)!).digest('hex'),
    });
    expect(Object.isFrozen(compiled)).toBe(true);
  });

  test('the hash does not depend on member order', () => {
    const a = {
      metadata: { version: '1', pack_id: 'p' },
      rules: [{ rule_id: 'r', type: 'INFO', field: 'x', operator: 'is_null', error_message: 'm' }],
    };
    const b = {
      rules: [{ error_message: 'm', operator: 'is_null', field: 'x', type: 'INFO', rule_id: 'r' }],
      metadata: { pack_id: 'p', version: '1' },
    };
    expect(compileRulePack(a).sha256).toBe(compileRulePack(b).sha256);
    expect(compileRulePack(a).sha256).not.toBe(
      compileRulePack({ ...a, metadata: { ...a.metadata, version: '2' } }).sha256,
    );
  });

  test('metadata may omit pack_id and version', () => {
    const compiled = compileRulePack({ metadata: {}, rules: [rule({ field: 'a', operator: 'required' })] });
    expect(compiled.packId).toBeUndefined();
    expect(compiled.version).toBeUndefined();
  });

  test('pack text is data, never code: an operand that looks like JavaScript is compared as text', () => {
    const code = "');process.exit(1);//";
    expect(passes({ field: 'a', operator: '==', value: code }, { a: code })).toBe(true);
    expect(passes({ field: `constructor.constructor('return process')()`, operator: 'is_null' }, {})).toBe(true);
  });

  test("the engine's source evaluates nothing as code (no eval, Function or vm)", () => {
    const root = path.join(__dirname, '../../../platform');
    const files = ['rule-engine', 'rule-engine/input', 'redaction'].flatMap((dir) =>
      fs
        .readdirSync(path.join(root, dir))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => path.join(root, dir, f)),
    );
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const source = fs.readFileSync(file, 'utf8');
      expect({
        file,
        hits: source.match(/\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(|['"](node:)?vm['"]/g),
      }).toEqual({ file, hits: null });
    }
  });
});

describe('schema issues name the pack location', () => {
  test('an unknown severity', () => {
    expect(issuesOf(pack(rule({ field: 'a', operator: 'required', type: 'FATALISH' })))).toEqual([
      { path: ['rules', 0, 'type'], message: 'must be one of "FATAL", "WARNING", "INFO"', type: 'enum' },
    ]);
  });

  test('an unknown operator', () => {
    expect(issuesOf(pack(rule({ field: 'a', operator: 'eval' })))).toContainEqual(
      expect.objectContaining({ path: ['rules', 0, 'operator'], type: 'enum' }),
    );
  });

  test('a missing member and an unknown member', () => {
    const issues = issuesOf(pack({ rule_id: 'r', type: 'FATAL', field: 'a', operator: 'required', script: 'x' }));
    expect(issues).toContainEqual({
      path: ['rules', 0, 'error_message'],
      message: "must have required property 'error_message'",
      type: 'required',
    });
    expect(issues).toContainEqual({
      path: ['rules', 0, 'script'],
      message: 'unknown member',
      type: 'additionalProperties',
    });
  });

  test('not an object, no rules, an empty rule list', () => {
    expect(issuesOf('rules')).toContainEqual(expect.objectContaining({ path: [], type: 'type' }));
    expect(issuesOf({ metadata: {} })).toContainEqual(expect.objectContaining({ path: ['rules'], type: 'required' }));
    expect(issuesOf({ metadata: {}, rules: [] })).toContainEqual(
      expect.objectContaining({ path: ['rules'], type: 'minItems' }),
    );
  });

  test('a bad date-time in metadata (formats are checked)', () => {
    expect(
      issuesOf({ ...pack(rule({ field: 'a', operator: 'required' })), metadata: { created_at: 'yesterday' } }),
    ).toContainEqual(expect.objectContaining({ path: ['metadata', 'created_at'], type: 'format' }));
  });
});

describe('operand issues', () => {
  test.each([
    [{ field: 'a', operator: '==' }, ['rules', 0, 'value'], 'operand_missing'],
    [{ field: 'a', operator: '==', value: 1, value_field: 'b' }, ['rules', 0, 'value_field'], 'operand_conflict'],
    [{ field: 'a', operator: '==', value: { x: 1 } }, ['rules', 0, 'value'], 'operand_type'],
    [{ field: 'a', operator: '<', value: true }, ['rules', 0, 'value'], 'operand_type'],
    [{ field: 'a', operator: '<', value: null }, ['rules', 0, 'value'], 'operand_type'],
    [{ field: 'a', operator: 'in', value: 'USD' }, ['rules', 0, 'value'], 'operand_type'],
    [{ field: 'a', operator: 'in', value: [['USD']] }, ['rules', 0, 'value'], 'operand_type'],
    [{ field: 'a', operator: 'contains', value: null }, ['rules', 0, 'value'], 'operand_type'],
    [{ field: 'a', operator: 'starts_with', value: 5 }, ['rules', 0, 'value'], 'operand_type'],
    [{ field: 'a', operator: 'matches' }, ['rules', 0, 'value'], 'operand_missing'],
    [{ field: 'a', operator: 'matches', value: 5 }, ['rules', 0, 'value'], 'operand_type'],
    [{ field: 'a', operator: 'matches', value_field: 'b' }, ['rules', 0, 'value_field'], 'operand_unexpected'],
    [{ field: 'a', operator: 'range' }, ['rules', 0, 'min'], 'operand_missing'],
    [{ field: 'a', operator: 'range', min: 5, max: 1 }, ['rules', 0, 'max'], 'operand_value'],
    [{ field: 'a', operator: 'range', value: 5 }, ['rules', 0, 'value'], 'operand_unexpected'],
    [{ field: 'a', operator: 'required', value: 1 }, ['rules', 0, 'value'], 'operand_unexpected'],
    [{ field: 'a', operator: 'is_null', flags: 'i' }, ['rules', 0, 'flags'], 'operand_unexpected'],
    [
      { field: 'a', operator: '==', value: 1, conditions: [{ operator: 'is_null' }] },
      ['rules', 0, 'conditions'],
      'operand_unexpected',
    ],
    [{ field: 'a', operator: 'all' }, ['rules', 0, 'conditions'], 'operand_missing'],
    [{ field: 'a', operator: '==', value_field: 'items[*].b' }, ['rules', 0, 'value_field'], 'field_path'],
  ])('%j -> %j %s', (spec, where, type) => {
    expect(issuesOf(pack(rule(spec)))).toContainEqual(expect.objectContaining({ path: where, type }));
  });

  test('issues inside composites and when name their nested location', () => {
    const issues = issuesOf(
      pack(
        rule({ field: 'a', operator: 'required' }),
        rule(
          {
            field: 'a',
            operator: 'any',
            conditions: [{ operator: 'is_null' }, { operator: 'all', conditions: [{ field: 'b', operator: '>' }] }],
          },
          'r2',
        ),
        rule({ field: 'a', operator: 'required', when: { field: 'b', operator: 'in', value: 3 } }, 'r3'),
      ),
    );
    expect(issues).toEqual([
      expect.objectContaining({
        path: ['rules', 1, 'conditions', 1, 'conditions', 0, 'value'],
        type: 'operand_missing',
      }),
      expect.objectContaining({ path: ['rules', 2, 'when', 'value'], type: 'operand_type' }),
    ]);
  });

  test('every problem in the pack is reported at once', () => {
    const issues = issuesOf(
      pack(
        rule({ field: 'a', operator: '==' }, 'r1'),
        rule({ field: 'a', operator: 'matches', value: '(?=x)' }, 'r2'),
        rule({ field: 'a..b', operator: 'required' }, 'r3'),
        rule({ field: 'a', operator: 'required' }, 'r1'),
      ),
    );
    expect(issues.map((i) => [i.path, i.type])).toEqual([
      [['rules', 0, 'value'], 'operand_missing'],
      [['rules', 1, 'value'], 'pattern'],
      [['rules', 2, 'field'], 'field_path'],
      [['rules', 3, 'rule_id'], 'duplicate_rule_id'],
    ]);
  });
});

describe('patterns', () => {
  test.each([
    ['backreference', '(a)\\1'],
    ['lookahead', 'a(?=b)'],
    ['negative lookahead', 'a(?!b)'],
    ['lookbehind', '(?<=a)b'],
    ['negative lookbehind', '(?<!a)b'],
    ["nested repetition past RE2's bound", '(a{1000}){1000}'],
    ['an unbalanced group', '(abc'],
  ])("%s is refused, naming the rule's value", (_, pattern) => {
    const [issue] = issuesOf(pack(rule({ field: 'a', operator: 'matches', value: pattern }, 'p1')));
    expect(issue).toEqual({ path: ['rules', 0, 'value'], message: expect.stringContaining('RE2'), type: 'pattern' });
  });

  test('patterns longer than maxPatternLength are refused', () => {
    expect(
      issuesOf(pack(rule({ field: 'a', operator: 'matches', value: 'a'.repeat(21) })), { maxPatternLength: 20 }),
    ).toEqual([expect.objectContaining({ path: ['rules', 0, 'value'], type: 'pattern' })]);
    expect(() =>
      compileRulePack(pack(rule({ field: 'a', operator: 'matches', value: 'a'.repeat(20) })), { maxPatternLength: 20 }),
    ).not.toThrow();
  });

  test('a nested-quantifier pattern RE2 accepts compiles (it runs in linear time)', () => {
    expect(() => compileRulePack(pack(rule({ field: 'a', operator: 'matches', value: '^(a+)+$' })))).not.toThrow();
  });
});

describe('paths', () => {
  test.each([
    ['$..price', 'recursive descent'],
    ['$.items[?(@.price > 1)]', 'filter'],
    ['items[-1]', 'unsupported index'],
    ['items[0:2]', 'unsupported index'],
    ['items[', 'unterminated'],
    ['a.', 'empty name'],
    ["$['a", 'unterminated'],
  ])('%s is refused (%s)', (field, why) => {
    expect(issuesOf(pack(rule({ field, operator: 'required' })))).toEqual([
      { path: ['rules', 0, 'field'], message: expect.stringContaining(why), type: 'field_path' },
    ]);
  });
});

describe('limits', () => {
  const nested = (depth: number): Record<string, unknown> =>
    depth === 1 ? { operator: 'is_null' } : { operator: 'not', conditions: [nested(depth - 1)] };

  test('conditions nested deeper than maxDepth are refused, naming where', () => {
    expect(() =>
      compileRulePack(pack(rule({ field: 'a', ...nested(DEFAULT_RULE_ENGINE_LIMITS.maxDepth) }))),
    ).not.toThrow();
    const issues = issuesOf(pack(rule({ field: 'a', ...nested(4) })), { maxDepth: 3 });
    expect(issues).toEqual([
      expect.objectContaining({
        path: ['rules', 0, 'conditions', 0, 'conditions', 0, 'conditions', 0],
        type: 'depth_limit',
      }),
    ]);
  });

  test('a when counts as a level', () => {
    expect(issuesOf(pack(rule({ field: 'a', operator: 'required', when: nested(2) })), { maxDepth: 2 })).toEqual([
      expect.objectContaining({ type: 'depth_limit' }),
    ]);
  });

  test('a pack nested thousands of levels deep is refused without recursion', () => {
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(issuesOf(pack(rule({ field: 'a', operator: '==', value })))).toEqual([
      expect.objectContaining({ type: 'depth_limit' }),
    ]);
  });

  test('a cyclic pack is refused', () => {
    const p = pack(rule({ field: 'a', operator: 'required' }));
    (p.metadata as Record<string, unknown>).self = p;
    expect(issuesOf(p)).toEqual([expect.objectContaining({ type: 'depth_limit' })]);
  });

  test('values JSON cannot carry are refused', () => {
    expect(issuesOf(pack(rule({ field: 'a', operator: '==', value: Infinity })))).toEqual([
      expect.objectContaining({ path: ['rules', 0, 'value'], type: 'json_value' }),
    ]);
    expect(issuesOf(pack(rule({ field: 'a', operator: '==', value: () => 1 })))).toEqual([
      expect.objectContaining({ type: 'json_value' }),
    ]);
    expect(issuesOf(pack(rule({ field: 'a', operator: '==', value: new Date() })))).toEqual([
      expect.objectContaining({ type: 'json_value' }),
    ]);
  });

  test('maxPackBytes', () => {
    const p = pack(rule({ field: 'a', operator: 'in', value: Array.from({ length: 200 }, (_, i) => `value-${i}`) }));
    const size = Buffer.byteLength(canonicalize(p)!);
    expect(() => compileRulePack(p, { maxPackBytes: size })).not.toThrow();
    expect(issuesOf(p, { maxPackBytes: size - 1 })).toEqual([
      expect.objectContaining({ path: [], type: 'pack_too_large' }),
    ]);
  });

  test('maxRules', () => {
    const rules = Array.from({ length: 6 }, (_, i) => rule({ field: 'a', operator: 'required' }, `r${i}`));
    expect(() => compileRulePack(pack(...rules.slice(0, 5)), { maxRules: 5 })).not.toThrow();
    expect(issuesOf(pack(...rules), { maxRules: 5 })).toEqual([
      expect.objectContaining({ path: ['rules'], type: 'too_many_rules' }),
    ]);
  });

  test('a limit must be a positive integer', () => {
    expect(() => compileRulePack(pack(rule({ field: 'a', operator: 'required' })), { maxDepth: 0 })).toThrow(
      RangeError,
    );
  });
});
