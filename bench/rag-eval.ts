// `npm run bench -- rag-eval [dev|heldout|all] [verbose]`: retrieval accuracy on the evaluation set
// (test/fixtures/rag/eval-set.json + labelled-set.json, test/support/rag-eval.ts): recall@1,
// recall@5 and MRR of vector, full-text and hybrid search side by side (top 20), and of hybrid
// at top_k 5 (MRR within the top 5), per split, in one run on PGlite (or PostgreSQL with
// DATABASE_URL). Prints numbers; passes or fails on nothing.
// Tuning reads the dev split only; the held-out split is reported, never tuned on.
// RAG_EVAL_FUSION=method:vector:text:soft:k:expansionVector and RAG_EVAL_EXPANSION=senses:synonym:related:perWord:maxTerms
// override the tuned weights for a sweep, several separated by `;` (bench only; the service has no
// such settings).
import path from 'node:path';
import { registryOf } from '../launcher/registry';
import type { Caller } from '../platform/auth/caller';
import { openDatabase } from '../platform/db/database';
import { createEmbedder } from '../subgraphs/rag/embedding/embedder.factory';
import type { ExpansionOptions } from '../subgraphs/rag/expansion/query-expansion';
import { loadRagConfig } from '../subgraphs/rag/rag.config';
import { createRagModule } from '../subgraphs/rag/rag.module';
import type { FusionOptions } from '../subgraphs/rag/retrieval.service';
import { EVAL_MODES, ingestEvalCorpus, PASSAGES, rankers, score, SPLITS } from '../test/support/rag-eval';

const fmt = (n: number, digits: number) => n.toFixed(digits);
const num = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);

function fusionOverride(raw: string | undefined): FusionOptions | undefined {
  if (!raw) return undefined;
  const [method, v, t, soft, k, ev] = raw.split(':');
  return {
    method: method as FusionOptions['method'],
    vectorWeight: Number(v),
    textWeight: Number(t),
    softWeight: Number(soft),
    k: Number(k || 60),
    expansionVector: Number(ev || 0),
  };
}

function expansionOverride(raw: string | undefined): ExpansionOptions | undefined {
  if (!raw) return undefined;
  const [senses, synonym, related, perWord, maxTerms] = raw.split(':').map(Number);
  return { senses: senses!, synonym: synonym!, related: related!, perWord: perWord!, maxTerms: maxTerms ?? 1000 };
}

export async function run(args: string[] = []): Promise<void> {
  const which = args.find((a) => a === 'dev' || a === 'heldout' || a === 'all') ?? 'all';
  const verbose = args.includes('verbose');
  const env = { ...process.env, LOG_LEVEL: 'ERROR' };
  const db = await openDatabase({ url: process.env.DATABASE_URL, pgliteDir: 'memory://', poolSize: 4 });
  const config = loadRagConfig(env, registryOf(), { requireAuth: false });
  const embedder = await createEmbedder({ ...config.embedding, cacheDir: path.resolve(config.embedding.cacheDir) });
  const fusions = (process.env.RAG_EVAL_FUSION ?? '').split(';');
  const expansions = (process.env.RAG_EVAL_EXPANSION ?? '').split(';');
  const tenantId = `eval-${Date.now()}`;
  const caller: Caller = { correlationId: 'bench', headerTenant: tenantId };
  await ingestEvalCorpus(createRagModule({ db, config, embedder }), caller);
  console.log(
    `retrieval evaluation on ${db.description}, embedder ${embedder.name}, query expansion ${config.queryExpansion}, ${PASSAGES.length} passages`,
  );
  for (const fusion of fusions) {
    for (const expansion of expansions) {
      const rag = createRagModule({
        db,
        config,
        embedder,
        fusion: fusionOverride(fusion),
        expansion: expansionOverride(expansion),
        softFloor: num('RAG_EVAL_SOFT_FLOOR'),
        softRelated: num('RAG_EVAL_SOFT_RELATED'),
      });
      const rank = rankers(rag, db.sql, config, caller, tenantId);
      if (fusion || expansion) console.log(`fusion ${fusion || 'tuned'}, expansion ${expansion || 'tuned'}`);
      for (const split of (which === 'all' ? ['dev', 'heldout'] : [which]) as ('dev' | 'heldout')[]) {
        const questions = SPLITS[split];
        console.log(`${split} split, ${questions.length} questions:`);
        console.log(`  ${'mode'.padEnd(10)} recall@1  recall@5  MRR`);
        for (const mode of [...EVAL_MODES, 'hybrid-k5'] as const) {
          const s = await score(rank[mode], questions);
          console.log(
            `  ${mode.padEnd(10)} ${fmt(s.recall1, 2).padStart(8)}  ${fmt(s.recall5, 2).padStart(8)}  ${fmt(s.mrr, 3)}`,
          );
          if (verbose) for (const m of s.misses) console.log(`      ${m.answer} at ${m.rank || '-'}: ${m.q}`);
        }
      }
    }
  }
  await db.close();
}
