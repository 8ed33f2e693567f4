// Query expansion from WordNet (docs/rag.md, "Query expansion"): a question paraphrased away from
// its passage ("vacation" for "leave", "vendor" for "supplier") shares few words with it, so the
// full-text side finds nothing and the word vectors only come close. Each content word of the
// question is lemmatised (WordNet's detachment rules, morphy), and its first senses' synonyms and,
// for the first sense, derivationally related forms ("reimburse" → "reimbursement"), hypernyms
// and similar adjectives are added with a weight below the question's own words, smaller for
// rarer senses and looser relations. Only the question is expanded: the index is unchanged.
import { words } from '../embedding/embedder';
import type { PartOfSpeech, Synset, WordNet } from './wordnet';

export interface ExpansionTerm {
  word: string;
  /** Relative to a word of the question itself (1). */
  weight: number;
}

export interface ExpansionOptions {
  /** Senses per part of speech taken into account, most frequent first. */
  senses: number;
  /** Weight of a synonym in the first sense; sense i (0-based) gets synonym / (1 + i). */
  synonym: number;
  /** Weight of a derivationally related form, hypernym, similar adjective (first sense only). */
  related: number;
  /** At most this many expansion words per question word, strongest first. */
  perWord: number;
  /** At most this many expansion words per question, strongest first (the text search keeps the MAX_EXPANSION_TERMS strongest by IDF). */
  maxTerms: number;
}

/** Tuned on the dev split of the evaluation set (docs/benchmarks.md). */
export const DEFAULT_EXPANSION: ExpansionOptions = { senses: 3, synonym: 0.6, related: 0.4, perWord: 12, maxTerms: 32 };

// Function words and verbs too general for their synonyms to say anything about a question.
const SKIP = new Set(
  (
    'a am an and are as at be been being by for from has have had in is it its of on or that the this these those to was were ' +
    'will with what which who whom whose how when where why do does did done can could would should shall may might must i you we they ' +
    'he she him her them our your my me us their not no if than then there here so any all some each every about into over after before ' +
    'get gets got make makes made take takes took go goes went need needs use used one two also just more most much many very own same'
  ).split(' '),
);

const DETACH: Record<PartOfSpeech, [string, string][]> = {
  n: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  v: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  a: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  r: [],
};

/** WordNet's base forms of a word for a part of speech (the word itself first when WordNet has it). */
export function baseForms(wn: WordNet, word: string, pos: PartOfSpeech): string[] {
  const out: string[] = [];
  if (wn.has(word, pos)) out.push(word);
  for (const [suffix, ending] of DETACH[pos]) {
    if (word.length > suffix.length + 1 && word.endsWith(suffix)) {
      const base = word.slice(0, -suffix.length) + ending;
      if (!out.includes(base) && wn.has(base, pos)) out.push(base);
    }
  }
  return out;
}

export class QueryExpander {
  constructor(
    private readonly wn: WordNet,
    private readonly options: ExpansionOptions = DEFAULT_EXPANSION,
  ) {}

  /** Expansion words of a question (at most maxTerms), each once with its strongest weight; never a word of the question. */
  expand(query: string): ExpansionTerm[] {
    return this.merge(this.expandEach(query));
  }

  /** expandEach's lists as one, each word once with its strongest weight, at most maxTerms. */
  merge(each: ReadonlyMap<string, readonly ExpansionTerm[]>): ExpansionTerm[] {
    const total = new Map<string, number>();
    for (const terms of each.values()) {
      for (const { word, weight } of terms) if ((total.get(word) ?? 0) < weight) total.set(word, weight);
    }
    return [...total]
      .map(([word, weight]) => ({ word, weight }))
      .sort((a, b) => b.weight - a.weight || a.word.localeCompare(b.word))
      .slice(0, this.options.maxTerms);
  }

  /** The expansion words of each content word of the question (soft matching counts them as near-matches). */
  expandEach(query: string): Map<string, ExpansionTerm[]> {
    const tokens = words(query)
      .map((w) => w.replace(/['’]s$/, ''))
      .filter((w) => w.length > 1 && !SKIP.has(w) && !/^\d+$/.test(w));
    const own = new Set<string>(tokens);
    for (const t of tokens)
      for (const pos of ['n', 'v', 'a', 'r'] as const) for (const b of baseForms(this.wn, t, pos)) own.add(b);
    const each = new Map<string, ExpansionTerm[]>();
    for (const token of new Set(tokens)) {
      const found = new Map<string, number>();
      const add = (lemma: string, weight: number) => {
        // Single words only: a multi-word lemma's parts ("time off" → "time") mislead more than help.
        if (lemma.includes(' ') || lemma.includes('-') || own.has(lemma) || SKIP.has(lemma)) return;
        if ((found.get(lemma) ?? 0) < weight) found.set(lemma, weight);
      };
      for (const pos of ['n', 'v', 'a', 'r'] as const) {
        for (const base of baseForms(this.wn, token, pos)) {
          for (const entry of this.wn.senses(base).filter((e) => e.pos === pos)) {
            entry.offsets.slice(0, this.options.senses).forEach((offset, i) => {
              const synset = this.wn.synset(pos, offset);
              for (const lemma of synset.lemmas) add(lemma, this.options.synonym / (1 + i));
              if (i === 0) this.related(synset, add);
            });
          }
        }
      }
      const strongest = [...found]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, this.options.perWord);
      each.set(
        token,
        strongest.map(([word, weight]) => ({ word, weight })),
      );
    }
    return each;
  }

  private related(synset: Synset, add: (lemma: string, weight: number) => void): void {
    for (const p of synset.pointers) {
      if (p.symbol !== '+' && p.symbol !== '@' && p.symbol !== '&') continue;
      for (const lemma of this.wn.synset(p.pos, p.offset).lemmas) add(lemma, this.options.related);
    }
  }
}
