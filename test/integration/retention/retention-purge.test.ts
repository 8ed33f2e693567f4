// Retention enforcement on a real database: each owning service's purge function under the
// platform's purge pass (platform/retention/purge-pass.ts). Records older than the tenant's policy
// go, in audited batches (`retention.purged` in the outbox with counts, never data); newer ones,
// another tenant's, running jobs and the records of a held subject stay; a hold on the whole type
// stops the purge. The subject vault seals and shreds (platform/vault).
import { randomBytes, randomUUID } from 'node:crypto';
import { runPurgePass, RETENTION_PURGED_EVENT, type PurgeTarget } from '../../../platform/retention/purge-pass';
import { retentionSweeper } from '../../../platform/retention/retention-sweeper';
import { insertHold, upsertPolicy } from '../../../platform/retention/retention.store';
import { ERASED, SubjectVault } from '../../../platform/vault/subject-vault';
import { purgeAiUsage } from '../../../subgraphs/ai-broker/usage.store';
import { purgeOcrJobs } from '../../../subgraphs/ocr/ocr.store';
import { createConversationStore, purgeRagConversations } from '../../../subgraphs/rag/conversation.store';
import { purgeRagDocuments } from '../../../subgraphs/rag/document.store';
import { purgeWorkflowPayloads } from '../../../subgraphs/workflow/execution.store';
import { createTestDatabase, type TestDatabase } from '../../support/database';

jest.setTimeout(60_000);

const A = 'ret-a';
const B = 'ret-b';
const DAY = 86_400_000;
// The pass's clock: records "created" 100 days before it are old under a 30-day policy.
const NOW = new Date('2030-01-01T00:00:00Z');
const OLD = new Date(NOW.getTime() - 100 * DAY);
const RECENT = new Date(NOW.getTime() - 5 * DAY);

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

const target = (recordType: PurgeTarget['recordType'], service: string, purge: PurgeTarget['purge']): PurgeTarget => ({
  recordType,
  service,
  purge,
});

async function purgedEvents(tenantId: string, recordType: string) {
  const res = await db.sql.query<{ data: Record<string, unknown> }>(
    `SELECT event_data AS data FROM outbox_events WHERE tenant_id = $1 AND event_type = $2 ORDER BY id`,
    [tenantId, RETENTION_PURGED_EVENT],
  );
  return res.rows
    .map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data))
    .filter((d) => d.record_type === recordType);
}

async function usage(tenantId: string, userId: string | null, at: Date): Promise<string> {
  const id = randomUUID();
  await db.sql.query(
    `INSERT INTO ai_usage (id, tenant_id, user_id, correlation_id, operation, status, created_at) VALUES ($1::uuid, $2, $3, 'c', 'inference', 'ok', $4)`,
    [id, tenantId, userId, at],
  );
  return id;
}

async function count(table: string, tenantId: string): Promise<number> {
  const res = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [
    tenantId,
  ]);
  return Number(res.rows[0]!.n);
}

