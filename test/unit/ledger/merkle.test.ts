// The ledger's Merkle tree against RFC 9162's definitions written out naively (MTH, PATH and
// PROOF over the whole list of leaves): the stored-subtree computation must give the same root,
// audit paths and consistency proofs for every size and position up to 70 leaves.
import crypto from 'node:crypto';
import {
  appendLeaves,
  consistencyPath,
  frontierOf,
  frontierRoot,
  frontierText,
  inclusionPath,
  leafHash,
  nodeHash,
  plan,
  rootHash,
  STORED_LEVEL,
  storedLookup,
  storedRefs,
} from '../../../subgraphs/ledger/merkle';

const chains = Array.from({ length: 70 }, (_, i) => crypto.createHash('sha256').update(`entry ${i}`).digest('hex'));
const leaves = chains.map(leafHash);

function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return crypto.createHash('sha256').digest();
  if (d.length === 1) return d[0]!;
  const k = split(d.length);
  return nodeHash(mth(d.slice(0, k)), mth(d.slice(k)));
}
function refPath(m: number, d: Buffer[]): Buffer[] {
  if (d.length <= 1) return [];
  const k = split(d.length);
  return m < k ? [...refPath(m, d.slice(0, k)), mth(d.slice(k))] : [...refPath(m - k, d.slice(k)), mth(d.slice(0, k))];
}
function refSubproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const k = split(d.length);
  return m <= k
    ? [...refSubproof(m, d.slice(0, k), b), mth(d.slice(k))]
    : [...refSubproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
}

// The stored nodes, as the group commit writes them, appended in uneven batches.
const stored = new Map<string, Buffer>();
let frontier: Buffer[] = [];
for (let size = 0; size < chains.length;) {
  const batch = chains.slice(size, size + 1 + (size % 5));
  const grown = appendLeaves(size, frontier, batch);
  for (const n of grown.nodes) stored.set(`${n.level}:${n.index}`, Buffer.from(n.hash, 'hex'));
  frontier = grown.frontier;
  size += batch.length;
}
const lookup = storedLookup(
  (index) => chains[index],
  (level, index) => stored.get(`${level}:${index}`)?.toString('hex'),
);

it('stores one node per completed subtree of level >= 4, none below', () => {
  // 70 leaves: four subtrees of 16, two of 32, one of 64.
  expect([...stored.keys()].sort()).toEqual(['4:0', '4:1', '4:2', '4:3', '5:0', '5:1', '6:0']);
  expect(STORED_LEVEL).toBe(4);
});

it('a proof reads only leaves and stored subtrees, and at most one 16-leaf block per lower subtree', () => {
  for (let n = 1; n <= 70; n++) {
    for (let m = 0; m < n; m++) {
      const { leafIndexes, nodes } = storedRefs(plan((node) => inclusionPath(m, n, node)));
      expect(nodes.every((r) => stored.has(`${r.level}:${r.index}`))).toBe(true);
      expect(leafIndexes.every((i) => i < n)).toBe(true);
      expect(leafIndexes.length).toBeLessThanOrEqual(2 * 2 ** STORED_LEVEL);
    }
  }
});

it('the root from stored subtrees, and from the frontier, is MTH for every size', () => {
  for (let n = 1; n <= 70; n++) expect(rootHash(n, lookup).equals(mth(leaves.slice(0, n)))).toBe(true);
  expect(frontierRoot(frontier).equals(mth(leaves))).toBe(true);
  expect(frontierRoot(frontierOf(frontierText(frontier))).equals(mth(leaves))).toBe(true);
});

it('audit paths equal PATH(m, D[n]) for every leaf of every size', () => {
  for (let n = 1; n <= 70; n++) {
    for (let m = 0; m < n; m++) {
      expect(inclusionPath(m, n, lookup).map((b) => b.toString('hex'))).toEqual(
        refPath(m, leaves.slice(0, n)).map((b) => b.toString('hex')),
      );
    }
  }
});

it('consistency proofs equal PROOF(m, D[n]) for every pair of sizes', () => {
  for (let n = 1; n <= 70; n++) {
    for (let m = 1; m <= n; m++) {
      expect(consistencyPath(m, n, lookup).map((b) => b.toString('hex'))).toEqual(
        refSubproof(m, leaves.slice(0, n), true).map((b) => b.toString('hex')),
      );
    }
  }
});

it('leaves and nodes are domain-separated (a node never hashes like a leaf)', () => {
  const a = leaves[0]!;
  const b = leaves[1]!;
  expect(
    nodeHash(a, b).equals(
      crypto
        .createHash('sha256')
        .update(Buffer.concat([a, b]))
        .digest(),
    ),
  ).toBe(false);
  expect(leafHash(chains[0]!).equals(crypto.createHash('sha256').update(Buffer.from(chains[0]!, 'hex')).digest())).toBe(
    false,
  );
});
