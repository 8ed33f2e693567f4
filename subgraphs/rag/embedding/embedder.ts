// What the retrieval service needs of an embedding model: 384 numbers per text, L2-normalised,
// compared by cosine (spec 02 rule 5). The offline default, the hashing fallback and remote
// models (Ollama or OpenAI-compatible endpoints) all implement this.
export const EMBEDDING_DIMENSIONS = 384;

export interface Embedder {
  /** Reported by /readyz as `embedding_model`. */
  readonly name: string;
  embed(texts: string[]): Promise<number[][]>;
  /** Word vectors, where the embedder has them (hybrid search's soft word matching uses them). */
  wordVectors?(): WordVectors;
}

export interface WordVectors {
  /** The word's unit vector, or undefined when the vocabulary lacks it. */
  unit(word: string): Float32Array | undefined;
  /** How much the word says (SIF weight: near 0 for the commonest words, near 1 for rare ones). */
  weight(word: string): number;
}

export function l2normalise(v: Float64Array | number[]): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  return Array.from(v, (x) => (norm > 0 ? x / norm : 0));
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** Lower-cased word tokens (letters, digits, inner apostrophes and hyphens). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}
