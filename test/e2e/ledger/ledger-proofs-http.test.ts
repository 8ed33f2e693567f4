// The proof routes over real HTTP and GraphQL, checked by the standalone verifier: the JWKS is
// public, proofs need a token and follow the tenant rule, bad input is FastAPI's 422, a batch of
// proofs against one checkpoint matches the single proofs, and a flood of checkpoint requests is
// answered 429.
import { AccessTokens } from '../../../platform/auth/jwt';
import { ledgerService } from '../../../services/ledger';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const verifier = require('../../../verifier/verify-proof.cjs') as { verify(doc: unknown, jwks: unknown): string };

jest.setTimeout(90_000);

let h: Harness;
let url: string;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
let tokenA: string;
let tokenB: string;

beforeAll(async () => {
  h = await startServices([ledgerService], {
    LEDGER_CHECKPOINT_REQUESTS_PER_MINUTE: '2',
    LEDGER_CHECKPOINT_INTERVAL_MS: '0',
  });
  url = h.services.ledger!.url;
  tokenA = await tokens.issue({
    username: 'alice',
    tenantId: 'http-proof-a',
    roles: ['user'],
    scopes: ['read', 'write'],
  });
  tokenB = await tokens.issue({
    username: 'bob',
    tenantId: 'http-proof-b',
    roles: ['user'],
    scopes: ['read', 'write'],
  });
  for (let i = 0; i < 6; i++) {
    const res = await fetch(`${url}/append`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenA}` },
      body: JSON.stringify({ tenant_id: 'http-proof-a', event_type: 'proof_http', event_data: { i } }),
    });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => h?.close());

const get = (path: string, token?: string) =>
  fetch(`${url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const json = async (res: Response | Promise<Response>): Promise<any> => (await res).json();

it('serves the JWKS without a token, and an inclusion proof by REST that the verifier accepts', async () => {
  const jwksRes = await get('/v1/ledger/jwks');
  expect(jwksRes.status).toBe(200);
  const jwks = await json(jwksRes);
  expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
  const proofRes = await get('/v1/ledger/proofs/inclusion?seq=4', tokenA);
  expect(proofRes.status).toBe(200);
  const proof = await json(proofRes);
  expect(verifier.verify(proof, jwks)).toContain('seq 4');
  expect((await get('/v1/ledger/proofs/inclusion?seq=4')).status).toBe(401);
});

it('answers the same proofs by GraphQL', async () => {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenA}` },
    body: JSON.stringify({
      query:
        '{ ledgerInclusionProof(seq: 2) { leafIndex treeSize auditPath checkpoint { treeSize rootHash keyId } entry { seq chainHash } } ledgerCheckpoint { treeSize } }',
    }),
  });
  const body = await json(res);
  expect(body.errors).toBeUndefined();
  expect(body.data.ledgerInclusionProof).toMatchObject({ leafIndex: 1, treeSize: 6, entry: { seq: 2 } });
  const rest = await json(get('/v1/ledger/proofs/inclusion?seq=2&tree_size=6', tokenA));
  expect(body.data.ledgerInclusionProof.auditPath).toEqual(rest.audit_path);
  const bad = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenA}` },
    body: JSON.stringify({ query: '{ ledgerConsistencyProof(first: 0) { proof } }' }),
  });
  expect((await json(bad)).errors[0].extensions.code).toBe('BAD_USER_INPUT');
});

it("another tenant sees none of it; garbage is 422 in FastAPI's shape", async () => {
  const entry = (await json(get('/events?tenant_id=http-proof-a&limit=1', tokenA))).events[0];
  expect((await get(`/v1/ledger/proofs/inclusion?entry_id=${entry.id}`, tokenB)).status).toBe(404);
  expect((await get(`/v1/ledger/proofs/inclusion?tenant_id=http-proof-a&entry_id=${entry.id}`, tokenB)).status).toBe(
    403,
  );
  const garbage = await get('/v1/ledger/proofs/inclusion?seq=abc', tokenA);
  expect(garbage.status).toBe(422);
  expect((await json(garbage)).detail[0]).toMatchObject({ loc: ['query', 'seq'] });
  const beyond = await get('/v1/ledger/proofs/consistency?first=1&second=9999', tokenA);
  expect(beyond.status).toBe(422);
});

