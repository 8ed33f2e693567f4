// The Merkle tree of a tenant's ledger, as RFC 9162 (Certificate Transparency 2.0, section 2.1)
// defines it: leaves are hashed as SHA-256(0x00 || data) and nodes as SHA-256(0x01 || left ||
// right), so a leaf can never pass for a node. A leaf's data is the 32 bytes of the entry's
// chain_hash, which commits to its content_hash and to every entry before it.
//
// Only perfect subtrees of level >= STORED_LEVEL are stored (index = first leaf / 2^level); level 0
// is the entry's own chain_hash, and a lower subtree is recomputed from its 2, 4 or 8 chain hashes
// when a proof needs it. Storing every level wrote about one node row per entry and halved the
// append rate; from level 4 it is one row per 16 entries. Every range the RFC's recursion asks
// for is either a perfect subtree or splits into them, so proofs are computed in two passes: plan
// the nodes a proof needs, read them (leaves and stored subtrees) in one query, then compute with
// a synchronous lookup.
import crypto from 'node:crypto';

export interface NodeRef {
  level: number;
  index: number;
}

/** A stored node: a perfect subtree of 2^level leaves starting at leaf index * 2^level. */
export interface TreeNode extends NodeRef {
  hash: string;
}

export type NodeLookup = (level: number, index: number) => Buffer;

const EMPTY_ROOT = crypto.createHash('sha256').digest();

/** The lowest level of stored subtrees; below it a subtree is hashed from its leaves on demand. */
export const STORED_LEVEL = 4;

// crypto.hash hashes in one call, several times faster than createHash for inputs this small:
// an append hashes one leaf and about one node per entry inside the group commit.
export function leafHash(chainHashHex: string): Buffer {
  const data = Buffer.alloc(33);
  data[0] = 0;
  data.write(chainHashHex, 1, 'hex');
  return crypto.hash('sha256', data, 'buffer');
}

export function nodeHash(left: Buffer, right: Buffer): Buffer {
  const data = Buffer.allocUnsafe(65);
  data[0] = 1;
  left.copy(data, 1);
  right.copy(data, 33);
  return crypto.hash('sha256', data, 'buffer');
}

/** The largest power of two strictly below n (n >= 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

// Arithmetic, not bit operators: tree sizes may pass 2^31.
const isPowerOfTwo = (n: number) => n > 0 && 2 ** Math.round(Math.log2(n)) === n;

/** MTH(D[a:b]) over stored perfect subtrees. */
function rangeHash(a: number, b: number, node: NodeLookup): Buffer {
  const size = b - a;
  if (isPowerOfTwo(size) && a % size === 0) return node(Math.log2(size), a / size);
  const k = split(size);
  return nodeHash(rangeHash(a, a + k, node), rangeHash(a + k, b, node));
}

/** MTH(D[0:n]). */
export function rootHash(size: number, node: NodeLookup): Buffer {
  return size === 0 ? EMPTY_ROOT : rangeHash(0, size, node);
}

/** PATH(m, D[a:b]) of RFC 9162 2.1.3.1: the audit path of leaf m, leaf-side first. */
function path(m: number, a: number, b: number, node: NodeLookup): Buffer[] {
  const n = b - a;
  if (n <= 1) return [];
  const k = split(n);
  return m < k
    ? [...path(m, a, a + k, node), rangeHash(a + k, b, node)]
    : [...path(m - k, a + k, b, node), rangeHash(a, a + k, node)];
}

export function inclusionPath(leafIndex: number, size: number, node: NodeLookup): Buffer[] {
  return path(leafIndex, 0, size, node);
}

/** SUBPROOF(m, D[a:b], first) of RFC 9162 2.1.4.1. */
function subproof(m: number, a: number, b: number, first: boolean, node: NodeLookup): Buffer[] {
  const n = b - a;
  if (m === n) return first ? [] : [rangeHash(a, b, node)];
  const k = split(n);
  return m <= k
    ? [...subproof(m, a, a + k, first, node), rangeHash(a + k, b, node)]
    : [...subproof(m - k, a + k, b, false, node), rangeHash(a, a + k, node)];
}

