// The artifact pipeline without HTTP: parsing, the contract, step names, hashing and dependency
// extraction, and the bus payload check.
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { InputError } from '../../../platform/errors/domain-errors';
import {
  extractDependencies,
  parseArtifact,
  type WorkflowPackDocument,
} from '../../../subgraphs/packs-registry/pack-artifact';
import { parsePayload } from '../../../platform/contracts/event-contract';
import { RULEPACK_CERTIFIED } from '../../../platform/contracts/rulepack.events';
import { loadWorkflowPackSchema } from '../../../subgraphs/packs-registry/workflow-pack.schema';

const pack = (steps: unknown[], extra: Record<string, unknown> = {}) => ({
  metadata: { pack_id: 'p', version: '1.0.0', workflow_type: 'financial', name: 'P' },
  steps,
  ...extra,
});

function issuesOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('expected an InputError');
}

describe('the workflow-pack contract', () => {
  it('is a draft-07 schema with the /workflow-pack/1.0.0 id that a default Ajv compiles', () => {
    const schema = loadWorkflowPackSchema();
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(String(schema.$id)).toMatch(/\/workflow-pack\/1\.0\.0$/);
    const ajv = new Ajv();
    addFormats(ajv);
    expect(ajv.compile(schema)(pack([{ step: 'a', type: 'hil_approval' }]))).toBe(true);
  });

  it('accepts every step type with saga members', () => {
    const steps = [
      {
        step: 'v',
        type: 'validation',
        rule_pack_id: 'r',
        rule_pack_version: '1.0.0',
        strict_mode: true,
        compensation: 'undo',
        idempotency_key: 'k',
      },
      { step: 'ai', type: 'ai', prompt: 'p', model: 'm', output_field: 'o' },
      { step: 'act', type: 'action', action: 'pay', parameters: { amount: 1 }, compensation: 'refund' },
      { step: 'gate', type: 'hil_approval', reviewer_role: 'reviewer', instructions: 'check' },
      {
        step: 'd',
        type: 'decision',
        branches: [
          {
            name: 'big',
            when: {
              operator: 'all',
              conditions: [
                { field: 'a', operator: '>=', value: 1 },
                { field: 'b', operator: 'matches', value: '^x', flags: 'i' },
              ],
            },
            steps: [{ step: 'x', type: 'hil_approval' }],
          },
        ],
        otherwise: [{ step: 'y', type: 'action', action: 'skip' }],
      },
      {
        step: 'par',
        type: 'parallel',
        steps: [
          { step: 'p1', type: 'action', action: 'a' },
          { step: 'p2', type: 'action', action: 'b' },
        ],
      },
    ];
    expect(
      parseArtifact(pack(steps, { requires_approval: true, input_schema: { type: 'object' } }), 'json').content.steps,
    ).toHaveLength(6);
  });
});

