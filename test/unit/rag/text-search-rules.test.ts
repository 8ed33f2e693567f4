import { idf, planTextSearch, tsqueryLexeme } from '../../../subgraphs/rag/text-search.rules';

test('idf: a rare word weighs more than a common one, never below zero', () => {
  expect(idf(1, 1000)).toBeGreaterThan(idf(100, 1000));
  expect(idf(1000, 1000)).toBeGreaterThan(0);
  expect(idf(1000, 1000)).toBeLessThan(0.01);
});

test('the rarest words select the candidates while their chunk counts fit the budget; all known words rank', () => {
  const plan = planTextSearch(
    [
      { lexeme: 'invoic', df: 400 },
      { lexeme: 'retent', df: 150 },
      { lexeme: 'period', df: 40 },
      { lexeme: 'unknown', df: 0 },
    ],
    10_000,
    500,
  );
  expect(plan.matches).toEqual([`'period' | 'retent'`]);
  expect(plan.rank.map((r) => r.query)).toEqual([`'period'`, `'retent'`, `'invoic'`]);
  expect(plan.rank[0]!.weight).toBeGreaterThan(plan.rank[2]!.weight);
});

test('when even the rarest word is too common: all words (at most 8), then the rarest alone', () => {
  const terms = Array.from({ length: 10 }, (_, i) => ({ lexeme: `w${i}`, df: 5000 + i }));
  const plan = planTextSearch(terms, 10_000, 500);
  expect(plan.matches).toEqual([`'w0' & 'w1' & 'w2' & 'w3' & 'w4' & 'w5' & 'w6' & 'w7'`, `'w0'`]);
  expect(plan.rank).toHaveLength(10);
  expect(planTextSearch([{ lexeme: 'only', df: 9000 }], 10_000, 500).matches).toEqual([`'only'`]);
});

test('nothing to match: no known word, or no chunks', () => {
  expect(planTextSearch([{ lexeme: 'x', df: 0 }], 100, 500)).toEqual({ matches: [], rank: [] });
  expect(planTextSearch([], 100, 500)).toEqual({ matches: [], rank: [] });
  expect(planTextSearch([{ lexeme: 'x', df: 3 }], 0, 500)).toEqual({ matches: [], rank: [] });
});

test('a lexeme is quoted so that no character in it is read as a tsquery operator', () => {
  expect(tsqueryLexeme(`o'brien`)).toBe(`'o''brien'`);
  expect(tsqueryLexeme('a\\b')).toBe(`'a\\\\b'`);
  expect(tsqueryLexeme('x & y | !z')).toBe(`'x & y | !z'`);
});

test("expansion words rank by boost × IDF and select candidates only with the budget the question's words leave", () => {
  const plan = planTextSearch(
    [
      { lexeme: 'vendor', df: 300 },
      { lexeme: 'bill', df: 100 },
      { lexeme: 'supplier', df: 50, boost: 0.6 },
      { lexeme: 'invoic', df: 150, boost: 0.4 },
    ],
    10_000,
    500,
  );
  // The question's words first (rarest first), then the expansion words that still fit.
  expect(plan.matches).toEqual([`'bill' | 'vendor' | 'supplier'`]);
  expect(plan.rank.map((r) => r.query)).toEqual([`'bill'`, `'vendor'`, `'supplier'`, `'invoic'`]);
  expect(plan.rank[2]!.weight).toBeCloseTo(0.6 * idf(50, 10_000), 10);
  // Too common question words: the all-words fallback never includes an expansion word.
  const common = planTextSearch(
    [
      { lexeme: 'a', df: 6000 },
      { lexeme: 'b', df: 7000 },
      { lexeme: 'syn', df: 10, boost: 0.5 },
    ],
    10_000,
    500,
  );
  expect(common.matches).toEqual([`'a' & 'b'`, `'a'`]);
  // Only expansion words known: they select the candidates.
  expect(
    planTextSearch(
      [
        { lexeme: 'q', df: 0 },
        { lexeme: 'syn', df: 10, boost: 0.5 },
      ],
      100,
      500,
    ).matches,
  ).toEqual([`'syn'`]);
});
