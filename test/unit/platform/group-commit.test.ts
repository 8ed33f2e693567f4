// groupCommit with pipelining (maxInFlight > 1): a group starts while another commits, at most
// `maxInFlight` writes are in flight, the items arriving meanwhile wait together for the next free
// write, and each item resolves only once its own write has committed.
import { groupCommit } from '../../../platform/db/group-commit';

function fakeWrites() {
  const writes: { items: readonly number[]; commit(): void; fail(): void }[] = [];
  const write = (items: readonly number[]) =>
    new Promise<void>((resolve, reject) => {
      writes.push({ items, commit: resolve, fail: () => reject(new Error('write failed')) });
    });
  return { write, writes };
}

const settled = (p: Promise<void>) => {
  const s = { done: false, error: undefined as unknown };
  p.then(
    () => (s.done = true),
    (e) => {
      s.done = true;
      s.error = e;
    },
  );
  return s;
};
const tick = () => new Promise((r) => setImmediate(r));

describe('groupCommit, pipelined', () => {
  it('starts a second write while the first commits, and groups what arrives while both are in flight', async () => {
    const { write, writes } = fakeWrites();
    const append = groupCommit(write, { maxBatch: 100, maxInFlight: 2 });
    const one = settled(append(1));
    const two = settled(append(2));
    await tick();
    expect(writes.map((w) => w.items)).toEqual([[1], [2]]);
    const rest = [3, 4, 5].map((n) => settled(append(n)));
    await tick();
    expect(writes).toHaveLength(2); // both slots busy: 3, 4 and 5 wait together
    writes[1]!.commit(); // the second commits first
    await tick();
    expect(two.done).toBe(true);
    expect(one.done).toBe(false); // not before its own write commits
    expect(writes.map((w) => w.items)).toEqual([[1], [2], [3, 4, 5]]);
    expect(rest.some((r) => r.done)).toBe(false);
    writes[2]!.commit();
    writes[0]!.commit();
    await tick();
    expect([one, two, ...rest].every((s) => s.done && s.error === undefined)).toBe(true);
  });

  it('keeps the batch limit, and a failed shared write fails only the item the database refuses', async () => {
    const { write, writes } = fakeWrites();
    const append = groupCommit(write, { maxBatch: 2, maxInFlight: 2 });
    const first = settled(append(1));
    await tick();
    const grouped = [2, 3, 4].map((n) => settled(append(n)));
    await tick();
    expect(writes.map((w) => w.items)).toEqual([[1], [2]]);
    writes[0]!.commit();
    await tick();
    expect(writes.map((w) => w.items)).toEqual([[1], [2], [3, 4]]); // at most two per write
    writes[2]!.fail(); // the shared write fails: each item is written again on its own
    await tick();
    expect(writes.map((w) => w.items).slice(3)).toEqual([[3]]);
    writes[3]!.fail(); // 3 is refused on its own too
    await tick();
    writes[4]!.commit(); // 4 alone succeeds
    writes[1]!.commit();
    await tick();
    expect(first.done && first.error === undefined).toBe(true);
    expect(grouped[0]!.done && grouped[0]!.error === undefined).toBe(true);
    expect(grouped[1]!.error).toBeInstanceOf(Error);
    expect(grouped[2]!.done && grouped[2]!.error === undefined).toBe(true);
  });

  it('with one write in flight (the default), the next group waits for the previous', async () => {
    const { write, writes } = fakeWrites();
    const append = groupCommit(write, 100);
    void append(1);
    void append(2);
    void append(3);
    await tick();
    expect(writes.map((w) => w.items)).toEqual([[1]]);
    writes[0]!.commit();
    await tick();
    expect(writes.map((w) => w.items)).toEqual([[1], [2, 3]]);
    writes[1]!.commit();
  });
});
