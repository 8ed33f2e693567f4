// The whole Merkle tree of one checkpoint in memory, for proving many entries at once (a
// compliance report's every item). merkle.ts proves a few entries from stored subtrees and
// recomputes what lies below them for each batch; proving a million entries that way read and
// hashed the same subtrees again and again (~2,700 entry proofs/s). Here every leaf is hashed
// once and every node once (n leaves: n + n - 1 SHA-256, about a second for a million), and each
// audit path is then read out of the levels without hashing.
//
// Levels are built bottom-up, pairing neighbours; a level's last node without a partner moves up
// unchanged. That is the RFC 9162 tree (section 2.1.1: MTH splits at the largest power of two
// below n, so the left side is always perfect and only the right edge is ragged), and a path
// read from it is PATH(m, D[n]) of section 2.1.3.1: at each level, the partner if it exists.
import crypto from 'node:crypto';
import { leafHash } from './merkle';

const HASH = 32;

export class CheckpointTree {
  /** levels[0] holds the leaf hashes, levels[k] the nodes k levels up; each hash 32 bytes. */
  private readonly levels: Buffer[] = [];
  private readonly sizes: number[] = [];
  /** Hex of the nodes of levels >= 2, made once: a node at level k is on 2^k paths. */
  private readonly hex: (string | undefined)[][] = [];
  private added = 0;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`tree size ${size}`);
    this.levels.push(Buffer.allocUnsafe(size * HASH));
    this.sizes.push(size);
  }

  /** The next leaves in order, by their entries' chain hashes (hex). */
  addLeaves(chainHashes: readonly string[]): void {
    if (this.added + chainHashes.length > this.size) throw new RangeError('more leaves than the tree holds');
    const leaves = this.levels[0]!;
    for (const chain of chainHashes) leafHash(chain).copy(leaves, HASH * this.added++);
  }

  /** Hashes every level above the leaves; call once, after the last leaf. */
  build(): this {
    if (this.added !== this.size) throw new Error(`${this.added} of ${this.size} leaves added`);
    let below = this.levels[0]!;
    let n = this.size;
    const pair = Buffer.allocUnsafe(1 + 2 * HASH);
    pair[0] = 1;
    while (n > 1) {
      const m = Math.ceil(n / 2);
      const level = Buffer.allocUnsafe(m * HASH);
      for (let i = 0; i < Math.floor(n / 2); i++) {
        below.copy(pair, 1, 2 * i * HASH, (2 * i + 2) * HASH);
        crypto.hash('sha256', pair, 'buffer').copy(level, i * HASH);
      }
      if (n % 2 === 1) below.copy(level, (m - 1) * HASH, (n - 1) * HASH, n * HASH);
      this.levels.push(level);
      this.sizes.push(m);
      below = level;
      n = m;
    }
    return this;
  }

  root(): Buffer {
    const top = this.levels[this.levels.length - 1]!;
    return Buffer.from(top.subarray(0, HASH));
  }

  /** The audit path of leaf `index` (0-based), leaf side first, in hex: what the proofs carry. */
  path(index: number): string[] {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) throw new RangeError(`leaf ${index}`);
    const out: string[] = [];
    let m = index;
    for (let k = 0; k < this.levels.length - 1; k++) {
      const partner = m ^ 1;
      if (partner < this.sizes[k]!) out.push(this.hexOf(k, partner));
      m = Math.floor(m / 2);
    }
    return out;
  }

  private hexOf(level: number, index: number): string {
    const at = () => this.levels[level]!.toString('hex', index * HASH, (index + 1) * HASH);
    if (level < 2) return at();
    const row = (this.hex[level] ??= new Array<string | undefined>(this.sizes[level]!));
    return (row[index] ??= at());
  }
}
