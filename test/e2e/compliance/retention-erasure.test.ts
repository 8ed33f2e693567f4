// Retention and erasure through the compliance service's REST door, with a real ledger behind the
// outbox: policies (422 below the legal minimum, nothing stored), legal holds (another tenant's
// subject is 404), erasure by crypto-shredding (a hold on the subject → 409 and nothing changes;
// after release the subject's sealed PII reads [erased]), and the chains afterwards: the ledger's
// GET /verify passes for the tenant and an inclusion proof of an entry about the erased subject
// still verifies with verifier/verify-proof.cjs. A retention purge run by the owning service's
// pass is audited in the ledger and leaves the chain verifiable too. Roles: tenant admins change,
// plain users and auditors do not (auditors read); another tenant sees none of it.
import { randomUUID } from 'node:crypto';
import { AccessTokens } from '../../../platform/auth/jwt';
import { createLedgerClient } from '../../../platform/clients/ledger.client';
import { createLogger } from '../../../platform/logging/logger';
import { startOutboxRelay, type OutboxRelay } from '../../../platform/outbox/outbox-relay';
import { runPurgePass, RETENTION_PURGED_EVENT } from '../../../platform/retention/purge-pass';
import { ERASED, SubjectVault } from '../../../platform/vault/subject-vault';
import { subjectVaultKey } from '../../../platform/vault/vault.config';
import { relayTokenProvider } from '../../../launcher/outbox-task';
import { complianceService } from '../../../services/compliance';
import { ledgerService } from '../../../services/ledger';
import { purgeAiUsage } from '../../../subgraphs/ai-broker/usage.store';
import { createConversationStore } from '../../../subgraphs/rag/conversation.store';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort } from '../../support/waiting';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const verifier = require('../../../verifier/verify-proof.cjs') as { verify(doc: unknown, jwks: unknown): string };

jest.setTimeout(120_000);

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const A = 'ret-e2e-a';
const B = 'ret-e2e-b';

let h: Harness;
let relay: OutboxRelay;
let url: string;
let ledgerUrl: string;
const t: Record<string, string> = {};

async function call(token: string, method: string, base: string, p: string, body?: unknown) {
  const res = await fetch(base + p, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
}
const api = (token: string, method: string, p: string, body?: unknown) => call(token, method, url, p, body);

/** Every outbox row delivered to the ledger (the relay is run by hand: no wall-clock waits). */
async function deliverAll() {
  for (let i = 0; i < 20; i++) {
    await relay.runOnce();
    const left = await h.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE delivered_at IS NULL AND dead_lettered_at IS NULL`,
    );
    if (Number(left.rows[0]!.n) === 0) return;
  }
  throw new Error('outbox not drained');
}

async function verifyChain(tenant: string) {
  await deliverAll();
  return call(t.ann!, 'GET', ledgerUrl, `/verify?tenant_id=${tenant}`);
}

beforeAll(async () => {
  const ledgerPort = await freePort();
  h = await startServices(
    [ledgerService, complianceService],
    { REQUIRE_AUTH: 'true', LEDGER_URL: `http://127.0.0.1:${ledgerPort}`, RETENTION_SWEEP_MINUTES: '0' },
    { ports: { ledger: ledgerPort } },
  );
  url = h.services.compliance!.url;
  ledgerUrl = h.services.ledger!.url;
  relay = startOutboxRelay({
    db: h.db,
    ledger: createLedgerClient({ baseUrl: ledgerUrl, timeoutMs: 5000, token: relayTokenProvider(TEST_JWT_SECRET) }),
    logger: createLogger('CRITICAL', 'relay'),
    pollMs: 60_000,
  });
  const user = (username: string, tenantId: string, roles: string[], scopes = ['read', 'write']) =>
    tokens.issue({ username, tenantId, roles, scopes });
  t.ann = await user('ann', A, ['admin']);
  t.uma = await user('uma', A, ['user']);
  t.audrey = await user('audrey', A, ['auditor']);
  t.bob = await user('bob', B, ['admin']);
});

afterAll(async () => {
  await relay?.stop();
  await h?.close();
});

