// Feature hashing of a text's surface form (words, word bigrams, character trigrams) into a fixed
// number of signed buckets: what the hashing fallback embeds, and the lexical part of the default
// embedder (it tells apart texts whose words GloVe puts close together).
import { words } from './embedder';

const STOPWORDS = new Set(
  (
    'a an and are as at be by for from has have in is it its of on or that the this to was were will with ' +
    'what which who how when where do does did can i you we they our your my me not no'
  ).split(' '),
);

/** FNV-1a, 32 bit: fast and stable across processes (the index depends on it). */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A crude suffix stripper so "payments" and "payment" share buckets. */
export function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (word.length > suffix.length + 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

export function lexicalFeatures(text: string, dims: number): Float64Array {
  const out = new Float64Array(dims);
  const add = (feature: string, weight: number) => {
    const h = fnv1a(feature);
    out[h % dims]! += (h & 0x80000000 ? -1 : 1) * weight;
  };
  const tokens = words(text)
    .filter((w) => !STOPWORDS.has(w))
    .map(stem);
  for (let i = 0; i < tokens.length; i++) {
    add(`w:${tokens[i]}`, 1);
    if (i > 0) add(`b:${tokens[i - 1]} ${tokens[i]}`, 0.5);
    const padded = `#${tokens[i]}#`;
    for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, 0.25);
  }
  return out;
}
