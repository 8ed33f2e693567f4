// The workflow domain's pure rules: decision conditions through the rule engine, which work needs
// a human approval, the decision words, the idempotency key template, step paths and the data
// later steps see.
import { parseDecision, requiresApproval } from '../../../subgraphs/workflow/approval.policy';
import { builtinPack } from '../../../subgraphs/workflow/builtin-packs';
import { conditionHolds } from '../../../subgraphs/workflow/decision.condition';
import { stepsByPath } from '../../../subgraphs/workflow/workflow.data';
import { idempotencyKeyOf, stepData } from '../../../subgraphs/workflow/workflow.data';
import { packProblems } from '../../../subgraphs/workflow/pack.check';
import { InputError } from '../../../platform/errors/domain-errors';
import type { PackStep, StepRecord } from '../../../subgraphs/workflow/workflow.types';

it('decision conditions use the rule-pack operators, composites included', () => {
  expect(conditionHolds({ field: 'amount', operator: '>', value: 100 }, { amount: 150 })).toBe(true);
  expect(conditionHolds({ field: 'amount', operator: '>', value: 100 }, { amount: 50 })).toBe(false);
  expect(
    conditionHolds(
      {
        operator: 'all',
        conditions: [
          { field: 'a', operator: '==', value: 1 },
          { field: 'b', operator: 'is_null' },
        ],
      },
      { a: 1 },
    ),
  ).toBe(true);
  expect(conditionHolds({ operator: 'any', conditions: [{ field: 'a', operator: '==', value: 2 }] }, { a: 1 })).toBe(
    false,
  );
  expect(conditionHolds({ field: 'country', operator: 'in', value: ['FR', 'DE'] }, { country: 'DE' })).toBe(true);
});

it('approval: legal, compliance and risk always; financial above the threshold (or with no amount); operational never; the pack decides when it says', () => {
  const p = (t: 'legal' | 'financial' | 'compliance' | 'risk' | 'operational') => builtinPack(t);
  expect(requiresApproval(p('legal'), 'legal', {}, 100)).toBe(true);
  expect(requiresApproval(p('compliance'), 'compliance', {}, 100)).toBe(true);
  expect(requiresApproval(p('risk'), 'risk', {}, 100)).toBe(true);
  expect(requiresApproval(p('financial'), 'financial', { amount: 100 }, 100)).toBe(false);
  expect(requiresApproval(p('financial'), 'financial', { amount: 100.01 }, 100)).toBe(true);
  expect(requiresApproval(p('financial'), 'financial', {}, 100)).toBe(true);
  expect(requiresApproval(p('operational'), 'operational', {}, 100)).toBe(false);
  expect(requiresApproval({ ...p('legal'), requires_approval: false }, 'legal', {}, 100)).toBe(false);
  expect(requiresApproval({ ...p('operational'), requires_approval: true }, 'operational', {}, 100)).toBe(true);
});

it("decision words: the spec's approved and approve/reject/defer in both forms; anything else is a 422 naming decision", () => {
  expect(['approved', 'approve', 'APPROVE'].map(parseDecision)).toEqual(['approve', 'approve', 'approve']);
  expect(['reject', 'rejected'].map(parseDecision)).toEqual(['reject', 'reject']);
  expect(['defer', 'deferred'].map(parseDecision)).toEqual(['defer', 'defer']);
  for (const bad of ['ok', '', 3, null]) {
    try {
      parseDecision(bad);
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).issues[0]!.loc).toEqual(['decision']);
    }
  }
});

it("idempotency keys: <workflow>:<step> by default, or the pack's template", () => {
  const ids = { workflowId: 'w1', tenantId: 't1' };
  expect(idempotencyKeyOf({ step: 's', type: 'action', action: 'noop' }, ids, {})).toBe('w1:s');
  expect(
    idempotencyKeyOf(
      { step: 's', type: 'action', action: 'noop', idempotency_key: 'pay-{payload.invoice.id}-{tenant_id}' },
      ids,
      { invoice: { id: 42 } },
    ),
  ).toBe('pay-42-t1');
});

it('paths name nested steps; outputs land at output_field in completion order, never on the prototype', () => {
  const steps: PackStep[] = [
    { step: 'a', type: 'action', action: 'set', output_field: 'x.y' },
    {
      step: 'd',
      type: 'decision',
      branches: [{ when: { field: 'k', operator: 'is_null' }, steps: [{ step: 'b', type: 'action', action: 'noop' }] }],
      otherwise: [{ step: 'c', type: 'action', action: 'noop' }],
    },
    {
      step: 'p',
      type: 'parallel',
      steps: [
        { step: 'p1', type: 'action', action: 'set', output_field: '__proto__.polluted' },
        { step: 'p2', type: 'action', action: 'noop' },
      ],
    },
  ];
  const paths = stepsByPath(steps);
  expect([...paths.entries()].map(([k, v]) => `${k}=${v.step}`)).toEqual([
    '0=a',
    '1=d',
    '1.b0.0=b',
    '1.o.0=c',
    '2=p',
    '2.p0=p1',
    '2.p1=p2',
  ]);
  const rec = (path: string, output: unknown, seq: number) =>
    ({ path, status: 'completed', completedSeq: seq, output }) as StepRecord;
  const data = stepData({ k: 1 }, paths, [rec('0', 'first', 1), rec('2.p0', 'bad', 2)]);
  expect(data).toEqual({ k: 1, x: { y: 'first' } });
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

it('packs that cannot run: duplicate step names and sub-workflows (not supported yet) are named', () => {
  const pack = builtinPack('operational');
  expect(packProblems(pack)).toEqual([]);
  expect(packProblems({ ...pack, steps: [...pack.steps, pack.steps[0]] })).toEqual([
    `step name 'prepare' is used twice`,
  ]);
  expect(packProblems({ metadata: pack.metadata })[0]).toContain('steps');
});
