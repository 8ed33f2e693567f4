// Hybrid search's fusion of its rankings (retrieval.service.ts `fuse`) and its soft word matching
// (ranking/soft-match.ts) on small hand-made inputs.
import type { WordVectors } from '../../../subgraphs/rag/embedding/embedder';
import { SoftMatcher } from '../../../subgraphs/rag/ranking/soft-match';
import { FUSION, fuse, type FusionOptions } from '../../../subgraphs/rag/retrieval.service';

const rank = (scores: Map<string, number>) => [...scores].sort((a, b) => b[1] - a[1]).map(([id]) => id);

describe('fuse', () => {
  const cosine = new Map([
    ['a', 0.9],
    ['b', 0.8],
    ['c', 0.3],
    ['d', 0.2],
  ]);
  const byVector = [
    { id: 'a', score: 0.9 },
    { id: 'b', score: 0.8 },
    { id: 'c', score: 0.3 },
  ];
  const byText = [
    { id: 'c', score: 5 },
    { id: 'd', score: 2 },
  ];

  it('rrf: each list adds weight/(k + rank); a candidate of one list only still counts', () => {
    const options: FusionOptions = {
      ...FUSION,
      method: 'rrf',
      vectorWeight: 0.5,
      textWeight: 0.5,
      softWeight: 0,
      k: 10,
    };
    const f = fuse(byVector, byText, [], cosine, options);
    expect(f.get('a')).toBeCloseTo(0.5 / 11, 10);
    expect(f.get('c')).toBeCloseTo(0.5 / 13 + 0.5 / 11, 10);
    expect(f.get('d')).toBeCloseTo(0.5 / 12, 10);
    // c is in both lists: it beats a, first by cosine only.
    expect(rank(f)[0]).toBe('c');
    // With the text weight at 0, the vector order stands.
    expect(
      rank(fuse(byVector, byText, [], cosine, { ...options, vectorWeight: 1, textWeight: 0 })).slice(0, 3),
    ).toEqual(['a', 'b', 'c']);
  });

  it('rrf: the soft-match list reorders the candidates by its weight', () => {
    const soft = [
      { id: 'a', score: 0.1 },
      { id: 'b', score: 0.2 },
      { id: 'c', score: 0.9 },
      { id: 'd', score: 0.5 },
    ];
    const f = fuse(byVector, byText, soft, cosine, {
      ...FUSION,
      method: 'rrf',
      vectorWeight: 0.2,
      textWeight: 0,
      softWeight: 0.8,
      k: 10,
    });
    // c: 0.2/13 + 0.8/11; b: 0.2/12 + 0.8/13; a: 0.2/11 + 0.8/14; d (soft only): 0.8/12.
    expect(rank(f)).toEqual(['c', 'b', 'a', 'd']);
    expect(f.get('d')).toBeCloseTo(0.8 / 12, 10);
  });

  it('convex: cosine and soft match min-max over the candidates, text over the best', () => {
    const soft = [
      { id: 'a', score: 0.5 },
      { id: 'b', score: 0.5 },
      { id: 'c', score: 0.5 },
      { id: 'd', score: 0.5 },
    ];
    const f = fuse(byVector, byText, soft, cosine, {
      ...FUSION,
      method: 'convex',
      vectorWeight: 0.6,
      textWeight: 0.4,
      softWeight: 0.5,
      k: 0,
    });
    // a: cosine' 1, text 0; d: cosine' 0, text 2/5; soft all equal (span 0) counts 0.5 × 1 for each.
    expect(f.get('a')).toBeCloseTo(0.6 + 0.5, 10);
    expect(f.get('d')).toBeCloseTo(0.4 * 0.4 + 0.5, 10);
    expect(f.get('c')).toBeCloseTo(0.6 * (0.1 / 0.7) + 0.4 + 0.5, 10);
  });
});

describe('SoftMatcher', () => {
  // Three-dimensional stand-in vectors: "vendor" and "supplier" close, "bill" apart.
  const table: Record<string, [number, number, number]> = {
    vendor: [1, 0.1, 0],
    supplier: [0.95, 0.2, 0],
    bill: [0, 0, 1],
    invoice: [0, 1, 0],
    payment: [0.1, 0.9, 0.1],
    the: [0.5, 0.5, 0.5],
  };
  const vectors: WordVectors = {
    unit: (w) => {
      const v = table[w];
      if (!v) return undefined;
      const n = Math.hypot(...v);
      return Float32Array.from(v.map((x) => x / n));
    },
    weight: (w) => (w === 'the' ? 0.01 : 1),
  };

  it('an exact word (same stem) scores 1, a near word its rescaled cosine, an unrelated one 0', () => {
    const m = new SoftMatcher(vectors, 0.1, 2);
    expect(m.score('vendors', ['the vendor'])).toEqual([1]);
    const [exact, near, none] = m.score('vendor', ['the vendor', 'the supplier', 'the bill']);
    expect(exact).toBe(1);
    expect(near).toBeGreaterThan(0.8);
    expect(near).toBeLessThan(1);
    expect(none).toBe(0);
  });

  it('each question word is met by its own best word, weighted by how much it says', () => {
    const m = new SoftMatcher(vectors, 0.1, 2);
    const [both, one] = m.score('the vendor bill', ['supplier bill', 'supplier payment']);
    expect(both).toBeGreaterThan(one!);
    // "the" weighs almost nothing: both words met is close to 1.
    expect(both).toBeGreaterThan(0.9);
  });

  it('a WordNet relative of a question word counts as a near match, even where the vectors disagree', () => {
    const m = new SoftMatcher(vectors, 0.1, 2);
    const [without] = m.score('bill', ['invoices']);
    const [withRelative] = m.score('bill', ['invoices'], new Map([['bill', [{ word: 'invoice', weight: 0.3 }]]]));
    expect(without).toBe(0);
    expect(withRelative).toBeCloseTo(0.6, 10);
  });

  it('a question of function words only scores nothing', () => {
    expect(new SoftMatcher(vectors).score('what is it', ['the vendor'])).toEqual([0]);
  });
});
