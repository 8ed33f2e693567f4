// The fallback embedder: feature hashing only (no word vectors), 384 buckets. Weak on
// paraphrases (DESIGN.md measured pair AUC 0.58) but needs nothing and never fails.
import { EMBEDDING_DIMENSIONS, l2normalise, type Embedder } from './embedder';
import { lexicalFeatures } from './lexical-features';

export class HashingEmbedder implements Embedder {
  readonly name = 'hashing-384';

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((t) => l2normalise(lexicalFeatures(t, EMBEDDING_DIMENSIONS)));
  }
}
