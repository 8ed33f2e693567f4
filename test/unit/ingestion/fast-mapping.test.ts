// The plain-JavaScript mapping answers what JSONata answers, record by record, or hands the record
// back to JSONata; expressions outside its subset are not compiled at all.
import jsonata from 'jsonata';
import { compileFastMapping, FALLBACK } from '../../../subgraphs/ingestion/fast-mapping';
import { compileNormaliser } from '../../../subgraphs/ingestion/normaliser';

const MAPPING: Record<string, string> = {
  id: '$number(id)',
  name: '$trim(first & " " & last)',
  email: '$lowercase(email)',
  code: '$uppercase($string(code))',
  ssn: 'ssn',
  first_name: '`first name`',
};

const RECORDS: Record<string, unknown>[] = [
  { id: '12', first: ' Ann ', last: 'Lee\t', email: 'A@B.C', code: 'x1', ssn: '123-45-6789', 'first name': 'Ann' },
  { id: '-1.5e3', first: 'a', email: 'MiXeD' },
  { id: 7, first: 'x', last: 'y', code: 'q' },
  { id: true, ssn: null },
  { id: '0x1F', first: 'n' },
  { id: ' 12', first: 'n' },
  { id: '', first: 'n' },
  { id: '1e400', first: 'n' },
  { id: '3', first: 5, last: 'z' },
  { id: '3', email: 42 },
  { id: '3', ssn: ['a', 'b'] },
  { id: '3', ssn: { a: 1 } },
  {},
];

async function viaJsonata(record: Record<string, unknown>): Promise<unknown> {
  const text = `{ ${Object.entries(MAPPING)
    .map(([k, e]) => `"${k}": (${e})`)
    .join(', ')} }`;
  try {
    return JSON.parse(JSON.stringify(await jsonata(text).evaluate(record)));
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('fast mapping', () => {
  const fast = compileFastMapping(Object.entries(MAPPING).map(([k, e]) => [k, jsonata(e)]))!;

  it('compiles renames, string literals, $number/$string/$lowercase/$uppercase/$trim and &', () => {
    expect(fast).not.toBeNull();
  });

  it('answers what JSONata answers for every record it does not decline', async () => {
    let answered = 0;
    for (const record of RECORDS) {
      const got = fast(record);
      if (got === FALLBACK) continue;
      answered++;
      expect(got).toEqual(await viaJsonata(record));
    }
    expect(answered).toBe(5);
  });

  it('declines the values it does not handle instead of guessing', () => {
    expect(fast({ id: '0x1F' })).toBe(FALLBACK);
    expect(fast({ id: ' 12' })).toBe(FALLBACK);
    expect(fast({ id: '1', ssn: ['a'] })).toBe(FALLBACK);
    expect(fast({ id: '1', first: 5 })).toBe(FALLBACK);
    expect(fast({ id: '1', email: 42 })).toBe(FALLBACK);
    expect(fast({ id: '12', first: 'A', last: 'B' })).toEqual({ id: 12, name: 'A B' });
  });

  it.each([
    'id[0]',
    'id[]',
    'id#$i',
    '$.id',
    'a.b',
    '$number(id)[0]',
    '$substring(id, 1)',
    '$constructor(id)',
    'id + 1',
    '1',
    '(id)',
  ])('leaves %s to JSONata', (expr) => {
    expect(compileFastMapping([['x', jsonata(expr)]])).toBeNull();
  });

  it('gives the normaliser the same results and quarantine reasons with or without it', async () => {
    const target = { dataset: 'd', schema: { type: 'object', required: ['id'] } };
    const withFast = compileNormaliser({ mapping: MAPPING, target });
    // A mapping with one expression outside the subset runs wholly on JSONata.
    const jsonataOnly = compileNormaliser({ mapping: { ...MAPPING, extra: '$substring("ab", 1)' }, target });
    for (const record of RECORDS) {
      const a = await withFast.normalise(record);
      const b = await jsonataOnly.normalise(record);
      if (b.record) delete b.record.extra;
      expect(a).toEqual(b);
    }
  });
});
