// The whole-tree prover (merkle-levels.ts) against the RFC 9162 recursion of merkle.ts: the same
// root and the same audit path for every leaf of every size up to 70 (every ragged right edge of
// those sizes) and of a few larger ones around powers of two.
import crypto from 'node:crypto';
import { CheckpointTree } from '../../../subgraphs/ledger/merkle-levels';
import { inclusionPath, leafHash, nodeHash, rootHash, type NodeLookup } from '../../../subgraphs/ledger/merkle';

const chainHashes = (n: number) =>
  Array.from({ length: n }, (_, i) => crypto.createHash('sha256').update(`entry ${i}`).digest('hex'));

/** A lookup that hashes any perfect subtree from its leaves (nothing stored), for merkle.ts's recursion. */
function recursive(chains: string[]): NodeLookup {
  const lookup: NodeLookup = (level, index) =>
    level === 0 ? leafHash(chains[index]!) : nodeHash(lookup(level - 1, 2 * index), lookup(level - 1, 2 * index + 1));
  return lookup;
}

function tree(chains: string[]): CheckpointTree {
  const t = new CheckpointTree(chains.length);
  // In uneven pieces, as pages arrive.
  for (let i = 0; i < chains.length; i += 7) t.addLeaves(chains.slice(i, i + 7));
  return t.build();
}

it('has the root and every audit path of the RFC 9162 recursion, sizes 1 to 70', () => {
  for (let n = 1; n <= 70; n++) {
    const chains = chainHashes(n);
    const lookup = recursive(chains);
    const t = tree(chains);
    expect(t.root().toString('hex')).toBe(rootHash(n, lookup).toString('hex'));
    for (let m = 0; m < n; m++) expect(t.path(m)).toEqual(inclusionPath(m, n, lookup).map((b) => b.toString('hex')));
  }
});

it('agrees around powers of two (1023, 1024, 1025) on sampled leaves', () => {
  for (const n of [1023, 1024, 1025]) {
    const chains = chainHashes(n);
    const lookup = recursive(chains);
    const t = tree(chains);
    expect(t.root().toString('hex')).toBe(rootHash(n, lookup).toString('hex'));
    for (const m of [0, 1, 511, 512, 1000, n - 2, n - 1])
      expect(t.path(m)).toEqual(inclusionPath(m, n, lookup).map((b) => b.toString('hex')));
  }
});

it('refuses leaves beyond its size, a build before the last leaf, and paths outside it', () => {
  const t = new CheckpointTree(3);
  expect(() => t.addLeaves(chainHashes(4))).toThrow(RangeError);
  t.addLeaves(chainHashes(2));
  expect(() => t.build()).toThrow('2 of 3 leaves');
  t.addLeaves(chainHashes(1));
  t.build();
  expect(() => t.path(3)).toThrow(RangeError);
  expect(() => t.path(-1)).toThrow(RangeError);
});
