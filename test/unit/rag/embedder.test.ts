// The offline embedders: 384 unit-length dimensions, deterministic, and the default one knows
// paraphrases that share no words (DESIGN.md's example) and ranks the labelled set better than
// hashing alone. Quality thresholds here are loose floors, not benchmarks (bench/rag.ts measures).
import path from 'node:path';
import { cosine, EMBEDDING_DIMENSIONS, type Embedder } from '../../../subgraphs/rag/embedding/embedder';
import { HashingEmbedder } from '../../../subgraphs/rag/embedding/hashing.embedder';
import { SifGloveEmbedder } from '../../../subgraphs/rag/embedding/sif-glove.embedder';
import labelled from '../../fixtures/rag/labelled-set.json';

const cacheDir = path.resolve('.data/embeddings');

async function labelledScores(embedder: Embedder): Promise<{ top1: number; recall5: number; mrr: number }> {
  const passages = await embedder.embed(labelled.passages.map((p) => `${p.title}\n${p.text}`));
  const queries = await embedder.embed(labelled.queries.map((q) => q.q));
  let top1 = 0;
  let recall5 = 0;
  let mrr = 0;
  queries.forEach((qv, i) => {
    const ranked = passages
      .map((pv, j) => ({ id: labelled.passages[j]!.id, s: cosine(qv, pv) }))
      .sort((a, b) => b.s - a.s);
    const rank = ranked.findIndex((r) => r.id === labelled.queries[i]!.answer) + 1;
    if (rank === 1) top1++;
    if (rank <= 5) recall5++;
    mrr += 1 / rank;
  });
  return { top1, recall5: recall5 / queries.length, mrr: mrr / queries.length };
}

describe('embedders', () => {
  let sif: SifGloveEmbedder;
  beforeAll(async () => {
    sif = await SifGloveEmbedder.load(cacheDir);
  }, 240_000);

  it('gives 384 unit-length numbers, the same each time', async () => {
    for (const e of [sif, new HashingEmbedder()]) {
      const [a, b] = (await e.embed([
        'Suspicious transactions are reported',
        'Suspicious transactions are reported',
      ])) as [number[], number[]];
      expect(a).toHaveLength(EMBEDDING_DIMENSIONS);
      expect(Math.hypot(...a)).toBeCloseTo(1, 6);
      expect(a).toEqual(b);
    }
    const [empty] = await sif.embed(['']);
    expect(empty).toHaveLength(EMBEDDING_DIMENSIONS);
  });

  it('knows a paraphrase with no shared word', async () => {
    const [a, b, c] = (await sif.embed([
      'purchase an automobile',
      'buy a new car',
      'the quarterly tax filing deadline',
    ])) as [number[], number[], number[]];
    expect(cosine(a, b)).toBeGreaterThan(0.4);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.2);
  });

  it('ranks the labelled set better than hashing alone', async () => {
    const withVectors = await labelledScores(sif);
    const hashing = await labelledScores(new HashingEmbedder());
    expect(withVectors.mrr).toBeGreaterThan(hashing.mrr);
    expect(withVectors.recall5).toBeGreaterThanOrEqual(0.6);
  });
});
