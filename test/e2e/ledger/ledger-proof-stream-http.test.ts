// POST /v1/ledger/proofs/inclusion/stream over real HTTP: many entries' proofs against one
// checkpoint as NDJSON batches (seq order, another tenant's ids in not_found, an `end` line), each
// proof accepted by the standalone verifier and equal to the single route's; the tenant rule and
// bad input answered like the batch route's (403, 401, 422 at the place in the body, 404 for a
// size without a checkpoint) before any line is sent; and the typed client reads the same stream.
import { AccessTokens } from '../../../platform/auth/jwt';
import { createLedgerProofClient, inclusionOf } from '../../../platform/clients/ledger.client';
import { expandIndexedBatch } from '../../../platform/contracts/clients/ledger.api';
import { ServiceCallError } from '../../../platform/clients/service-request';
import { ledgerService } from '../../../services/ledger';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const verifier = require('../../../verifier/verify-proof.cjs') as { verify(doc: unknown, jwks: unknown): string };

jest.setTimeout(90_000);

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const A = 'stream-proof-a';
const C = 'stream-proof-c';
let h: Harness;
let url: string;
let tokenA: string;
let tokenC: string;
let own: string[] = [];
let theirs: string[] = [];
let jwks: unknown;

const issue = (username: string, tenantId: string) =>
  tokens.issue({ username, tenantId, roles: ['user'], scopes: ['read', 'write'] });
const get = async (path: string, token: string): Promise<any> =>
  (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } })).json();
const stream = (token: string | undefined, body: unknown) =>
  fetch(`${url}/v1/ledger/proofs/inclusion/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
const lines = async (res: Response): Promise<any[]> =>
  (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

async function append(token: string, tenantId: string, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${url}/append`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ tenant_id: tenantId, event_type: i % 2 ? 'odd' : 'even', event_data: { i } }),
    });
    expect(res.status).toBe(200);
  }
}

beforeAll(async () => {
  h = await startServices([ledgerService], { LEDGER_CHECKPOINT_INTERVAL_MS: '0' });
  url = h.services.ledger!.url;
  tokenA = await issue('alice', A);
  tokenC = await issue('carol', C);
  await append(tokenA, A, 3);
  await append(tokenC, C, 7);
  expect((await get('/v1/ledger/checkpoints/latest', tokenC)).tree_size).toBe(7);
  // Oldest first from /events: own[k] is seq k + 1.
  own = (await get('/events?limit=10', tokenC)).events.map((e: { id: string }) => e.id);
  theirs = (await get(`/events?tenant_id=${A}&limit=10`, tokenA)).events.map((e: { id: string }) => e.id);
  jwks = await (await fetch(`${url}/v1/ledger/jwks`)).json();
});
afterAll(async () => h?.close());

it("streams proofs of entries by id in seq order, another tenant's ids not found, each verified", async () => {
  const res = await stream(tokenC, {
    tree_size: 7,
    entry_ids: [own[6], theirs[0], own[0], own[3], theirs[1]],
    batch_size: 2,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/x-ndjson');
  const body = await lines(res);
  const batches = body.filter((l) => l.type === 'inclusion_batch');
  expect(batches).toHaveLength(2);
  expect(body[body.length - 1]).toEqual({ type: 'end', proofs: 3, not_found: 2 });
  // Each path is spelt once per line in `nodes`; expanded, every proof is the single route's.
  for (const b of batches) expect(b.proofs.every((p: any) => !('audit_path' in p) && Array.isArray(p.path))).toBe(true);
  const proofs = batches.flatMap((b) => {
    const whole = expandIndexedBatch(b);
    return whole.proofs.map((p) => inclusionOf(whole, p));
  });
  expect(proofs.map((p) => p.entry.seq)).toEqual([1, 4, 7]);
  expect(proofs.map((p) => p.entry.id)).toEqual([own[0], own[3], own[6]]);
  expect(batches.flatMap((b) => b.not_found).sort()).toEqual([theirs[0], theirs[1]].sort());
  for (const p of proofs) {
    expect(p.tenant_id).toBe(C);
    expect(verifier.verify(p, jwks)).toContain(`seq ${p.entry.seq}`);
    const alone = await get(`/v1/ledger/proofs/inclusion?entry_id=${p.entry.id}&tree_size=7`, tokenC);
    expect(alone.audit_path).toEqual(p.audit_path);
  }
});

it('streams a seq range, optionally of one event type', async () => {
  const all = await lines(await stream(tokenC, { tree_size: 7, from_seq: 2, to_seq: 6, batch_size: 3 }));
  expect(all.filter((l) => l.type === 'inclusion_batch').map((b) => b.proofs.length)).toEqual([3, 2]);
  expect(all.at(-1)).toEqual({ type: 'end', proofs: 5, not_found: 0 });
  const odd = await lines(await stream(tokenC, { tree_size: 7, from_seq: 1, event_type: 'odd' }));
  const seqs = odd.flatMap((l) => (l.type === 'inclusion_batch' ? l.proofs.map((p: any) => p.entry.seq) : []));
  expect(seqs).toEqual([2, 4, 6]);
});

it('refuses before streaming: another tenant named, no token, bad ids, unknown checkpoint', async () => {
  const refused = await stream(tokenC, { tenant_id: A, tree_size: 3, entry_ids: theirs });
  expect(refused.status).toBe(403);
  expect((await refused.json()) as unknown).toHaveProperty('detail');
  expect((await stream(undefined, { tree_size: 7, entry_ids: [own[0]] })).status).toBe(401);
  const garbage = await stream(tokenC, { tree_size: 7, entry_ids: [own[0], 'not-a-uuid'] });
  expect(garbage.status).toBe(422);
  expect(((await garbage.json()) as any).detail[0]).toMatchObject({ loc: ['body', 'entry_ids', 1] });
  const both = await stream(tokenC, { tree_size: 7, entry_ids: [own[0]], from_seq: 1 });
  expect(both.status).toBe(422);
  expect((await stream(tokenC, { tree_size: 7 })).status).toBe(422);
  expect((await stream(tokenC, { tree_size: 7, entry_ids: [own[0]], batch_size: 50_001 })).status).toBe(422);
  expect((await stream(tokenC, { tree_size: 99, entry_ids: [own[0]] })).status).toBe(422);
  expect((await stream(tokenC, { tree_size: 5, entry_ids: [own[0]] })).status).toBe(404);
});

it('the typed client reads the stream, and answers a refusal with its status', async () => {
  const client = createLedgerProofClient(url);
  const got: number[] = [];
  const notFound: string[] = [];
  for await (const b of client.inclusionStream({ tenantId: C, token: tokenC }, [...own, theirs[2]!], 7, {
    batchSize: 4,
  })) {
    got.push(...b.proofs.map((p) => Number(p.entry.seq)));
    notFound.push(...b.not_found);
    for (const p of b.proofs) expect(verifier.verify(inclusionOf(b, p), jwks)).toContain(`seq ${p.entry.seq}`);
  }
  expect(got).toEqual([1, 2, 3, 4, 5, 6, 7]);
  expect(notFound).toEqual([theirs[2]]);
  const refusal = (async () => {
    for await (const _ of client.inclusionStream({ tenantId: A, token: tokenC }, theirs, 3)) void _;
  })();
  await expect(refusal).rejects.toMatchObject({ status: 403 });
  await expect(refusal).rejects.toBeInstanceOf(ServiceCallError);
});