describe('retention policies', () => {
  it('lists every record type with its legal minimum; a policy below it is 422 and nothing is stored', async () => {
    const list = await api(t.ann!, 'GET', '/api/compliance/retention/policies');
    expect(list.status).toBe(200);
    expect(list.body.policies.map((p: any) => [p.record_type, p.legal_minimum_days, p.retain_days])).toEqual([
      ['ocr_job', 30, null],
      ['rag_document', 30, null],
      ['rag_conversation', 1, null],
      ['ai_usage', 365, null],
      ['workflow_payload', 90, null],
      ['ingestion_batch', 30, null],
    ]);
    const short = await api(t.ann!, 'POST', '/api/compliance/retention/policies', {
      record_type: 'ai_usage',
      retain_days: 30,
    });
    expect(short.status).toBe(422);
    expect(short.body.detail[0]).toMatchObject({ loc: ['body', 'retain_days'], type: 'greater_than_equal' });
    expect(short.body.detail[0].msg).toContain('365');
    const unknown = await api(t.ann!, 'POST', '/api/compliance/retention/policies', {
      record_type: 'emails',
      retain_days: 400,
    });
    expect([unknown.status, unknown.body.detail[0].loc]).toEqual([422, ['body', 'record_type']]);
    const after = await api(t.ann!, 'GET', '/api/compliance/retention/policies');
    expect(after.body.policies.every((p: any) => p.retain_days === null)).toBe(true);
    const outbox = await h.db.sql.query(`SELECT 1 FROM outbox_events WHERE tenant_id = $1`, [A]);
    expect(outbox.rows).toEqual([]);
  });

  it('a tenant admin sets and removes a policy (audited); users and auditors cannot; another tenant sees nothing', async () => {
    const set = await api(t.ann!, 'POST', '/api/compliance/retention/policies', {
      record_type: 'ai_usage',
      retain_days: 400,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      record_type: 'ai_usage',
      retain_days: 400,
      legal_minimum_days: 365,
      updated_by: 'ann',
    });
    for (const who of ['uma', 'audrey']) {
      const r = await api(t[who]!, 'POST', '/api/compliance/retention/policies', {
        record_type: 'ocr_job',
        retain_days: 60,
      });
      expect(r.status).toBe(403);
      expect((await api(t[who]!, 'DELETE', '/api/compliance/retention/policies/ai_usage')).status).toBe(403);
    }
    expect((await api(t.audrey!, 'GET', '/api/compliance/retention/policies')).status).toBe(200);
    const other = await api(t.bob!, 'GET', '/api/compliance/retention/policies');
    expect(other.body.policies.find((p: any) => p.record_type === 'ai_usage').retain_days).toBeNull();
    expect((await api(t.bob!, 'GET', `/api/compliance/retention/policies?tenant_id=${A}`)).status).toBe(403);
    expect(
      (
        await api(t.bob!, 'POST', '/api/compliance/retention/policies', {
          record_type: 'ocr_job',
          retain_days: 60,
          tenant_id: A,
        })
      ).status,
    ).toBe(403);
    expect((await api(t.ann!, 'DELETE', '/api/compliance/retention/policies/ocr_job')).status).toBe(404);
    const badType = await api(t.ann!, 'DELETE', '/api/compliance/retention/policies/emails');
    expect([badType.status, badType.body.detail[0].loc]).toEqual([422, ['path', 'record_type']]);
    for (const retain of [3.5, '400', 10_000_000])
      expect(
        (
          await api(t.ann!, 'POST', '/api/compliance/retention/policies', {
            record_type: 'ocr_job',
            retain_days: retain,
          })
        ).status,
      ).toBe(422);
  });
});

describe('a retention purge', () => {
  it('is audited in the ledger with counts only, and the chain still verifies', async () => {
    const old = new Date(Date.now() - 500 * 86_400_000);
    for (const tenant of [A, A, A, B])
      await h.db.sql.query(
        `INSERT INTO ai_usage (id, tenant_id, user_id, correlation_id, operation, status, created_at) VALUES ($1::uuid, $2, 'uma', 'c', 'inference', 'ok', $3)`,
        [randomUUID(), tenant, old],
      );
    // The owning service's pass (what the AI broker's sweeper runs on its timer).
    const outcomes = await runPurgePass(h.db.sql, {
      recordType: 'ai_usage',
      service: 'ai-broker',
      purge: purgeAiUsage,
    });
    expect(outcomes.map((o) => [o.tenantId, o.purged])).toEqual([[A, 3]]);
    const left = await h.db.sql.query<{ tenant_id: string }>(`SELECT tenant_id FROM ai_usage ORDER BY tenant_id`);
    expect(left.rows.map((r) => r.tenant_id)).toEqual([B]);
    const verify = await verifyChain(A);
    expect(verify.body).toMatchObject({ valid: true });
    const events = await call(t.ann!, 'GET', ledgerUrl, `/events?tenant_id=${A}&event_type=${RETENTION_PURGED_EVENT}`);
    expect(events.body.events.map((e: any) => [e.event_data.record_type, e.event_data.purged])).toEqual([
      ['ai_usage', 3],
    ]);
  });
});

