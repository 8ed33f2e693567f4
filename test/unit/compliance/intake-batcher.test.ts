// The intake's group commit with answers: concurrent items share a batch, each caller gets its
// own result, a lone item goes at once, and a failed batch is retried item by item so one bad
// item fails only its own caller.
import { resultBatcher } from '../../../subgraphs/compliance/intake.batcher';

it('batches what arrives while a batch is written, answering each caller with its own result', async () => {
  const batches: number[][] = [];
  const add = resultBatcher<number, number>(async (batch) => {
    batches.push([...batch]);
    await new Promise((resolve) => setImmediate(resolve));
    return batch.map((n) => n * 10);
  }, 3);
  const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => add(n)));
  expect(results).toEqual([10, 20, 30, 40, 50, 60]);
  // What arrived in the same turn went together, at most three a batch.
  expect(batches).toEqual([
    [1, 2, 3],
    [4, 5, 6],
  ]);
});

it('takes callers that come back after their answer together, not the first one alone', async () => {
  const sizes: number[] = [];
  const add = resultBatcher<number, number>(async (batch) => {
    sizes.push(batch.length);
    await new Promise((resolve) => setImmediate(resolve));
    return [...batch];
  }, 100);
  // Eight callers, each sending its next item as soon as the last one is answered.
  await Promise.all(
    Array.from({ length: 8 }, async (_, c) => {
      for (let k = 0; k < 5; k++) await add(c * 10 + k);
    }),
  );
  expect(sizes).toEqual([8, 8, 8, 8, 8]);
});

it('writes a lone item without waiting for company', async () => {
  const add = resultBatcher<number, number>(async (batch) => batch.map((n) => n + 1), 10);
  await expect(add(1)).resolves.toBe(2);
});

it('retries a failed batch item by item: only the bad item fails', async () => {
  const add = resultBatcher<number, string>(async (batch) => {
    if (batch.includes(13)) throw new Error('unlucky');
    return batch.map(String);
  }, 10);
  const outcomes = await Promise.allSettled([1, 13, 2, 3].map((n) => add(n)));
  expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
    '1',
    'unlucky',
    '2',
    '3',
  ]);
});