describe('ai_usage', () => {
  it('deletes what is older than the policy in audited batches; keeps recent rows, held subjects and other tenants', async () => {
    for (let i = 0; i < 5; i++) await usage(A, 'ann', OLD);
    await usage(A, 'held-user', OLD);
    await usage(A, 'ann', RECENT);
    await usage(B, 'ben', OLD);
    await upsertPolicy(db.sql, A, 'ai_usage', 30, 'admin');
    await insertHold(
      db.sql,
      A,
      { recordType: 'ai_usage', subjectId: 'held-user', subjectRef: 'f'.repeat(64), reason: 'litigation' },
      'admin',
    );

    const outcomes = await runPurgePass(db.sql, target('ai_usage', 'ai-broker', purgeAiUsage), {
      now: NOW,
      batchSize: 2,
    });
    expect(outcomes).toEqual([expect.objectContaining({ tenantId: A, purged: 5, held: false })]);
    expect(await count('ai_usage', A)).toBe(2);
    expect(await count('ai_usage', B)).toBe(1);
    // Batches of 2: 2 + 2 + 1, each with its own audit event and counts only.
    const events = await purgedEvents(A, 'ai_usage');
    expect(events.map((e) => e.purged)).toEqual([2, 2, 1]);
    expect(events[0]).toEqual({
      record_type: 'ai_usage',
      retain_days: 30,
      cutoff: new Date(NOW.getTime() - 30 * DAY).toISOString(),
      purged: 2,
      held_subjects: 1,
    });
    expect(await purgedEvents(B, 'ai_usage')).toEqual([]);
  });

  it('a hold on the whole record type stops the purge', async () => {
    await usage(A, 'ann', OLD);
    const hold = await insertHold(
      db.sql,
      A,
      { recordType: null, subjectId: null, subjectRef: null, reason: 'audit' },
      'admin',
    );
    const outcomes = await runPurgePass(db.sql, target('ai_usage', 'ai-broker', purgeAiUsage), { now: NOW });
    expect(outcomes).toEqual([expect.objectContaining({ tenantId: A, purged: 0, held: true })]);
    await db.sql.query(`UPDATE legal_holds SET released_at = now() WHERE id = $1::uuid`, [hold.id]);
    const after = await runPurgePass(db.sql, target('ai_usage', 'ai-broker', purgeAiUsage), { now: NOW });
    expect(after[0]!.purged).toBe(1);
  });
});

describe('ocr_job', () => {
  async function job(tenantId: string, status: string, at: Date): Promise<string> {
    const id = randomUUID();
    await db.sql.query(
      `INSERT INTO ocr_jobs (id, tenant_id, user_id, document_hash, mime_type, status, extracted_text, created_at, updated_at)
       VALUES ($1::uuid, $2, 'ann', $3, 'image/png', $4, 'Jane Doe, 12 Main St', $5, $5)`,
      [id, tenantId, randomBytes(32).toString('hex'), status, at],
    );
    return id;
  }

  it('deletes finished jobs with their reviews and cache entries; running jobs stay', async () => {
    const done = await job(A, 'completed', OLD);
    const running = await job(A, 'processing', OLD);
    const fresh = await job(A, 'completed', RECENT);
    await db.sql.query(
      `INSERT INTO ocr_reviews (id, tenant_id, job_id, corrected_text, confidence_after_review) VALUES ($1::uuid, $2, $3::uuid, 'x', 1)`,
      [randomUUID(), A, done],
    );
    await db.sql.query(
      `INSERT INTO ocr_cache (tenant_id, document_hash, job_id, extracted_text, tier_used, confidence_score, created_at)
       SELECT tenant_id, document_hash, id, 'Jane Doe', 'tier1', 0.9, created_at FROM ocr_jobs WHERE id = $1::uuid`,
      [done],
    );
    await upsertPolicy(db.sql, A, 'ocr_job', 30, 'admin');
    const [outcome] = await runPurgePass(db.sql, target('ocr_job', 'ocr', purgeOcrJobs), { now: NOW });
    expect(outcome!.purged).toBe(2); // the job and its cache entry
    const left = await db.sql.query<{ id: string }>(`SELECT id::text FROM ocr_jobs WHERE tenant_id = $1 ORDER BY id`, [
      A,
    ]);
    expect(left.rows.map((r) => r.id).sort()).toEqual([running, fresh].sort());
    expect(await count('ocr_reviews', A)).toBe(0);
    expect(await count('ocr_cache', A)).toBe(0);
  });
});

