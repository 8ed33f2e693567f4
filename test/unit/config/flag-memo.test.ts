// FlagSet's per-flag memo: a flag whose rule reads only fixed context keys answers again from
// memory for the same values there. What must hold: every answer is flagd-core's answer for that
// context (a fresh FlagSet's first call is flagd-core's), contexts that differ only in type,
// null against absent, inherited or nested values never share an answer, and rules that read
// the time or more than fixed keys are evaluated every time.
import { AnswerMemo, UNKEYED } from '../../../platform/flags/answer-memo';
import { FlagSet } from '../../../platform/flags/flag-set';
import { targetingInputs } from '../../../platform/flags/targeting-inputs';

const flagSet = (targeting: unknown) =>
  new FlagSet({
    flags: { f: { state: 'ENABLED', variants: { on: 'on', off: 'off' }, defaultVariant: 'off', targeting } },
  });
const valueOf = (set: FlagSet, context: Record<string, unknown>) =>
  (set.evaluate('f', context as never) as { value?: unknown }).value;

describe('targeting inputs', () => {
  it('lists the top-level keys a rule reads, with targetingKey (last) for fractional', () => {
    expect(
      targetingInputs({
        if: [
          { '===': [{ var: 'plan' }, 'gold'] },
          'on',
          { fractional: [{ cat: [{ var: 'tenantId' }, { var: '$flagd.flagKey' }] }, ['on', 10], ['off', 90]] },
        ],
      }),
    ).toEqual(['plan', 'tenantId', 'targetingKey']);
    expect(targetingInputs({ in: [{ var: 'user.email' }, ['a@x.io']] })).toEqual(['user']);
    expect(targetingInputs({ var: ['plan', { var: 'fallbackPlan' }] })).toEqual(['fallbackPlan', 'plan']);
  });

  it('gives up on the time, computed or empty paths, iterators, references and unknown operators', () => {
    for (const rule of [
      { '>': [{ var: '$flagd.timestamp' }, 0] },
      { var: '$flagd' },
      { var: '' },
      { var: [{ cat: ['pl', 'an'] }] },
      { var: 'a\\.b' },
      { some: [{ var: 'tags' }, { '===': [{ var: '' }, 'x'] }] },
      { $ref: 'shared' },
      { now: [] },
      { var: 'constructor.name' },
      { '===': [{ var: 'a' }, 1], '!==': [1, 2] },
    ])
      expect({ rule, inputs: targetingInputs(rule) }).toEqual({ rule, inputs: null });
  });
});

describe('FlagSet memo', () => {
  // The branches tell apart contexts a careless key would merge: 1, "1" and true, a value and
  // its prefix.
  const rule = {
    if: [
      { '===': [{ var: 'seats' }, 1] },
      'on',
      { '===': [{ var: 'plan' }, 'gold'] },
      'on',
      { in: [{ var: 'targetingKey' }, ['u2']] },
      'on',
      'off',
    ],
  };
  const contexts: Record<string, unknown>[] = [
    { seats: 1 },
    { seats: '1' },
    { seats: true },
    { plan: 'gold' },
    { plan: 'gol' },
    {},
    { targetingKey: 'u2' },
    { targetingKey: 'u' },
    { targetingKey: 'u2', seats: 2, unrelated: 'x' },
  ];

  it('answers every context as flagd-core does, in any order and again', () => {
    const memo = flagSet(rule);
    for (const order of [contexts, [...contexts].reverse(), contexts])
      for (const context of order) {
        const fresh = flagSet(rule).evaluate('f', context as never);
        expect({ context, answer: memo.evaluate('f', context as never) }).toEqual({ context, answer: fresh });
      }
    // The contexts above do split: the memo would hide it if they all shared an answer.
    expect(contexts.map((c) => valueOf(memo, c))).toEqual(['on', 'off', 'off', 'on', 'off', 'off', 'on', 'off', 'on']);
  });

  it('buckets fractional rollouts as flagd-core does', () => {
    const fractional = {
      fractional: [{ cat: [{ var: 'tenantId' }, { var: 'targetingKey' }] }, ['on', 30], ['off', 70]],
    };
    const memo = flagSet(fractional);
    const seen = new Set<unknown>();
    for (const tenantId of ['a', 'au'])
      for (let i = 0; i < 100; i++) {
        const context = { tenantId, targetingKey: `${i}` };
        const fresh = valueOf(flagSet(fractional), context);
        expect({ context, value: valueOf(memo, context) }).toEqual({ context, value: fresh });
        expect({ context, value: valueOf(memo, context) }).toEqual({ context, value: fresh });
        seen.add(fresh);
      }
    expect(seen).toEqual(new Set(['on', 'off']));
  });

  it('keys on own values only, as flagd-core copies the context', () => {
    const set = flagSet({ if: [{ '===': [{ var: ['plan', 'free'] }, 'gold'] }, 'on', 'off'] });
    expect(valueOf(set, { plan: 'gold' })).toBe('on');
    expect(valueOf(set, Object.create({ plan: 'gold' }) as Record<string, unknown>)).toBe('off');
  });

  it('reads a nested value again each time (objects are never keys)', () => {
    const set = flagSet({ if: [{ '===': [{ var: 'user.plan' }, 'gold'] }, 'on', 'off'] });
    const context = { user: { plan: 'gold' } };
    expect(valueOf(set, context)).toBe('on');
    context.user.plan = 'free';
    expect(valueOf(set, context)).toBe('off');
  });

  it('evaluates a rule on $flagd.timestamp every time', () => {
    jest.useFakeTimers();
    try {
      const cutover = Date.UTC(2030, 0, 1) / 1000;
      const set = flagSet({ if: [{ '<': [{ var: '$flagd.timestamp' }, cutover] }, 'on', 'off'] });
      jest.setSystemTime((cutover - 10) * 1000);
      expect(valueOf(set, { targetingKey: 'u' })).toBe('on');
      jest.setSystemTime((cutover + 10) * 1000);
      expect(valueOf(set, { targetingKey: 'u' })).toBe('off');
    } finally {
      jest.useRealTimers();
    }
  });

  it('hands out frozen answers, so one caller cannot change another’s', () => {
    const set = flagSet(rule);
    const first = set.evaluate('f', { seats: 1 });
    expect(Object.isFrozen(first)).toBe(true);
    expect(set.evaluate('f', { seats: 1 })).toBe(first);
  });
});

describe('answer memo', () => {
  it('keeps at most its bound, then starts again empty', () => {
    const memo = new AnswerMemo<string>(['a'], 2);
    memo.set({ a: 1 }, 'one');
    memo.set({ a: 2 }, 'two');
    expect([memo.get({ a: 1 }), memo.get({ a: 2 })]).toEqual(['one', 'two']);
    memo.set({ a: 3 }, 'three');
    expect([memo.get({ a: 1 }), memo.get({ a: 3 })]).toEqual([undefined, 'three']);
  });

  it('keeps nothing for -0, objects or values it cannot compare', () => {
    const memo = new AnswerMemo<string>(['a', 'b'], 10);
    expect(memo.get({ a: -0, b: 1 })).toBe(UNKEYED);
    expect(memo.get({ a: 1, b: { c: 1 } })).toBe(UNKEYED);
    expect(memo.get({ a: 1, b: [1] })).toBe(UNKEYED);
    expect(memo.get({ a: 1, b: 1 })).toBeUndefined();
  });
});
