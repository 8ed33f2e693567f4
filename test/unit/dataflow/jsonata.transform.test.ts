// JSONata per record in its worker thread (subgraphs/dataflow/jsonata.transform.ts): results come
// back in record order across batches; an expression failing on a record of a later batch, one
// that loops and one that allocates without bound are each an InputError, and the next call
// still works.
import { InputError } from '../../../platform/errors/domain-errors';
import { BATCH_RECORDS, evaluatePerRecord } from '../../../subgraphs/dataflow/jsonata.transform';

jest.setTimeout(60_000);

const limits = { timeoutMs: 5000, maxHeapMb: 64 };

it('answers every record in order across several batches', async () => {
  const n = 2 * BATCH_RECORDS + 7;
  const records = Array.from({ length: n }, (_, i) => ({ id: i, name: `c${i}` }));
  const out = await evaluatePerRecord('id > 3 ? { "id": id, "label": $uppercase(name) }', records, limits, ['t']);
  expect(out).toHaveLength(n);
  expect(out.slice(0, 4).every((v) => v === undefined)).toBe(true);
  expect(out[n - 1]).toEqual({ id: n - 1, label: `C${n - 1}` });
  expect(out[BATCH_RECORDS]).toEqual({ id: BATCH_RECORDS, label: `C${BATCH_RECORDS}` });
});

it('reports a failure on a record of a later batch as an InputError', async () => {
  const records = Array.from({ length: BATCH_RECORDS + 10 }, (_, i) => ({ v: i === BATCH_RECORDS + 5 ? 'x' : i }));
  await expect(evaluatePerRecord('v + 1', records, limits, ['transforms', 0])).rejects.toThrow(InputError);
});

it('stops a looping and an allocating expression, and the next call still works', async () => {
  const loop = evaluatePerRecord('($f := function($x){ $f($x) + 1 }; $f(1))', [{}], { ...limits, timeoutMs: 1000 }, [
    't',
  ]);
  await expect(loop).rejects.toThrow(/longer than|memory|stack|depth/i);
  const grow = evaluatePerRecord('$map([1..1000000], function($i){ "xxxxxxxxxxxxxxxx" & $i })', [{}], limits, ['t']);
  await expect(grow).rejects.toThrow(InputError);
  expect(await evaluatePerRecord('a * 2', [{ a: 1 }, { a: 2 }], limits, ['t'])).toEqual([2, 4]);
});

it('refuses a syntax error without starting a thread', async () => {
  await expect(evaluatePerRecord('{ "a": ', [{}], limits, ['t'])).rejects.toThrow(/syntax/);
});
