// The retrieval evaluation (issue 23) shared by `npm run bench -- rag-eval` and the accuracy test:
// the 70 passages of test/fixtures/rag/eval-set.json and labelled-set.json ingested as platform
// documents of one tenant, then each question of a split ranked by vector search, full-text
// search (the hybrid's text side: question plus expansion) and hybrid search, and scored by
// recall@1, recall@5 and MRR on the passage that answers it.
import type { Caller } from '../../platform/auth/caller';
import type { ScopeFilter } from '../../subgraphs/rag/chunk-search.store';
import { createChunkSearchStore } from '../../subgraphs/rag/chunk-search.store';
import type { RagConfig } from '../../subgraphs/rag/rag.config';
import type { RagModule } from '../../subgraphs/rag/rag.module';
import type { SqlExecutor } from '../../platform/db/sql';
import evalSet from '../fixtures/rag/eval-set.json';
import labelled from '../fixtures/rag/labelled-set.json';

export type EvalMode = 'vector' | 'full-text' | 'hybrid';
export const EVAL_MODES: readonly EvalMode[] = ['vector', 'full-text', 'hybrid'];
/** Also printed by the bench: hybrid as the service runs it by default, top_k 5 (its pools and soft-match set are smaller). */
export type BenchMode = EvalMode | 'hybrid-k5';

export interface Question {
  q: string;
  answer: string;
}
export interface Scores {
  recall1: number;
  recall5: number;
  mrr: number;
  misses: { q: string; answer: string; rank: number }[];
}

/** dev: tuning allowed (the eval set's dev questions and the labelled set's 20); heldout: frozen, never tuned on. */
export const SPLITS: Record<'dev' | 'heldout', Question[]> = {
  dev: [...evalSet.dev, ...labelled.queries.map((q) => ({ q: q.q, answer: q.answer }))],
  heldout: evalSet.heldout,
};

export const PASSAGES: { id: string; text: string }[] = [...evalSet.passages, ...labelled.passages].map((p) => ({
  id: p.id,
  text: p.text,
}));

/** Ingests every passage as a platform document titled with its id. */
export async function ingestEvalCorpus(rag: RagModule, caller: Caller): Promise<void> {
  for (const p of PASSAGES) {
    await rag.documents.upload(
      caller,
      { bytes: Buffer.from(p.text), filename: `${p.id}.txt` },
      { title: p.id, level: 'platform' },
      {},
    );
  }
}

/** Ranked passage ids of a question for each mode (top 20). */
export function rankers(
  rag: RagModule,
  sql: SqlExecutor,
  config: RagConfig,
  caller: Caller,
  tenantId: string,
): Record<BenchMode, (q: string) => Promise<string[]>> {
  const filter: ScopeFilter = {
    tenantId,
    levels: ['platform'],
    scope: {},
    accessLevels: ['internal', 'external', 'public'],
  };
  const search = createChunkSearchStore(sql, {
    exactSearchMaxRows: config.exactSearchMaxRows,
    efSearch: config.efSearch,
  });
  const retrieve = async (q: string, useHybrid: boolean, topK = 20) =>
    (await rag.retrieval.retrieve(caller, tenantId, { query: q, scope: {}, topK, useHybrid })).chunks.map(
      (c) => c.documentTitle,
    );
  return {
    vector: (q) => retrieve(q, false),
    'full-text': async (q) =>
      (await search.fullText(filter, q, 20, config.textCandidates, rag.retrieval.expansion(q))).map(
        (h) => h.documentTitle,
      ),
    hybrid: (q) => retrieve(q, true),
    'hybrid-k5': (q) => retrieve(q, true, 5),
  };
}

export async function score(rank: (q: string) => Promise<string[]>, questions: readonly Question[]): Promise<Scores> {
  let recall1 = 0;
  let recall5 = 0;
  let mrr = 0;
  const misses: Scores['misses'] = [];
  for (const q of questions) {
    const position = (await rank(q.q)).indexOf(q.answer) + 1;
    if (position === 1) recall1++;
    if (position > 0 && position <= 5) recall5++;
    if (position > 0) mrr += 1 / position;
    if (position !== 1) misses.push({ q: q.q, answer: q.answer, rank: position });
  }
  const n = questions.length;
  return { recall1: recall1 / n, recall5: recall5 / n, mrr: mrr / n, misses };
}
