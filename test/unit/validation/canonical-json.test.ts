// The direct canonical-JSON writer against the `canonicalize` package (the reference the
// registry signs with): the same text for plain JSON data of any shape, and undefined for what
// only the package has rules for.
import canonicalize from 'canonicalize';
import { canonicalJsonOfData } from '../../../subgraphs/validation/canonical-json';
import { canonicalText } from '../../../subgraphs/validation/pack.digest';

// A small deterministic generator (mulberry32), so a failure names a reproducible case.
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = [
  '',
  'plain',
  'quote "',
  'back\\slash',
  'tab\t',
  'nul\u0000',
  '\u001f',
  'é',
  '€uro',
  '😀',
  '\ud800',
  'b',
  'B',
  'a',
  '10',
  '9',
  '_',
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.1,
  1e21,
  1e-7,
  123456789012345680000,
  5e-324,
  Number.MAX_SAFE_INTEGER,
  -2.5e-10,
  333.333,
];

function value(rnd: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const r = rnd();
  if (depth > 3 || r < 0.45) {
    const k = rnd();
    return k < 0.4 ? pick(STRINGS) : k < 0.8 ? pick(NUMBERS) : k < 0.9 ? rnd() < 0.5 : null;
  }
  if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(rnd, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(rnd() * 5); i > 0; i--)
    o[pick(STRINGS) + (rnd() < 0.3 ? pick(STRINGS) : '')] = value(rnd, depth + 1);
  return o;
}

test('writes the same text as the canonicalize package for plain JSON data', () => {
  const rnd = random(35);
  for (let i = 0; i < 3000; i++) {
    const v = value(rnd, 0);
    expect(canonicalJsonOfData(v)).toBe(canonicalize(v));
    // Through JSON text and back, as a request body arrives.
    const parsed: unknown = JSON.parse(JSON.stringify(v));
    expect(canonicalJsonOfData(parsed)).toBe(canonicalize(parsed));
  }
  const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: [true, null] });
  expect(canonicalJsonOfData(nullProto)).toBe('{"a":[true,null],"b":1}');
  expect(canonicalJsonOfData({ toJSON: 'a key, not a method', z: 1 })).toBe(
    canonicalize({ toJSON: 'a key, not a method', z: 1 }),
  );
});

test('leaves what is not plain JSON data to the package, so canonicalText does not change for it', () => {
  const odd: unknown[] = [
    { a: undefined, b: 1 },
    [1, undefined],
    { d: new Date(0) },
    { toJSON: () => ({ x: 1 }) },
    { s: Symbol('s') },
    new Map(),
  ];
  for (const v of odd) {
    expect(canonicalJsonOfData(v)).toBeUndefined();
    expect(canonicalText(v)).toBe(canonicalize(v));
  }
  expect(canonicalJsonOfData({ n: NaN })).toBeUndefined();
  expect(() => canonicalText({ n: NaN })).toThrow('NaN is not allowed');
  expect(() => canonicalText({ n: Infinity })).toThrow('Infinity is not allowed');
});