describe('rag_document and rag_conversation', () => {
  it('deletes old documents with their chunks and their share of the term statistics', async () => {
    const id = randomUUID();
    await db.sql.query(
      `INSERT INTO rag_documents (id, tenant_id, level, title, content_hash, created_by, created_at, updated_at) VALUES ($1::uuid, $2, 'platform', 'Old policy', $3, 'ann', $4, $4)`,
      [id, A, 'a'.repeat(64), OLD],
    );
    await db.sql.query(
      `INSERT INTO rag_chunks (id, document_id, tenant_id, ord, content, content_tsv) VALUES ($1::uuid, $2::uuid, $3, 0, 'retention schedule', to_tsvector('english', 'retention schedule'))`,
      [randomUUID(), id, A],
    );
    await db.sql.query(`INSERT INTO rag_corpus_stats (tenant_id, chunks) VALUES ($1, 1)`, [A]);
    await db.sql.query(
      `INSERT INTO rag_term_stats (tenant_id, lexeme, chunks) VALUES ($1, 'retent', 1), ($1, 'schedul', 1)`,
      [A],
    );
    await upsertPolicy(db.sql, A, 'rag_document', 30, 'admin');
    const [outcome] = await runPurgePass(db.sql, target('rag_document', 'rag', purgeRagDocuments), { now: NOW });
    expect(outcome!.purged).toBe(1);
    expect(await count('rag_documents', A)).toBe(0);
    expect(await count('rag_chunks', A)).toBe(0);
    const stats = await db.sql.query<{ chunks: number }>(`SELECT chunks FROM rag_corpus_stats WHERE tenant_id = $1`, [
      A,
    ]);
    expect(Number(stats.rows[0]!.chunks)).toBe(0);
  });

  it('deletes conversations idle since before the cutoff, with their messages', async () => {
    const store = createConversationStore(db.sql);
    const old = await store.create(A, 'ann', {});
    await store.addExchange(A, old.id, 'q', 'a', 0);
    const recent = await store.create(A, 'ann', {});
    await db.sql.query(`UPDATE rag_conversations SET updated_at = $2 WHERE id = $1::uuid`, [old.id, OLD]);
    await db.sql.query(`UPDATE rag_conversations SET updated_at = $2 WHERE id = $1::uuid`, [recent.id, RECENT]);
    await upsertPolicy(db.sql, A, 'rag_conversation', 30, 'admin');
    const [outcome] = await runPurgePass(db.sql, target('rag_conversation', 'rag', purgeRagConversations), {
      now: NOW,
    });
    expect(outcome!.purged).toBe(1);
    expect(await store.get(A, old.id)).toBeNull();
    expect(await store.get(A, recent.id)).not.toBeNull();
    const msgs = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM rag_messages WHERE conversation_id = $1::uuid`,
      [old.id],
    );
    expect(Number(msgs.rows[0]!.n)).toBe(0);
  });
});

describe('workflow_payload', () => {
  async function execution(tenantId: string, status: string, completedAt: Date | null): Promise<string> {
    const id = randomUUID();
    await db.sql.query(
      `INSERT INTO workflow_executions (id, tenant_id, pack_id, pack_source, workflow_type, status, requires_approval, pack, payload, metadata, context,
         requested_by, correlation_id, created_at, updated_at, completed_at)
       VALUES ($1::uuid, $2, 'p', 'builtin', 'operational', $3, false, '{}', '{"ssn":"123-45-6789"}', '{}', '{"customer":"Jane"}', 'ann', 'c', $4, $4, $5)`,
      [id, tenantId, status, OLD, completedAt],
    );
    await db.sql.query(
      `INSERT INTO workflow_steps (workflow_id, path, tenant_id, step, type, idempotency_key, status, output) VALUES ($1::uuid, '0', $2, 's', 'action', $3, 'completed', '{"name":"Jane"}')`,
      [id, tenantId, `${id}:0`],
    );
    return id;
  }
  const payloadOf = async (id: string) =>
    (
      await db.sql.query<{ payload: unknown; context: unknown; output: unknown }>(
        `SELECT e.payload, e.context, s.output FROM workflow_executions e JOIN workflow_steps s ON s.workflow_id = e.id WHERE e.id = $1::uuid`,
        [id],
      )
    ).rows[0];

  it('scrubs the payloads of executions that ended before the cutoff; the execution stays, running ones are untouched', async () => {
    const ended = await execution(A, 'completed', OLD);
    const running = await execution(A, 'running', null);
    await upsertPolicy(db.sql, A, 'workflow_payload', 90, 'admin');
    const [outcome] = await runPurgePass(db.sql, target('workflow_payload', 'workflow', purgeWorkflowPayloads), {
      now: NOW,
    });
    expect(outcome!.purged).toBe(1);
    expect(await payloadOf(ended)).toEqual({ payload: {}, context: {}, output: null });
    expect(await payloadOf(running)).toEqual({
      payload: { ssn: '123-45-6789' },
      context: { customer: 'Jane' },
      output: { name: 'Jane' },
    });
    // A second pass finds nothing left to scrub (and audits nothing).
    const [again] = await runPurgePass(db.sql, target('workflow_payload', 'workflow', purgeWorkflowPayloads), {
      now: NOW,
    });
    expect(again!.purged).toBe(0);
    expect((await purgedEvents(A, 'workflow_payload')).length).toBe(1);
  });
});

describe('the sweeper', () => {
  it("runs every target of its service in one pass (what the owning service's timer runs)", async () => {
    await usage(B, 'ben', OLD);
    await upsertPolicy(db.sql, B, 'ai_usage', 365, 'admin');
    await upsertPolicy(db.sql, B, 'rag_conversation', 1, 'admin');
    const logs: unknown[] = [];
    const sweeper = retentionSweeper(
      db.sql,
      [target('ai_usage', 'ai-broker', purgeAiUsage), target('rag_conversation', 'rag', purgeRagConversations)],
      { intervalMs: 0, logger: { info: (o: unknown) => logs.push(o), warn: () => {} } },
    );
    sweeper.start(); // interval 0: no timer
    const outcomes = await sweeper.runOnce(new Date(OLD.getTime() + 400 * DAY));
    expect(outcomes.filter((o) => o.tenantId === B).map((o) => [o.recordType, o.purged])).toEqual([
      ['ai_usage', 2],
      ['rag_conversation', 0],
    ]);
    expect(logs).toHaveLength(1);
    await sweeper.stop();
  });
});

describe('the subject vault', () => {
  const vault = new SubjectVault(randomBytes(32));

  it('seals under a per-subject key, opens in its tenant only, and reads [erased] once the key is destroyed', async () => {
    const sealed = await vault.seal(db.sql, A, 'alice', 'alice@example.com');
    const other = await vault.seal(db.sql, A, 'carol', 'carol@example.com');
    expect(sealed).toMatch(/^sv1:/);
    expect(sealed).not.toContain('alice');
    expect(await vault.openMany(db.sql, A, [sealed, other, 'plain text'])).toEqual([
      'alice@example.com',
      'carol@example.com',
      'plain text',
    ]);
    // The same ciphertext in another tenant's row does not open.
    expect(await vault.open(db.sql, B, sealed)).toBe(ERASED);
    expect(await vault.knows(db.sql, B, vault.subjectRef(B, 'alice'))).toBe(false);

    expect(await vault.destroy(db.sql, A, vault.subjectRef(A, 'alice'))).toBe(1);
    expect(await vault.openMany(db.sql, A, [sealed, other])).toEqual([ERASED, 'carol@example.com']);
    const row = await db.sql.query<{ wrapped_key: string | null }>(
      `SELECT wrapped_key FROM subject_keys WHERE tenant_id = $1 AND subject_ref = $2`,
      [A, vault.subjectRef(A, 'alice')],
    );
    expect(row.rows).toEqual([{ wrapped_key: null }]);

    // New data after the erasure gets a new key; the old ciphertext stays unrecoverable.
    const later = await vault.seal(db.sql, A, 'alice', 'new address');
    expect(await vault.openMany(db.sql, A, [later, sealed])).toEqual(['new address', ERASED]);
  });

  it('seals conversation messages of a known user, and the erasure leaves them [erased]', async () => {
    const store = createConversationStore(db.sql, vault);
    const c = await store.create(A, 'dave', {});
    await store.addExchange(A, c.id, 'My card is 4111 1111 1111 1111', 'Noted, Dave', 1);
    const raw = await db.sql.query<{ content: string }>(
      `SELECT content FROM rag_messages WHERE conversation_id = $1::uuid`,
      [c.id],
    );
    expect(raw.rows.every((r) => r.content.startsWith('sv1:'))).toBe(true);
    expect((await store.get(A, c.id))!.messages.map((m) => m.content)).toEqual([
      'My card is 4111 1111 1111 1111',
      'Noted, Dave',
    ]);
    await vault.destroy(db.sql, A, vault.subjectRef(A, 'dave'));
    expect((await store.get(A, c.id))!.messages.map((m) => m.content)).toEqual([ERASED, ERASED]);
  });
});
