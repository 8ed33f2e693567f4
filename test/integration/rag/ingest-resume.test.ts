// Resumable ingestion (docs/rag.md, "Ingestion jobs"): a job whose runner stops renewing its lease
// (its process died, or hangs) is taken over by another copy of the service and completed once;
// the stalled runner, should it wake, is fenced off and writes nothing; a job interrupted
// RAG_JOB_MAX_ATTEMPTS times fails with a reason; expired cache answers are purged, live ones kept.
// Two rag modules over one real database stand for two processes.
import path from 'node:path';
import { registryOf } from '../../../launcher/registry';
import type { Caller } from '../../../platform/auth/caller';
import { NotFoundError } from '../../../platform/errors/domain-errors';
import { createLogger } from '../../../platform/logging/logger';
import type { Embedder } from '../../../subgraphs/rag/embedding/embedder';
import { createEmbedder } from '../../../subgraphs/rag/embedding/embedder.factory';
import { startRagMaintenance } from '../../../subgraphs/rag/maintenance';
import { loadRagConfig, type RagConfig } from '../../../subgraphs/rag/rag.config';
import { createRagModule, type RagModule } from '../../../subgraphs/rag/rag.module';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { until } from '../../support/waiting';

jest.setTimeout(120_000);

let db: TestDatabase;
let embedder: Embedder;
const broker = {
  inference: async () =>
    ({ response: 'an answer', model_used: 'offline', tokens_used: 3, rag_chunks_used: 1, sources: ['x'] }) as never,
};
const caller = (tenant: string): Caller => ({ correlationId: `c-${tenant}`, headerTenant: tenant });

function config(env: Record<string, string>): RagConfig {
  const c = loadRagConfig({ ...process.env, ...env }, registryOf(), { requireAuth: false });
  return { ...c, embedding: { ...c.embedding, cacheDir: path.resolve(c.embedding.cacheDir) } };
}

/** An embedder that never answers until released: a runner stuck (or dead) mid-job. */
function stalled(real: Embedder) {
  let release!: () => void;
  let waiting = false;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const wrapped: Embedder = Object.assign(Object.create(real) as Embedder, {
    embed: async (texts: string[]) => {
      waiting = true;
      await gate;
      return real.embed(texts);
    },
  });
  // A runner renews its lease at every step before embedding: expire a lease only once its runner
  // waits here, or a step still under way renews it after the test expired it.
  return { embedder: wrapped, release, waiting: () => waiting };
}

async function jobRow(id: string) {
  return (
    await db.sql.query<{
      status: string;
      attempts: number;
      input: unknown;
      lease_owner: string | null;
      error: string | null;
      document_id: string | null;
    }>(
      `SELECT status, attempts, input, lease_owner, error, document_id::text FROM rag_ingest_jobs WHERE id = $1::uuid`,
      [id],
    )
  ).rows[0]!;
}

beforeAll(async () => {
  db = await createTestDatabase();
  const c = config({});
  embedder = await createEmbedder(c.embedding);
});
afterAll(async () => {
  await db?.drop();
});

/**
 * The lease of a job runs out now: the tests expire it in SQL instead of waiting for a short
 * lease on the clock, so a loaded machine can neither expire it too early nor too late.
 */
async function expireLease(id: string): Promise<void> {
  await db.sql.query(`UPDATE rag_ingest_jobs SET lease_until = now() - interval '1 second' WHERE id = $1::uuid`, [id]);
}

