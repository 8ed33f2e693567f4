// The JSONata fast path (subgraphs/dataflow/jsonata.fast.mjs, run by the worker) against jsonata's
// own evaluator, per record, over a corpus of expressions and records: every record's result is
// the same value (after the copy back from the thread), a record jsonata fails on fails the batch
// with jsonata's message, and the expressions in the fast path's subset really take it.
import jsonata from 'jsonata';
import { evaluatePerRecord } from '../../../subgraphs/dataflow/jsonata.transform';

jest.setTimeout(120_000);

const limits = { timeoutMs: 10_000, maxHeapMb: 64 };

const RECORDS: unknown[] = [
  { id: 1, name: 'alice', amount: 10, rate: 0.1, active: true, note: null, addr: { city: 'Oslo', zip: '0150' } },
  { id: 2, name: 'Bob  Smith ', amount: -3.5, rate: 0.2, active: false, note: '', addr: { city: '' } },
  { id: 3, name: '', amount: 0, rate: 1e-7, active: null, addr: null },
  { id: 4, amount: 1e300, rate: 0.30000000000000004, tags: ['a', 'b'], addr: { city: ['x', 'y'] } },
  { id: 5, name: 'Zoë ☃ 漢字', amount: '12', rate: '0.5', active: 'yes', addr: 'flat' },
  { id: 6, name: 42, amount: true, items: [{ v: 1 }, { v: 2 }], addr: { city: { name: 'deep' } } },
  { id: 7, name: 'x', amount: 7, rate: 3, nested: { a: { b: { c: 5 } } }, one: [9] },
  { id: 8, name: 'ends', amount: 2.675, rate: -0, empty: {}, arr: [] },
  {},
  { id: 10, name: 'n', amount: 100, rate: 7, 'odd key': 1, '1': 'numeric key' },
  [1, 2, 3],
  'a string record',
  null,
  { id: 14, name: 'Carol', amount: 999999999999, rate: 12345.678901234567 },
];

// In the subset (most records fast) and outside it (jsonata evaluates everything).
const EXPRESSIONS = [
  '{ "id": id, "label": $uppercase(name), "amount": amount * 1.2, "big": amount > 500 }',
  'id',
  'addr.city',
  'nested.a.b.c',
  'one',
  'tags',
  'items.v',
  '$',
  '"literal"',
  '42.5',
  'true',
  'null',
  '-amount',
  'amount + rate',
  'amount - rate * 2',
  'amount / rate',
  'amount % 3',
  '(amount + 1) * 2',
  '(id; amount)',
  'amount = 10',
  'name != "alice"',
  'note = null',
  'addr = null',
  'amount < 5',
  'name <= "b"',
  'amount >= rate',
  'name > amount',
  'name & "-" & id',
  'amount & "|" & rate & "|" & active & "|" & note',
  'addr & "!"',
  'active and amount > 0',
  'name or amount',
  'empty or arr',
  'active ? "on" : "off"',
  'amount > 5 ? { "hi": name } : { "lo": id }',
  'note ? 1',
  '{ "a": name, "b": missing, "c": { "d": addr.city } }',
  '{ "1": id, "b": 2, "0": 3 }',
  '$lowercase(name)',
  '$trim(name)',
  '$length(name)',
  '$substring(name, 1, 2)',
  '$substring(name, -2)',
  '$substringBefore(name, "i")',
  '$substringAfter(name, " ")',
  '$string(amount)',
  '$string(rate)',
  '$number(amount)',
  '$number(rate)',
  '$round(amount, 2)',
  '$round(amount)',
  '$floor(rate)',
  '$ceil(amount)',
  '$abs(amount)',
  '$boolean(name)',
  '$not(active)',
  '$exists(addr.city)',
  '$exists(missing)',
  '$uppercase(missing)',
  '$uppercase()',
  '{ "x": id, "x": name }',
  // Outside the subset: jsonata for every record.
  '$map([1, 2], function($v){ $v * id })',
  'items[v > 1].v',
  '[id, name]',
  '$sum(items.v)',
  '($x := 3; id * $x)',
  '**.c',
  'amount in [10, 7]',
];

/** jsonata's own answer for one record, copied as the thread's answer would be; or its error. */
async function reference(expression: string, record: unknown): Promise<{ value?: unknown; error?: string }> {
  try {
    return { value: structuredClone(await jsonata(expression).evaluate(record)) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

it.each(EXPRESSIONS)('answers %s per record as jsonata does', async (expression) => {
  const refs = await Promise.all(RECORDS.map((r) => reference(expression, r)));
  const passing = RECORDS.filter((_, i) => refs[i]!.error === undefined);
  const stats = { fast: 0 };
  const out = await evaluatePerRecord(expression, passing, limits, ['t'], { stats });
  expect(out).toStrictEqual(refs.filter((r) => r.error === undefined).map((r) => r.value));
  // Each record jsonata fails on fails the thread's batch with jsonata's message.
  for (const [i, ref] of refs.entries()) {
    if (ref.error === undefined) continue;
    await expect(evaluatePerRecord(expression, [RECORDS[i]], limits, ['t'])).rejects.toThrow(ref.error);
  }
});

it('takes the fast path for the expressions in its subset, and not for the others', async () => {
  const fastOn = async (expression: string, records: unknown[]) => {
    const stats = { fast: 0 };
    await evaluatePerRecord(expression, records, limits, ['t'], { stats });
    return stats.fast;
  };
  const plain = Array.from({ length: 50 }, (_, i) => ({ id: i, name: `c${i}`, amount: i % 7 }));
  expect(await fastOn(EXPRESSIONS[0]!, plain)).toBe(50);
  expect(await fastOn('amount > 3 ? $string(amount) & name : { "n": -amount }', plain)).toBe(50);
  // A record outside the cases (an array on the path) goes to jsonata; the rest stay fast.
  expect(await fastOn('id', [...plain.slice(0, 9), { id: [1, 2] }])).toBe(9);
  expect(await fastOn('$map([1], function($v){ $v })', plain)).toBe(0);
  expect(await fastOn('id', plain)).toBe(50);
  const off = { fast: 0 };
  await evaluatePerRecord('id', plain, limits, ['t'], { fast: false, stats: off });
  expect(off.fast).toBe(0);
});