it("proves a batch of entries against one checkpoint; another tenant's entries are not found, naming it is 403", async () => {
  const tokenC = await tokens.issue({
    username: 'carol',
    tenantId: 'http-proof-c',
    roles: ['user'],
    scopes: ['read', 'write'],
  });
  for (let i = 0; i < 3; i++)
    await fetch(`${url}/append`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenC}` },
      body: JSON.stringify({ tenant_id: 'http-proof-c', event_type: 'proof_http', event_data: { i } }),
    });
  const checkpoint = await json(get('/v1/ledger/checkpoints/latest', tokenC));
  expect(checkpoint.tree_size).toBe(3);
  const own = (await json(get('/events?limit=10', tokenC))).events.map((e: { id: string }) => e.id);
  const theirs = (await json(get('/events?tenant_id=http-proof-a&limit=2', tokenA))).events.map(
    (e: { id: string }) => e.id,
  );
  const batch = (ids: string[], token: string, extra: Record<string, unknown> = {}) =>
    fetch(`${url}/v1/ledger/proofs/inclusion/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ entry_ids: ids, tree_size: 3, ...extra }),
    });
  const res = await batch([own[2], theirs[0], own[0], theirs[1], own[1]], tokenC);
  expect(res.status).toBe(200);
  const body = await json(res);
  expect(body).toMatchObject({ type: 'inclusion_batch', tenant_id: 'http-proof-c', tree_size: 3 });
  expect(body.proofs.map((p: { entry: { id: string } }) => p.entry.id)).toEqual([own[2], own[0], own[1]]);
  expect(body.not_found).toEqual([theirs[0], theirs[1]]);
  // Each proof with the batch's checkpoint is exactly what the single route answers and the verifier accepts.
  const jwks = await json(get('/v1/ledger/jwks'));
  for (const p of body.proofs) {
    const single = { type: 'inclusion', tenant_id: body.tenant_id, tree_size: 3, checkpoint: body.checkpoint, ...p };
    expect(verifier.verify(single, jwks)).toContain(`seq ${p.entry.seq}`);
    const alone = await json(get(`/v1/ledger/proofs/inclusion?entry_id=${p.entry.id}&tree_size=3`, tokenC));
    expect(alone.audit_path).toEqual(p.audit_path);
  }
  // Naming tenant A is refused; unauthenticated is 401; garbage is 422 at its place in the body.
  expect((await batch(theirs, tokenC, { tenant_id: 'http-proof-a' })).status).toBe(403);
  expect((await fetch(`${url}/v1/ledger/proofs/inclusion/batch`, { method: 'POST', body: '{}' })).status).toBe(401);
  const garbage = await batch([own[0], 'not-a-uuid'], tokenC);
  expect(garbage.status).toBe(422);
  expect((await json(garbage)).detail[0]).toMatchObject({ loc: ['body', 'entry_ids', 1] });
  expect(
    (
      await batch(
        Array.from({ length: 1001 }, () => own[0]),
        tokenC,
      )
    ).status,
  ).toBe(422);
  expect((await batch([own[0]], tokenC, { tree_size: 2 })).status).toBe(404);
});

it('a flood of checkpoint requests is answered 429 with Retry-After', async () => {
  const post = () =>
    fetch(`${url}/v1/ledger/checkpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenB}` },
      body: '{}',
    });
  // Tenant B has no entries: its checkpoint requests still count against its budget.
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await post()).status);
  expect(statuses.slice(0, 2)).toEqual([404, 404]);
  const limited = await post();
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
});
