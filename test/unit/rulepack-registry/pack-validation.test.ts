// Submission checks without a database: artifact parsing, the contract schema with paths, the
// registry's metadata requirements, and the engine's refusals passed through with their paths.
import { InputError } from '../../../platform/errors/domain-errors';
import { checkSubmission, type PackCompiler } from '../../../subgraphs/rulepack-registry/pack-validation';

const compiles: PackCompiler = () => undefined;
const rule = { rule_id: 'r1', type: 'FATAL', field: 'amount', operator: '>', value: 0, error_message: 'positive' };
const pack = { metadata: { pack_id: 'payments', version: '1.2.0' }, rules: [rule] };

function issuesOf(work: () => unknown) {
  try {
    work();
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('expected an InputError');
}

describe('checkSubmission', () => {
  it('accepts a pack object and names its id and version', () => {
    expect(checkSubmission({ pack }, compiles)).toEqual({ pack, packId: 'payments', version: '1.2.0' });
  });

  it('parses YAML and JSON artifacts', () => {
    const yaml =
      'metadata:\n  pack_id: payments\n  version: 1.2.0\nrules:\n  - rule_id: r1\n    type: FATAL\n    field: amount\n    operator: ">"\n    value: 0\n    error_message: positive\n';
    expect(checkSubmission({ artifact: yaml, format: 'yaml' }, compiles).pack).toEqual(pack);
    expect(checkSubmission({ artifact: JSON.stringify(pack), format: 'json' }, compiles).pack).toEqual(pack);
  });

  it('names the artifact when it does not parse, and the format when it is missing', () => {
    expect(issuesOf(() => checkSubmission({ artifact: '{"metadata": ', format: 'json' }, compiles))).toEqual([
      expect.objectContaining({ loc: ['artifact'], type: 'json_invalid' }),
    ]);
    expect(issuesOf(() => checkSubmission({ artifact: 'a: [1, 2', format: 'yaml' }, compiles))).toEqual([
      expect.objectContaining({ loc: ['artifact'], type: 'yaml_invalid' }),
    ]);
    expect(issuesOf(() => checkSubmission({ artifact: 'a: 1' }, compiles))).toEqual([
      expect.objectContaining({ loc: ['format'], type: 'missing' }),
    ]);
    expect(issuesOf(() => checkSubmission({ artifact: 'a: 1', format: 'xml' }, compiles))).toEqual([
      expect.objectContaining({ loc: ['format'], type: 'enum' }),
    ]);
    expect(issuesOf(() => checkSubmission({}, compiles))).toEqual([
      expect.objectContaining({ loc: ['pack'], type: 'missing' }),
    ]);
    expect(issuesOf(() => checkSubmission({ pack, artifact: 'x', format: 'json' }, compiles))[0]!.loc).toEqual([
      'artifact',
    ]);
  });

  it('refuses YAML alias bombs and custom tags as input errors', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n');
    expect(issuesOf(() => checkSubmission({ artifact: bomb, format: 'yaml' }, compiles))[0]!.loc).toEqual(['artifact']);
    const tagged = 'metadata: !!js/function "function(){}"\nrules: []';
    expect(issuesOf(() => checkSubmission({ artifact: tagged, format: 'yaml' }, compiles))[0]!.loc[0]).toBe('artifact');
  });

  it('requires metadata.pack_id and a semantic metadata.version', () => {
    expect(issuesOf(() => checkSubmission({ pack: { metadata: {}, rules: [rule] } }, compiles))).toEqual([
      { loc: ['pack', 'metadata', 'pack_id'], msg: 'Field required', type: 'missing' },
      { loc: ['pack', 'metadata', 'version'], msg: 'Field required', type: 'missing' },
    ]);
    expect(
      issuesOf(() => checkSubmission({ pack: { ...pack, metadata: { pack_id: 'p', version: 'v1' } } }, compiles)),
    ).toEqual([expect.objectContaining({ loc: ['pack', 'metadata', 'version'], type: 'semver' })]);
  });

  it('reports schema violations at their path in the pack', () => {
    const bad = { ...pack, rules: [{ ...rule, operator: 'eval' }, { ...rule, type: 'CRITICAL' }, { rule_id: 'r3' }] };
    const issues = issuesOf(() => checkSubmission({ pack: bad }, compiles));
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['pack', 'rules', 0, 'operator'], type: 'enum' }),
        expect.objectContaining({ loc: ['pack', 'rules', 1, 'type'], type: 'enum' }),
        expect.objectContaining({ loc: ['pack', 'rules', 2, 'field'], type: 'missing' }),
      ]),
    );
    // Paths inside an artifact are rooted at `artifact`.
    const fromArtifact = issuesOf(() =>
      checkSubmission(
        { artifact: JSON.stringify({ ...pack, rules: [{ ...rule, operator: 'eval' }] }), format: 'json' },
        compiles,
      ),
    );
    expect(fromArtifact).toEqual([expect.objectContaining({ loc: ['artifact', 'rules', 0, 'operator'] })]);
    expect(issuesOf(() => checkSubmission({ pack: { ...pack, extra: 1 } }, compiles))).toEqual([
      expect.objectContaining({ loc: ['pack', 'extra'], type: 'extra_forbidden' }),
    ]);
  });

  it("passes the engine's refusals on with their paths", () => {
    const refuses: PackCompiler = () => {
      throw Object.assign(new Error('invalid rule pack'), {
        issues: [
          { path: ['rules', 0, 'value'], message: 'pattern may backtrack catastrophically', type: 'unsafe_regex' },
        ],
      });
    };
    expect(issuesOf(() => checkSubmission({ pack }, refuses))).toEqual([
      { loc: ['pack', 'rules', 0, 'value'], msg: 'pattern may backtrack catastrophically', type: 'unsafe_regex' },
    ]);
    const crashes: PackCompiler = () => {
      throw new TypeError('engine bug');
    };
    expect(() => checkSubmission({ pack }, crashes)).toThrow(TypeError);
  });

  it('refuses packs nested past the limit and text the database could not keep, before any recursion', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(
      issuesOf(() =>
        checkSubmission({ pack: { ...pack, metadata: { ...pack.metadata, description: deep } } }, compiles),
      )[0]!.msg,
    ).toMatch(/nested at most/);
    expect(
      issuesOf(() =>
        checkSubmission({ pack: { ...pack, rules: [{ ...rule, error_message: 'a\u0000b' }] } }, compiles),
      )[0]!.loc,
    ).toEqual(['pack', 'rules', 0, 'error_message']);
    expect(
      issuesOf(() =>
        checkSubmission({ pack: { ...pack, rules: [{ ...rule, error_message: '\ud800' }] } }, compiles),
      )[0]!.loc,
    ).toEqual(['pack', 'rules', 0, 'error_message']);
    expect(issuesOf(() => checkSubmission({ pack: [pack] as unknown as object }, compiles))[0]).toMatchObject({
      loc: ['pack'],
      type: 'dict_type',
    });
  });
});