describe('legal holds and erasure', () => {
  const vault = () => new SubjectVault(subjectVaultKey(h.env, TEST_JWT_SECRET));
  let conversationId: string;
  let holdId: string;

  beforeAll(async () => {
    // Alice talked to the knowledge service in tenant A: her messages are sealed under her key.
    const store = createConversationStore(h.db.sql, vault());
    const c = await store.create(A, 'alice', {});
    await store.addExchange(A, c.id, 'I am Alice Smith, alice@example.com', 'Hello Alice', 1);
    conversationId = c.id;
    const carol = await store.create(A, 'carol', {});
    await store.addExchange(A, carol.id, 'I am Carol', 'Hello Carol', 1);
  });

  it("a hold or an erasure naming another tenant's subject is 404; bad input is 422", async () => {
    expect(
      (await api(t.bob!, 'POST', '/api/compliance/legal-holds', { subject_id: 'alice', reason: 'litigation' })).status,
    ).toBe(404);
    expect((await api(t.bob!, 'POST', '/api/compliance/erasure-requests', { subject_id: 'alice' })).status).toBe(404);
    expect((await api(t.ann!, 'POST', '/api/compliance/erasure-requests', { subject_id: 'nobody' })).status).toBe(404);
    expect(
      (await api(t.bob!, 'POST', '/api/compliance/erasure-requests', { subject_id: 'alice', tenant_id: A })).status,
    ).toBe(403);
    const badType = await api(t.ann!, 'POST', '/api/compliance/legal-holds', { record_type: 'x', reason: 'r' });
    expect([badType.status, badType.body.detail[0].loc]).toEqual([422, ['body', 'record_type']]);
    expect((await api(t.ann!, 'GET', '/api/compliance/legal-holds/not-a-uuid')).status).toBe(422);
    expect(
      (await api(t.uma!, 'POST', '/api/compliance/legal-holds', { subject_id: 'alice', reason: 'r' })).status,
    ).toBe(403);
    expect((await api(t.ann!, 'GET', '/api/compliance/legal-holds')).body.holds).toEqual([]);
  });

  it('a hold on the subject blocks the erasure (409, nothing changed); after its release the erasure shreds her PII', async () => {
    const hold = await api(t.ann!, 'POST', '/api/compliance/legal-holds', {
      subject_id: 'alice',
      reason: 'litigation 42',
    });
    expect(hold.status).toBe(201);
    expect(hold.body).toMatchObject({ subject_id: 'alice', active: true, record_type: null });
    expect(hold.body.subject_ref).toMatch(/^[0-9a-f]{64}$/);
    holdId = hold.body.id;
    // Another tenant cannot read or release it.
    expect((await api(t.bob!, 'GET', `/api/compliance/legal-holds/${holdId}`)).status).toBe(404);
    expect((await api(t.bob!, 'POST', `/api/compliance/legal-holds/${holdId}/release`, {})).status).toBe(404);

    const blocked = await api(t.ann!, 'POST', '/api/compliance/erasure-requests', { subject_id: 'alice' });
    expect(blocked.status).toBe(409);
    const store = createConversationStore(h.db.sql, vault());
    expect((await store.get(A, conversationId))!.messages[0]!.content).toBe('I am Alice Smith, alice@example.com');
    expect((await api(t.ann!, 'GET', '/api/compliance/erasure-requests')).body.erasures).toEqual([]);

    expect((await api(t.ann!, 'POST', `/api/compliance/legal-holds/${holdId}/release`, {})).status).toBe(200);
    expect((await api(t.ann!, 'POST', `/api/compliance/legal-holds/${holdId}/release`, {})).status).toBe(409);

    const erased = await api(t.ann!, 'POST', '/api/compliance/erasure-requests', {
      subject_id: 'alice',
      reason: 'GDPR art. 17 request',
    });
    expect(erased.status).toBe(201);
    expect(erased.body).toMatchObject({ keys_destroyed: 1, subject_ref: hold.body.subject_ref, requested_by: 'ann' });
    expect((await store.get(A, conversationId))!.messages.map((m) => m.content)).toEqual([ERASED, ERASED]);
    // Other subjects are untouched; the released hold keeps only the reference.
    const carol = (
      await h.db.sql.query<{ id: string }>(`SELECT id::text FROM rag_conversations WHERE user_id = 'carol'`)
    ).rows[0]!;
    expect((await store.get(A, carol.id))!.messages[0]!.content).toBe('I am Carol');
    const released = await api(t.ann!, 'GET', `/api/compliance/legal-holds/${holdId}`);
    expect(released.body).toMatchObject({ subject_id: null, subject_ref: hold.body.subject_ref, active: false });
    expect((await api(t.audrey!, 'GET', '/api/compliance/erasure-requests')).body.erasures).toHaveLength(1);
    expect((await api(t.audrey!, 'POST', '/api/compliance/erasure-requests', { subject_id: 'carol' })).status).toBe(
      403,
    );
  });

  it("leaves the tenant's chain verifiable and an inclusion proof of an entry about the subject valid", async () => {
    const verify = await verifyChain(A);
    expect(verify.body).toMatchObject({ valid: true });
    const events = await call(t.ann!, 'GET', ledgerUrl, `/events?tenant_id=${A}&limit=1000`);
    const types = events.body.events.map((e: any) => e.event_type);
    expect(types).toEqual(
      expect.arrayContaining([
        'compliance.legal_hold_placed',
        'compliance.legal_hold_released',
        'compliance.subject_erased',
      ]),
    );
    // The ledger never held the subject's id: only its reference.
    expect(JSON.stringify(events.body.events)).not.toContain('alice');
    const placed = events.body.events.find((e: any) => e.event_type === 'compliance.legal_hold_placed');
    const proof = await call(t.ann!, 'GET', ledgerUrl, `/v1/ledger/proofs/inclusion?entry_id=${placed.id}`);
    expect(proof.status).toBe(200);
    const jwks = await (await fetch(`${ledgerUrl}/v1/ledger/jwks`)).json();
    expect(verifier.verify(proof.body, jwks)).toContain(`(seq ${placed.seq}) of tenant ${A} is in the signed tree`);
  });
});