describe('parseArtifact', () => {
  it('hashes the canonical JSON, so key order and format do not change the hash', () => {
    const a = pack([{ step: 's', type: 'action', action: 'x' }]);
    const reordered = {
      steps: a.steps,
      metadata: { name: 'P', workflow_type: 'financial', version: '1.0.0', pack_id: 'p' },
    };
    const expected = createHash('sha256').update(canonicalize(a)!).digest('hex');
    expect(parseArtifact(a, 'json').sha256).toBe(expected);
    expect(parseArtifact(JSON.stringify(reordered, null, 2), 'json').sha256).toBe(expected);
    const yaml =
      'steps:\n  - step: s\n    type: action\n    action: x\nmetadata: {pack_id: p, version: 1.0.0, workflow_type: financial, name: P}\n';
    const parsed = parseArtifact(yaml, 'yaml');
    expect(parsed.sha256).toBe(expected);
    expect(parsed.source).toBe(yaml);
  });

  it('reads YAML scalars as the 1.2 core schema does (no yes/no booleans, no timestamps)', () => {
    const yaml =
      'metadata: {pack_id: p, version: 1.0.0, workflow_type: risk, name: "no"}\nsteps: [{step: s, type: action, action: x, parameters: {on: yes, when: 2001-12-14}}]\n';
    const { content } = parseArtifact(yaml, 'yaml');
    expect((content as WorkflowPackDocument).steps[0]!.parameters).toEqual({ on: 'yes', when: '2001-12-14' });
  });

  it('refuses alias bombs', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(',')}]`,
      ),
    ].join('\n');
    expect(issuesOf(() => parseArtifact(bomb, 'yaml'))[0]).toMatchObject({ loc: ['artifact'], type: 'yaml_invalid' });
  });

  it('refuses artifacts nested deeper than the limit without recursing', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const issues = issuesOf(() =>
      parseArtifact(pack([{ step: 's', type: 'action', action: 'x', parameters: deep }]), 'json'),
    );
    expect(issues[0]!.msg).toMatch(/nested at most/);
  });

  it('names unknown formats and unreadable artifacts', () => {
    expect(issuesOf(() => parseArtifact({}, 'xml'))[0]!.loc).toEqual(['format']);
    expect(issuesOf(() => parseArtifact(undefined, 'json'))[0]).toMatchObject({ loc: ['artifact'], type: 'missing' });
    expect(issuesOf(() => parseArtifact('', 'yaml'))[0]).toMatchObject({ loc: ['artifact'], type: 'yaml_invalid' });
    expect(issuesOf(() => parseArtifact('x'.repeat(600_000), 'json'))[0]).toMatchObject({ type: 'string_too_long' });
    expect(issuesOf(() => parseArtifact('"\ud800"', 'json'))[0]!.msg).toMatch(/surrogate/);
  });
});

describe('extractDependencies', () => {
  it("collects nested steps' references and explicit ones, each once, in first-seen order", () => {
    const deps = extractDependencies(
      pack(
        [
          { step: 'a', type: 'validation', rule_pack_id: 'r1', rule_pack_version: '1.0.0' },
          {
            step: 'p',
            type: 'parallel',
            steps: [{ step: 'b', type: 'validation', rule_pack_id: 'r2', rule_pack_version: '2.0.0' }],
          },
          {
            step: 'd',
            type: 'decision',
            branches: [
              {
                when: { operator: 'is_null', field: 'x' },
                steps: [
                  { step: 'c', type: 'action', action: 'run', workflow_pack_id: 'w', workflow_pack_version: '1.0.0' },
                ],
              },
            ],
            otherwise: [{ step: 'e', type: 'validation', rule_pack_id: 'r1', rule_pack_version: '1.0.0' }],
          },
        ],
        {
          input_schema_ref: { name: 's', version: '1.0.0' },
          dependencies: {
            rule_packs: [
              { pack_id: 'r3', version: '1.0.0' },
              { pack_id: 'r2', version: '2.0.0' },
            ],
            schemas: [{ name: 's', version: '1.0.0' }],
          },
        },
      ) as never,
    );
    expect(deps).toEqual({
      rule_packs: [
        { pack_id: 'r1', version: '1.0.0' },
        { pack_id: 'r2', version: '2.0.0' },
        { pack_id: 'r3', version: '1.0.0' },
      ],
      schemas: [{ name: 's', version: '1.0.0' }],
      workflow_packs: [{ pack_id: 'w', version: '1.0.0' }],
    });
  });
});

// The catalog's consumer reads notices through the contract bus (platform/events/contract-bus.ts):
// these are the payloads it must keep and the ones it must drop.
describe('the rule-pack notice contract', () => {
  const readNotice = (payload: unknown) => {
    const parsed = parsePayload(RULEPACK_CERTIFIED, payload);
    return parsed.ok ? parsed.value : undefined;
  };
  it("keeps the contract's payload and drops anything else", () => {
    expect(
      readNotice({
        pack_id: 'r',
        version: '1.0.0',
        owner_tenant: 't',
        replacement: { pack_id: 'r', version: '2.0.0' },
      }),
    ).toEqual({ pack_id: 'r', version: '1.0.0', owner_tenant: 't', replacement: { pack_id: 'r', version: '2.0.0' } });
    expect(readNotice({ pack_id: 'r', version: '1.0.0', owner_tenant: 't' })?.replacement ?? null).toBeNull();
    for (const bad of [
      null,
      'x',
      { pack_id: 'r', version: '1', owner_tenant: 't' },
      { pack_id: '', version: '1.0.0', owner_tenant: 't' },
      { pack_id: 'r', version: '1.0.0' },
      { pack_id: 'r', version: '1.0.0', owner_tenant: 't', replacement: { pack_id: 'r' } },
    ]) {
      expect(readNotice(bad)).toBeUndefined();
    }
  });
});