/** PROOF(m, D[0:n]): that the tree of size n extends the tree of size m (0 < m <= n). */
export function consistencyPath(oldSize: number, newSize: number, node: NodeLookup): Buffer[] {
  return oldSize === newSize ? [] : subproof(oldSize, 0, newSize, true, node);
}

/** The node references a computation will read: run it once with a recording lookup. */
export function plan(compute: (node: NodeLookup) => unknown): NodeRef[] {
  const refs = new Map<string, NodeRef>();
  compute((level, index) => {
    refs.set(`${level}:${index}`, { level, index });
    return EMPTY_ROOT;
  });
  return [...refs.values()];
}

/** What a plan's references read from the store: leaves (by index) and stored subtrees. */
export function storedRefs(refs: NodeRef[]): { leafIndexes: number[]; nodes: NodeRef[] } {
  const leafIndexes = new Set<number>();
  const nodes: NodeRef[] = [];
  for (const r of refs) {
    if (r.level >= STORED_LEVEL) nodes.push(r);
    else for (let i = r.index * 2 ** r.level; i < (r.index + 1) * 2 ** r.level; i++) leafIndexes.add(i);
  }
  return { leafIndexes: [...leafIndexes], nodes };
}

/**
 * The lookup a proof computes with, over what storedRefs read: a leaf from its chain hash, a
 * subtree below STORED_LEVEL from its leaves, a stored subtree as read. Undefined: not read.
 */
export function storedLookup(
  chainHash: (index: number) => string | undefined,
  stored: (level: number, index: number) => string | undefined,
): NodeLookup {
  // Subtrees below STORED_LEVEL computed once per lookup: a batch of proofs of neighbouring leaves
  // (a report's) asks for the same ones again and again.
  const computed = new Map<string, Buffer>();
  const node: NodeLookup = (level, index) => {
    if (level === 0) {
      const chain = chainHash(index);
      if (chain === undefined) throw new Error(`leaf ${index} was not read`);
      return leafHash(chain);
    }
    if (level < STORED_LEVEL) {
      const key = `${level}:${index}`;
      let hash = computed.get(key);
      if (!hash) {
        hash = nodeHash(node(level - 1, 2 * index), node(level - 1, 2 * index + 1));
        computed.set(key, hash);
      }
      return hash;
    }
    const hash = stored(level, index);
    if (hash === undefined) throw new Error(`node ${level}:${index} was not read`);
    return Buffer.from(hash, 'hex');
  };
  return node;
}

/**
 * Appends leaves to a tree given by its frontier (the roots of its perfect subtrees, largest
 * first, as stored with the chain head). Returns the new frontier and the nodes to store (those
 * of level >= STORED_LEVEL).
 */
export function appendLeaves(
  size: number,
  frontier: Buffer[],
  chainHashes: string[],
): { frontier: Buffer[]; nodes: TreeNode[] } {
  const next = [...frontier];
  const nodes: TreeNode[] = [];
  let n = size;
  for (const chain of chainHashes) {
    let carry = leafHash(chain);
    let level = 0;
    while (Math.floor(n / 2 ** level) % 2 === 1) {
      carry = nodeHash(next.pop()!, carry);
      level++;
      if (level >= STORED_LEVEL) nodes.push({ level, index: Math.floor(n / 2 ** level), hash: carry.toString('hex') });
    }
    next.push(carry);
    n++;
  }
  return { frontier: next, nodes };
}

/** The root of a tree from its frontier, without reading any node. */
export function frontierRoot(frontier: Buffer[]): Buffer {
  if (frontier.length === 0) return EMPTY_ROOT;
  let root = frontier[frontier.length - 1]!;
  for (let i = frontier.length - 2; i >= 0; i--) root = nodeHash(frontier[i]!, root);
  return root;
}

/** The frontier as one text column: 64 hex characters per subtree root. */
export const frontierText = (frontier: Buffer[]) => frontier.map((b) => b.toString('hex')).join('');
export const frontierOf = (text: string | null | undefined): Buffer[] =>
  (text ?? '').match(/.{64}/g)?.map((h) => Buffer.from(h, 'hex')) ?? [];