describe('the subgraph', () => {
  const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
    (await call(token, 'POST', url, '/graphql', { query, variables })).body;

  it('reads rules and holds, refuses a short policy (BAD_USER_INPUT), another tenant’s subject (NOT_FOUND) and a user (FORBIDDEN)', async () => {
    const read = await gql(
      t.audrey!,
      '{ retentionPolicies { recordType legalMinimumDays retainDays } legalHolds { id active subjectRef } }',
    );
    expect(read.data.retentionPolicies).toContainEqual({
      recordType: 'ai_usage',
      legalMinimumDays: 365,
      retainDays: 400,
    });
    expect(read.data.legalHolds).toEqual([expect.objectContaining({ active: false })]);

    const short = await gql(
      t.ann!,
      'mutation { setRetentionPolicy(recordType: "ocr_job", retainDays: 3) { retainDays } }',
    );
    expect(short.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    const ok = await gql(
      t.ann!,
      'mutation { setRetentionPolicy(recordType: "ocr_job", retainDays: 45) { recordType retainDays updatedBy } }',
    );
    expect(ok.data.setRetentionPolicy).toEqual({ recordType: 'ocr_job', retainDays: 45, updatedBy: 'ann' });
    const user = await gql(t.uma!, 'mutation { removeRetentionPolicy(recordType: "ocr_job") { retainDays } }');
    expect(user.errors[0].extensions.code).toBe('FORBIDDEN');

    const foreign = await gql(t.bob!, 'mutation { placeLegalHold(input: { subjectId: "carol", reason: "x" }) { id } }');
    expect(foreign.errors[0].extensions.code).toBe('NOT_FOUND');
    const erase = await gql(t.bob!, 'mutation { requestErasure(subjectId: "carol") { id } }');
    expect(erase.errors[0].extensions.code).toBe('NOT_FOUND');
    const other = await gql(t.bob!, '{ erasureRequests { id } legalHolds { id } }');
    expect(other.data).toEqual({ erasureRequests: [], legalHolds: [] });

    const hold = await gql(
      t.ann!,
      'mutation { placeLegalHold(input: { subjectId: "carol", reason: "audit" }) { id active } }',
    );
    expect(hold.data.placeLegalHold.active).toBe(true);
    const blocked = await gql(t.ann!, 'mutation { requestErasure(subjectId: "carol") { id } }');
    expect(blocked.errors[0].extensions.code).toBe('CONFLICT');
    const released = await gql(t.ann!, 'mutation($id: ID!) { releaseLegalHold(id: $id) { active releasedBy } }', {
      id: hold.data.placeLegalHold.id,
    });
    expect(released.data.releaseLegalHold).toEqual({ active: false, releasedBy: 'ann' });
  });
});