test('a job whose runner stalls is resumed by another copy once its lease runs out, and indexed exactly once', async () => {
  const stuck = stalled(embedder);
  const first: RagModule = createRagModule({
    db,
    config: config({ RAG_JOB_LEASE_MS: '600000' }),
    embedder: stuck.embedder,
    broker,
  });
  const second: RagModule = createRagModule({ db, config: config({ RAG_JOB_LEASE_MS: '600000' }), embedder, broker });
  const job = await first.documents.startIngest(caller('resume-a'), {
    title: 'Retention',
    content: '# Retention\nSupplier invoices are kept for ten years.',
    level: 'platform',
  });
  await until(async () => (await jobRow(job.id)).status === 'processing', 'the first runner to start');
  await until(() => stuck.waiting(), 'the first runner to stall');
  const before = await jobRow(job.id);
  expect(before.input).not.toBeNull();

  // Before the lease runs out nothing is taken over.
  expect(await second.documents.resumeAbandoned()).toEqual({ resumed: 0, failed: 0 });
  await expireLease(job.id);
  expect(await second.documents.resumeAbandoned()).toEqual({ resumed: 1, failed: 0 });
  await second.documents.settle();
  const after = await jobRow(job.id);
  expect(after).toMatchObject({ status: 'completed', attempts: 2, input: null });
  expect(after.lease_owner).not.toBe(before.lease_owner);
  const progress = await second.documents.job(caller('resume-a'), job.id);
  expect(progress).toMatchObject({ status: 'completed', percent: 100, documentId: after.document_id });
  // Another tenant cannot read the job.
  await expect(second.documents.job(caller('resume-b'), job.id)).rejects.toThrow(NotFoundError);

  // The first runner wakes: fenced off, it writes neither a second document nor the job's state.
  stuck.release();
  await first.documents.settle();
  const docs = await db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM rag_documents WHERE tenant_id = 'resume-a'`,
  );
  expect(docs.rows[0]!.n).toBe(1);
  const events = await db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM outbox_events WHERE tenant_id = 'resume-a' AND event_type = 'rag_ingest'`,
  );
  expect(events.rows[0]!.n).toBe(1);
  expect((await jobRow(job.id)).status).toBe('completed');
  const found = await second.retrieval.retrieve(caller('resume-a'), 'resume-a', {
    query: 'How long are supplier invoices kept?',
    scope: {},
    topK: 3,
    useHybrid: true,
  });
  expect(found.chunks[0]!.documentTitle).toBe('Retention');
});

test('a job interrupted RAG_JOB_MAX_ATTEMPTS times fails with the reason, and is not run again', async () => {
  const cfg = { RAG_JOB_LEASE_MS: '600000', RAG_JOB_MAX_ATTEMPTS: '2' };
  const stuck = [stalled(embedder), stalled(embedder)];
  const runners = stuck.map((s) => createRagModule({ db, config: config(cfg), embedder: s.embedder, broker }));
  const job = await runners[0]!.documents.startIngest(caller('resume-c'), {
    title: 'Doomed',
    content: 'Text that never gets embedded.',
    level: 'platform',
  });
  await until(() => stuck[0]!.waiting(), 'the first runner to stall');
  expect(await runners[1]!.documents.resumeAbandoned()).toEqual({ resumed: 0, failed: 0 });
  await expireLease(job.id);
  expect(await runners[1]!.documents.resumeAbandoned()).toEqual({ resumed: 1, failed: 0 });
  await until(() => stuck[1]!.waiting(), 'the second runner to stall');
  expect((await jobRow(job.id)).attempts).toBe(2);
  await expireLease(job.id);
  expect(await runners[1]!.documents.resumeAbandoned()).toEqual({ resumed: 0, failed: 1 });
  const row = await jobRow(job.id);
  expect(row).toMatchObject({ status: 'failed', attempts: 2, input: null });
  expect(row.error).toContain('interrupted 2 times');
  for (const s of stuck) s.release();
  for (const r of runners) await r.documents.settle();
  expect((await jobRow(job.id)).status).toBe('failed');
  const docs = await db.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM rag_documents WHERE tenant_id = 'resume-c'`,
  );
  expect(docs.rows[0]!.n).toBe(0);
});

test('maintenance resumes abandoned jobs on its own and purges expired cache answers of every tenant, keeping live ones', async () => {
  const rag = createRagModule({ db, config: config({}), embedder, broker });
  await rag.answers.query(caller('purge-a'), { query: 'What is kept for ten years?' }, {});
  await rag.answers.query(caller('purge-b'), { query: 'Who approves business class?' }, {});
  await db.sql.query(`UPDATE rag_query_cache SET expires_at = now() - interval '1 second' WHERE tenant_id = 'purge-a'`);
  const stuck = stalled(embedder);
  const dead = createRagModule({ db, config: config({ RAG_JOB_LEASE_MS: '100' }), embedder: stuck.embedder, broker });
  const job = await dead.documents.startIngest(caller('purge-a'), {
    title: 'Orphan',
    content: 'Orphaned text about archives.',
    level: 'platform',
  });
  await new Promise((r) => setTimeout(r, 200));

  const maintenance = startRagMaintenance({
    ...rag,
    tenantIndexMinChunks: 0,
    intervalMs: 50,
    logger: createLogger('ERROR', 'rag'),
  });
  try {
    await until(async () => (await jobRow(job.id)).status === 'completed', 'the orphaned job to be resumed');
    const left = await db.sql.query<{ tenant_id: string }>(
      `SELECT tenant_id FROM rag_query_cache WHERE tenant_id IN ('purge-a', 'purge-b')`,
    );
    expect(left.rows.map((r) => r.tenant_id)).toEqual(['purge-b']);
  } finally {
    await maintenance.stop();
    stuck.release();
    await dead.documents.settle();
  }
});
