// Soft word matching, the third signal of hybrid search (docs/rag.md, "Hybrid"): how well each
// content word of the question is met by some word of a candidate chunk. A word met exactly (same
// stem) scores 1; otherwise the best cosine of the two words' GloVe vectors, counted only above
// `floor` (unrelated words still have cosines of 0.2-0.3) and rescaled to [0, 1]. The question's
// words are weighted by SIF (a rare word counts, "the" does not), so
//   soft(q, chunk) = Σ_w sif(w) · best_w / Σ_w sif(w).
// An averaged sentence vector blurs "vendor ... bill ... settled" into one point; matching word by
// word keeps each paraphrased word's own nearest counterpart ("supplier", "invoice", "paid").
// Only the candidates a search already found are scored (tens of chunks), each distinct word once.
import { words, type WordVectors } from '../embedding/embedder';
import { stem } from '../embedding/lexical-features';

// Function words: never a question word to be met.
const SKIP = new Set(
  (
    'a an and are as at be been by for from has have had in is it its of on or that the this these those to was were will with ' +
    'what which who how when where why do does did can could would should shall may might must i you we they he she our your my me us their ' +
    'not no if than then there so any all some each about into after before get got'
  ).split(' '),
);

/** stem() leaves "invoice" but cuts "invoices" to "invoic": without a final e, both meet. */
const root = (word: string) => stem(word).replace(/e$/, '');

export class SoftMatcher {
  // floor 0.1 and relatedScale 2 (a first-sense synonym at weight 0.6 meets fully): tuned on the dev split.
  constructor(
    private readonly vectors: WordVectors,
    private readonly floor = 0.1,
    private readonly relatedScale = 2,
  ) {}

  /**
   * Soft-match scores in [0, 1] of each text against the question, in the order given. `related`:
   * a question word's WordNet relatives (query-expansion.ts), each met with `relatedScale` × its weight.
   */
  score(
    query: string,
    texts: readonly string[],
    related: ReadonlyMap<string, readonly { word: string; weight: number }[]> = new Map(),
  ): number[] {
    const q = [...new Set(words(query).filter((w) => !SKIP.has(w)))].map((w) => {
      const unit = this.vectors.unit(w);
      const near = new Map<string, number>();
      for (const r of related.get(w.replace(/['’]s$/, '')) ?? [])
        near.set(root(r.word), Math.max(near.get(root(r.word)) ?? 0, Math.min(1, this.relatedScale * r.weight)));
      return { root: root(w), unit, weight: unit ? this.vectors.weight(w) : 1, near };
    });
    const total = q.reduce((s, w) => s + w.weight, 0);
    if (q.length === 0 || total === 0) return texts.map(() => 0);
    // best[i] of a distinct chunk word, for each question word: computed once over all texts.
    const seen = new Map<string, Float64Array>();
    const matchOf = (word: string): Float64Array => {
      let m = seen.get(word);
      if (m) return m;
      m = new Float64Array(q.length);
      const s = root(word);
      const unit = this.vectors.unit(word);
      for (let i = 0; i < q.length; i++) {
        const qw = q[i]!;
        if (qw.root === s) {
          m[i] = 1;
          continue;
        }
        m[i] = qw.near.get(s) ?? 0;
        if (!unit || !qw.unit) continue;
        let dot = 0;
        for (let d = 0; d < unit.length; d++) dot += unit[d]! * qw.unit[d]!;
        if (dot > this.floor) m[i] = Math.max(m[i]!, (dot - this.floor) / (1 - this.floor));
      }
      seen.set(word, m);
      return m;
    };
    const none = new Float64Array(q.length);
    return texts.map((text) => {
      const best = new Float64Array(q.length);
      // A repeated word finds its match in `seen`; comparing again costs less than a Set per text.
      for (const w of words(text)) {
        const m = SKIP.has(w) ? none : matchOf(w);
        for (let i = 0; i < q.length; i++) if (m[i]! > best[i]!) best[i] = m[i]!;
      }
      let sum = 0;
      for (let i = 0; i < q.length; i++) sum += q[i]!.weight * best[i]!;
      return sum / total;
    });
  }
}
