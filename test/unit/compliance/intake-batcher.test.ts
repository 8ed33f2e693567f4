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
  // The first goes alone at once; the rest went together, at most three a batch.
  expect(batches).toEqual([[1], [2, 3, 4], [5, 6]]);
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
