// The retrieval benchmark's generated corpora (deterministic).
//
// `topical` (the default) is built to behave like text: each document is about one topic (now and
// then two), a topic being a seed word and its 80 nearest words in the GloVe space the embedder
// uses, and the rest of each sentence is drawn from the 5,000 most frequent words by Zipf's law,
// as words are in real text. So documents on a topic share words and meaning, common words are
// everywhere and rare words rare.
//
// `uniform` (the first benchmark's corpus) draws every word uniformly from about 150 policy words:
// every chunk looks like every other, each word is in a third to a half of all chunks. It is the
// worst case for both indexes (HNSW recall@10 0.51 at 100,000 chunks; docs/rag.md) and is kept to
// show it.
import path from 'node:path';
import { words } from '../subgraphs/rag/embedding/embedder';
import { GLOVE_DIMS, loadGloveTable } from '../subgraphs/rag/embedding/glove-cache';
import { sifWeight } from '../subgraphs/rag/embedding/sif-glove.embedder';
import labelled from '../test/fixtures/rag/labelled-set.json';

export type CorpusKind = 'topical' | 'uniform';
export interface GeneratedDocument {
  title: string;
  text: string;
}

export function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function document(d: number, sentence: () => string): GeneratedDocument {
  const sections = Array.from(
    { length: 5 },
    (_, s) => `## Section ${s + 1}\n${Array.from({ length: 8 }, () => `${sentence()}.`).join(' ')}`,
  );
  return { title: `Generated document ${d}`, text: `# Generated document ${d}\n${sections.join('\n\n')}` };
}

function uniform(docs: number): GeneratedDocument[] {
  const random = prng(7);
  const vocabulary = [...new Set(labelled.passages.flatMap((p) => words(p.text)))].concat(
    'account audit balance budget capital claim client compliance contract control credit customer data deadline debt disclosure employee evidence exposure fee filing fraud fund governance guarantee incident income insurance interest invoice investor liability licence loan margin market obligation payment penalty pension policy portfolio premium privacy procurement record regulator report reserve retention review risk salary security settlement shareholder supplier tax trade training transfer vendor wage warranty'.split(
      ' ',
    ),
  );
  const pick = () => vocabulary[Math.floor(random() * vocabulary.length)]!;
  return Array.from({ length: docs }, (_, d) => document(d, () => Array.from({ length: 12 }, pick).join(' ')));
}

const VOCABULARY = 30_000;
const GENERAL = 5_000;
const TOPICS = 300;
const TOPIC_WORDS = 80;
const TOPIC_SHARE = 0.35;

async function topical(docs: number, cacheDir: string): Promise<GeneratedDocument[]> {
  const random = prng(7);
  const table = await loadGloveTable(cacheDir, 100_000, sifWeight);
  const ranked: { word: string; rank: number }[] = [];
  for (const [word, rank] of table.index)
    if (rank < VOCABULARY && /^[a-z]{3,}$/.test(word)) ranked.push({ word, rank });
  ranked.sort((a, b) => a.rank - b.rank);
  const unit = (rank: number) => {
    const v = table.vectors.subarray(rank * GLOVE_DIMS, (rank + 1) * GLOVE_DIMS);
    const norm = Math.hypot(...v) || 1;
    return Array.from(v, (x) => x / norm);
  };
  const units = ranked.map((w) => unit(w.rank));
  const topics = Array.from({ length: TOPICS }, () => {
    const seed = 500 + Math.floor(random() * (15_000 - 500));
    const s = units[seed]!;
    return units
      .map((u, i) => ({ i, c: u.reduce((acc, x, d) => acc + x * s[d]!, 0) }))
      .sort((a, b) => b.c - a.c)
      .slice(0, TOPIC_WORDS)
      .map((x) => ranked[x.i]!.word);
  });
  // Zipf over the most frequent words: rank r with probability about 1 / r.
  const general = () => ranked[Math.min(GENERAL, Math.floor(Math.pow(GENERAL + 1, random()))) - 1]!.word;
  return Array.from({ length: docs }, (_, d) => {
    const about = [topics[Math.floor(random() * TOPICS)]!];
    if (random() < 0.3) about.push(topics[Math.floor(random() * TOPICS)]!);
    const topicWord = () => {
      const t = about[Math.floor(random() * about.length)]!;
      return t[Math.floor(TOPIC_WORDS * random() * random())]!;
    };
    return document(d, () =>
      Array.from({ length: 12 }, () => (random() < TOPIC_SHARE ? topicWord() : general())).join(' '),
    );
  });
}

export function generateCorpus(
  kind: CorpusKind,
  docs: number,
  cacheDir: string,
): Promise<GeneratedDocument[]> | GeneratedDocument[] {
  return kind === 'uniform' ? uniform(docs) : topical(docs, path.resolve(cacheDir));
}
